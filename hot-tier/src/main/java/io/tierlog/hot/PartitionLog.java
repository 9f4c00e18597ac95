package io.tierlog.hot;

import io.tierlog.common.Time;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;

/** One partition's segmented log. Thread-safe: appends serialised internally; reads lock-free. */
public final class PartitionLog implements Closeable {

    public static PartitionLog open(Path dir, LogConfig config, Time time) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public static PartitionLog open(
            Path dir,
            LogConfig config,
            Time time,
            ScheduledExecutorService scheduler,
            long recoveryPoint,
            boolean hadCleanShutdown)
            throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public TopicPartition topicPartition() {
        throw new UnsupportedOperationException("not yet");
    }

    public Path dir() {
        throw new UnsupportedOperationException("not yet");
    }

    public LogConfig config() {
        throw new UnsupportedOperationException("not yet");
    }

    public AppendResult append(ByteBuffer batches) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public FileSlice read(long startOffset, int maxBytes) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public long logStartOffset() {
        throw new UnsupportedOperationException("not yet");
    }

    public long logEndOffset() {
        throw new UnsupportedOperationException("not yet");
    }

    public long highWatermark() {
        throw new UnsupportedOperationException("not yet");
    }

    public long recoveryPoint() {
        throw new UnsupportedOperationException("not yet");
    }

    public Optional<TimestampOffset> offsetForTimestamp(long timestampMs) {
        throw new UnsupportedOperationException("not yet");
    }

    public Optional<TimestampOffset> maxTimestamp() {
        throw new UnsupportedOperationException("not yet");
    }

    public List<SegmentInfo> segments() {
        throw new UnsupportedOperationException("not yet");
    }

    public void addListener(LogListener l) {
        throw new UnsupportedOperationException("not yet");
    }

    public void maybeRoll() throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public int maybeDeleteSegments(long maxDeletableOffset) throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public void flush() throws IOException {
        throw new UnsupportedOperationException("not yet");
    }

    public Optional<ProducerEntry> producerState(long producerId) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public void close() throws IOException {
        throw new UnsupportedOperationException("not yet");
    }
}

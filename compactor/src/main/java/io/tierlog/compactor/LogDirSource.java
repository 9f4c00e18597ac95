package io.tierlog.compactor;

import io.tierlog.hot.FileSlice;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Segments of any directory of partition folders ({@code <topic>-<partition>}, Kafka's layout: an
 * Apache Kafka broker's log dir, or a tierlog data dir another process owns), read through the hot
 * tier's {@link ReadOnlyLogDir}: nothing in the directory is ever written, and only batches whose
 * CRC verified are offloaded. Partitions and segments are re-listed on every call, so new
 * partitions and rolled segments show up.
 *
 * <p>Thread-safe.
 */
public final class LogDirSource implements SegmentSource {
    private final Path logDir;
    private final ReadOnlyLogDir dir;

    private LogDirSource(Path logDir, ReadOnlyLogDir dir) {
        this.logDir = logDir;
        this.dir = dir;
    }

    /** A source over {@code logDir}, which must exist. */
    public static LogDirSource open(Path logDir) throws IOException {
        return new LogDirSource(logDir, ReadOnlyLogDir.open(logDir));
    }

    public Path logDir() {
        return logDir;
    }

    @Override
    public List<TopicPartition> partitions() throws IOException {
        try {
            return dir.partitions();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public List<SegmentInfo> segments(TopicPartition tp) throws IOException {
        try {
            return dir.segments(tp);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public BatchStream batches(SegmentInfo segment) throws IOException {
        FileSlice slice = dir.readSegment(segment);
        if (slice.isEmpty()) {
            return BatchStream.empty();
        }
        // The channel belongs to the ReadOnlyLogDir (closed with it), not to the stream.
        return new BatchStream(slice.channel(), slice.position(), slice.sizeInBytes(), null);
    }

    @Override
    public String describe() {
        return "log dir " + logDir;
    }

    @Override
    public void close() throws IOException {
        dir.close();
    }
}

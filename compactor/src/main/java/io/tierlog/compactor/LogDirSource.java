package io.tierlog.compactor;

import io.tierlog.hot.FileSlice;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Segments of any directory of partition folders ({@code <topic>-<partition>}, Kafka's layout: an
 * Apache Kafka broker's log dir or a tierlog data dir another process owns), read through the hot
 * tier's {@link ReadOnlyLogDir}: nothing in the directory is ever written. The directory is
 * re-scanned on every {@link #partitions()} call, so new partitions and rolled segments show up.
 *
 * <p>Thread-safe.
 */
public final class LogDirSource implements SegmentSource {
    private final Path logDir;

    public LogDirSource(Path logDir) {
        this.logDir = logDir;
    }

    private ReadOnlyLogDir open() throws IOException {
        return ReadOnlyLogDir.open(logDir);
    }

    private volatile ReadOnlyLogDir current;

    @Override
    public List<TopicPartition> partitions() throws IOException {
        ReadOnlyLogDir dir = open();
        current = dir;
        return dir.partitions();
    }

    private ReadOnlyLogDir dir() throws IOException {
        ReadOnlyLogDir dir = current;
        if (dir == null) {
            dir = open();
            current = dir;
        }
        return dir;
    }

    @Override
    public List<SegmentInfo> segments(TopicPartition tp) throws IOException {
        return dir().segments(tp);
    }

    @Override
    public BatchStream batches(SegmentInfo segment) throws IOException {
        FileSlice slice = dir().readSegment(segment);
        if (slice.isEmpty()) {
            return BatchStream.empty();
        }
        return new BatchStream(slice.channel(), slice.position(), slice.sizeInBytes(), null);
    }

    @Override
    public String describe() {
        return "log dir " + logDir;
    }

    @Override
    public void close() {}
}

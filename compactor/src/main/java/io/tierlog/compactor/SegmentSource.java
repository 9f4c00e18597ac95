package io.tierlog.compactor;

import io.tierlog.hot.SegmentInfo;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the compactor finds closed segments: tierlog's own {@link io.tierlog.hot.LogManager}
 * ({@link LogManagerSource}) or any directory of partition folders read without writing ({@link
 * LogDirSource}).
 *
 * <p>Contract: {@link #segments} lists a partition's segments oldest first, the last one possibly
 * active ({@code closed() == false}); the compactor only reads closed ones. {@link #batches}
 * streams the batches of one closed segment in offset order and must not change anything on disk.
 * The caller closes the source. Implementations are thread-safe.
 */
public interface SegmentSource extends Closeable {

    /** The partitions present now. */
    List<TopicPartition> partitions() throws IOException;

    /** The partition's segments, oldest first; empty if the partition is gone. */
    List<SegmentInfo> segments(TopicPartition tp) throws IOException;

    /** The record batches of a closed segment, in offset order; the caller closes the stream. */
    BatchStream batches(SegmentInfo segment) throws IOException;

    /**
     * Registers a callback run when a segment of any partition closes (so the loop need not wait
     * for its next interval). Sources that cannot observe rolls ignore it.
     */
    default void onSegmentClosed(Runnable callback) {}

    /**
     * Tells the source that the batches of offsets {@code [from, to)} read from its segments are
     * corrupt (found while offloading), so that a source serving reads can route them to the cold
     * tier where it holds them. Read-only sources ignore it.
     */
    default void reportCorruption(TopicPartition tp, long from, long to, String reason) {}

    /**
     * Keeps the partition's closed segment files as {@link #segments} lists them until the returned
     * handle is closed: a source whose segments a log cleaner may replace holds the cleaner off the
     * partition (waiting for a cleaning in progress to finish). The offloader takes it around
     * listing and reading a partition's segments, so it never ships a copy that a cleaning is
     * replacing, and the cleaner never removes a tombstone while an offload of the partition runs.
     * Read-only sources of immutable segments return a no-op handle.
     */
    default Exclusion exclusive(TopicPartition tp) throws IOException, InterruptedException {
        return () -> {};
    }

    /** A held {@link #exclusive} of one partition; closing releases it. */
    @FunctionalInterface
    interface Exclusion extends AutoCloseable {
        @Override
        void close();
    }

    /** A short description for logs ("log dir /var/kafka-logs"). */
    String describe();
}

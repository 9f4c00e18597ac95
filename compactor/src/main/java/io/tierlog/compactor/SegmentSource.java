package io.tierlog.compactor;

import io.tierlog.hot.AbortedTxn;
import io.tierlog.hot.OngoingTxn;
import io.tierlog.hot.SegmentInfo;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
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
 *
 * <p>Transactions: the offloader never ships an offset at or above {@link #lastStableOffset}, so
 * every transactional batch it writes belongs to a finished transaction, whose outcome {@link
 * #abortedTransactions} tells.
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

    /**
     * The partition's last stable offset: no offset below it belongs to an open transaction (the
     * first offset of the oldest open one, else the end of the readable log). May be conservative
     * (lower than the truth), never higher.
     */
    long lastStableOffset(TopicPartition tp) throws IOException;

    /**
     * The aborted transactions of the partition that hold any offset of {@code [from, upTo)}, where
     * {@code upTo <= lastStableOffset(tp)}: complete for that range (every transactional data batch
     * there of an aborted transaction lies in an entry {@code firstOffset <= base <= lastOffset} of
     * its producer), in marker order.
     */
    List<AbortedTxn> abortedTransactions(TopicPartition tp, long from, long upTo)
            throws IOException;

    /** The partition's oldest open transaction, if any (it holds the last stable offset back). */
    Optional<OngoingTxn> oldestOpenTransaction(TopicPartition tp) throws IOException;

    /** A short description for logs ("log dir /var/kafka-logs"). */
    String describe();
}

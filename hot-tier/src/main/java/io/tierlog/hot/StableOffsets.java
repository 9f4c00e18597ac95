package io.tierlog.hot;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * What holds a partition's last stable offset: the open transactions by first offset (Kafka's
 * {@code ongoingTxns}) and the completed ones whose marker may still be at or above the high
 * watermark (Kafka's {@code unreplicatedTxns}: here, a marker not yet durable or not yet
 * published).
 *
 * <p>Thread-safety: mutated under the log's append lock; {@link #lastStableOffset} reads only
 * volatile fields (an immutable array and a long), so fetches call it lock-free. Writers publish
 * the completed transaction before removing it from the open floor, so a reader never sees the LSO
 * pass data whose marker (and abort entry) is not yet readable.
 */
final class StableOffsets {
    /** Open transactions: first offset -> producer id. Under the lock. */
    private final TreeMap<Long, Long> ongoing = new TreeMap<>();

    /** First offset of the oldest open transaction, or {@code Long.MAX_VALUE}. */
    private volatile long firstOngoingOffset = Long.MAX_VALUE;

    /** Completed transactions as {@code [first offset, marker offset]}, in marker order. */
    private volatile long[][] unstable = new long[0][];

    /** A transaction of {@code pid} opened at {@code firstOffset}. */
    void open(long firstOffset, long pid) {
        ongoing.put(firstOffset, pid);
        publish();
    }

    /**
     * The transaction opened at {@code firstOffset} ended with a marker at {@code markerOffset}.
     *
     * @param untilPublished keep it in the LSO until the high watermark passes the marker
     */
    void complete(long firstOffset, long markerOffset, boolean untilPublished) {
        if (untilPublished) {
            long[][] u = unstable;
            long[][] n = Arrays.copyOf(u, u.length + 1);
            n[u.length] = new long[] {firstOffset, markerOffset};
            unstable = n;
        }
        ongoing.remove(firstOffset);
        publish();
    }

    /**
     * The LSO an aborted transaction's index entry records: the first offset of another producer's
     * open transaction, else one past its marker (Kafka's {@code lastStableOffset(completedTxn)}).
     */
    long lastStableOffsetAfter(long pid, long markerOffset) {
        for (Map.Entry<Long, Long> o : ongoing.entrySet()) {
            if (o.getValue() != pid) {
                return o.getKey();
            }
        }
        return markerOffset + 1;
    }

    /**
     * The last stable offset given the high watermark: the first offset of the oldest open
     * transaction, or of a completed one whose marker is not below {@code highWatermark}, if below
     * it. Lock-free.
     */
    long lastStableOffset(long highWatermark) {
        long lso = Math.min(highWatermark, firstOngoingOffset);
        for (long[] u : unstable) {
            if (u[1] >= highWatermark && u[0] < lso) {
                lso = u[0];
            }
        }
        return lso;
    }

    /** Forgets completed transactions whose marker is below the high watermark. */
    void prune(long highWatermark) {
        long[][] u = unstable;
        int keep = 0;
        for (long[] x : u) {
            if (x[1] >= highWatermark) {
                keep++;
            }
        }
        if (keep == u.length) {
            return;
        }
        long[][] n = new long[keep][];
        int i = 0;
        for (long[] x : u) {
            if (x[1] >= highWatermark) {
                n[i++] = x;
            }
        }
        unstable = n;
    }

    /** The open transactions, oldest first (first offset -> producer id); a live view. */
    Map<Long, Long> ongoing() {
        return ongoing;
    }

    void clear() {
        ongoing.clear();
        unstable = new long[0][];
        publish();
    }

    private void publish() {
        firstOngoingOffset = ongoing.isEmpty() ? Long.MAX_VALUE : ongoing.firstKey();
    }
}

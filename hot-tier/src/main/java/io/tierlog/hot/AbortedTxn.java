package io.tierlog.hot;

/**
 * One aborted transaction of a partition, as Kafka's {@code .txnindex} records it (its 34-byte
 * entry: version 0, then these four fields). Immutable.
 *
 * @param producerId the producer whose transaction was aborted
 * @param firstOffset the offset of the transaction's first data batch in this partition
 * @param lastOffset the offset of its abort marker
 * @param lastStableOffset the partition's last stable offset once the marker was written (the first
 *     offset of another producer's still ongoing transaction, else {@code lastOffset + 1})
 */
public record AbortedTxn(
        long producerId, long firstOffset, long lastOffset, long lastStableOffset) {}

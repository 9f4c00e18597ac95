package io.tierlog.hot;

/**
 * A transaction of one producer that is open in a partition: data appended, no marker yet.
 * Immutable.
 *
 * @param producerId the producer
 * @param producerEpoch its epoch
 * @param firstOffset the offset of the transaction's first data batch in this partition (it holds
 *     the partition's last stable offset at or below it)
 * @param lastTimestamp the max timestamp of the producer's last batch (-1 unknown)
 */
public record OngoingTxn(
        long producerId, short producerEpoch, long firstOffset, long lastTimestamp) {}

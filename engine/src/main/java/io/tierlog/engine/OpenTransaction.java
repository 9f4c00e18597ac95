package io.tierlog.engine;

/**
 * A transaction open in a partition (data, no marker yet), for DescribeProducers, {@code tierlog
 * inspect} and hanging-transaction checks. Immutable.
 *
 * @param producerId the producer
 * @param producerEpoch its epoch
 * @param firstOffset the first offset of the transaction in the partition
 * @param lastTimestamp max timestamp of the producer's last batch, -1 unknown
 */
public record OpenTransaction(
        long producerId, short producerEpoch, long firstOffset, long lastTimestamp) {}

package io.tierlog.engine;

/**
 * An idempotent producer a partition's hot tier remembers (Kafka's DescribeProducers entry).
 * Immutable.
 *
 * @param producerId the producer id
 * @param producerEpoch its current epoch
 * @param lastSequence the last sequence number written, -1 when no batch is remembered
 * @param lastTimestamp the max timestamp of its last batch, -1 when no batch is remembered
 */
public record ActiveProducer(
        long producerId, short producerEpoch, int lastSequence, long lastTimestamp) {}

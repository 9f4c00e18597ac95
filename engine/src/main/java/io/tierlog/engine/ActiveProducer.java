package io.tierlog.engine;

/**
 * An idempotent or transactional producer a partition's hot tier remembers (Kafka's
 * DescribeProducers entry). Immutable.
 *
 * @param producerId the producer id
 * @param producerEpoch its current epoch
 * @param lastSequence the last sequence number written, -1 when no batch is remembered
 * @param lastTimestamp the max timestamp of its last batch or marker, -1 when unknown
 * @param coordinatorEpoch the epoch of the transaction coordinator that wrote its last marker, -1
 *     when none did
 * @param currentTxnStartOffset the first offset of its open transaction in the partition, -1 when
 *     none is open
 */
public record ActiveProducer(
        long producerId,
        short producerEpoch,
        int lastSequence,
        long lastTimestamp,
        int coordinatorEpoch,
        long currentTxnStartOffset) {

    /** A producer with no transaction and no marker. */
    public ActiveProducer(
            long producerId, short producerEpoch, int lastSequence, long lastTimestamp) {
        this(producerId, producerEpoch, lastSequence, lastTimestamp, -1, -1);
    }
}

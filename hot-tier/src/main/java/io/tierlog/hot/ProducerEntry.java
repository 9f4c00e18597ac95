package io.tierlog.hot;

import java.util.List;

/**
 * State of one idempotent or transactional producer in one partition (Kafka's {@code
 * ProducerStateEntry}): its epoch, the metadata of its last (at most 5) batches, oldest first, and
 * its transaction state. Immutable snapshot.
 *
 * @param producerId the producer id
 * @param producerEpoch current epoch
 * @param batches last batches written by this producer/epoch, oldest first, at most {@link
 *     #MAX_BATCHES}
 * @param coordinatorEpoch epoch of the transaction coordinator that wrote its last marker (-1 none)
 * @param lastTimestamp max timestamp of its last batch or marker (-1 unknown): expiry is measured
 *     from it
 * @param currentTxnFirstOffset first offset of its open transaction in this partition (-1 none)
 */
public record ProducerEntry(
        long producerId,
        short producerEpoch,
        List<BatchMetadata> batches,
        int coordinatorEpoch,
        long lastTimestamp,
        long currentTxnFirstOffset) {
    /** As Kafka: a producer may have at most 5 in-flight requests, so 5 batches are remembered. */
    public static final int MAX_BATCHES = 5;

    public ProducerEntry {
        batches = List.copyOf(batches);
    }

    /** An idempotent producer's entry (no transaction, no marker seen). */
    public ProducerEntry(long producerId, short producerEpoch, List<BatchMetadata> batches) {
        this(
                producerId,
                producerEpoch,
                batches,
                -1,
                batches.isEmpty() ? -1 : batches.get(batches.size() - 1).timestamp(),
                -1);
    }

    /** Last sequence number written, or -1 when no batch is known. */
    public int lastSequence() {
        return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastSequence();
    }

    /** Last offset written, or -1 when no batch is known. */
    public long lastOffset() {
        return batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastOffset();
    }

    /**
     * One batch of the producer.
     *
     * @param firstSequence base sequence of the batch
     * @param lastSequence base sequence + last offset delta (wrapping at Integer.MAX_VALUE)
     * @param firstOffset offset assigned to the first record
     * @param lastOffset offset assigned to the last record
     * @param timestamp max timestamp of the batch
     */
    public record BatchMetadata(
            int firstSequence,
            int lastSequence,
            long firstOffset,
            long lastOffset,
            long timestamp) {}
}

package io.tierlog.hot;

import java.util.List;

/**
 * State of one idempotent producer in one partition: its epoch and the metadata of its last (at
 * most 5) batches, oldest first. Immutable snapshot.
 *
 * @param producerId the producer id
 * @param producerEpoch current epoch
 * @param batches last batches written by this producer/epoch, oldest first, at most {@link
 *     #MAX_BATCHES}
 */
public record ProducerEntry(long producerId, short producerEpoch, List<BatchMetadata> batches) {
    /** As Kafka: a producer may have at most 5 in-flight requests, so 5 batches are remembered. */
    public static final int MAX_BATCHES = 5;

    public ProducerEntry {
        batches = List.copyOf(batches);
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

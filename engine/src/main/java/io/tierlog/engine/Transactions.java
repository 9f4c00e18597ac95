package io.tierlog.engine;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The partition side of transactions, for a transaction coordinator and the Produce path: KIP-890
 * verification tokens, commit/abort markers, the last stable offset and open transactions. From
 * {@link TieredLog#transactions()}. Thread-safe.
 */
public final class Transactions {
    private final TieredLog log;

    Transactions(TieredLog log) {
        this.log = log;
    }

    /**
     * Starts verification of a producer's first transactional batch in a partition: returns the
     * token to pass with the append after the coordinator confirmed the partition is in the
     * transaction, or {@link TxnVerification#NONE} when the partition already knows the producer's
     * transaction is ongoing (no coordinator call needed).
     */
    public TxnVerification startVerification(
            TopicPartition tp,
            long producerId,
            int baseSequence,
            short producerEpoch,
            boolean supportsEpochBump) {
        throw new UnsupportedOperationException("transactions: not implemented yet");
    }

    /** Whether a verification is needed for this producer's next transactional batch. */
    public boolean needsVerification(TopicPartition tp, long producerId) {
        throw new UnsupportedOperationException("transactions: not implemented yet");
    }

    /**
     * Appends a commit or abort marker (a control batch) for {@code producerId} to the partition,
     * as a coordinator does for each partition of a completed transaction.
     *
     * @return the marker's offset
     * @throws org.apache.kafka.common.errors.TransactionCoordinatorFencedException coordinator
     *     epoch below the partition's
     * @throws org.apache.kafka.common.errors.InvalidProducerEpochException epoch too old
     * @throws org.apache.kafka.common.errors.UnknownTopicOrPartitionException no such partition
     * @throws org.apache.kafka.common.errors.KafkaStorageException partition offline
     */
    public long appendMarker(
            TopicPartition tp,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            int transactionVersion)
            throws IOException {
        throw new UnsupportedOperationException("transactions: not implemented yet");
    }

    /** The partition's last stable offset (= high watermark when no transaction is open). */
    public long lastStableOffset(TopicPartition tp) {
        return log.offsets(tp).highWatermark();
    }

    /** The transactions open in the partition, oldest first. */
    public List<OpenTransaction> openTransactions(TopicPartition tp) {
        return List.of();
    }
}

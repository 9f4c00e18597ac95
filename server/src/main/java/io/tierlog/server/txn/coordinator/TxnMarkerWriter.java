package io.tierlog.server.txn.coordinator;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes a transaction's commit or abort marker into one partition (Kafka's WriteTxnMarkers, local
 * here). Implementations must be safe to call from any thread.
 */
public interface TxnMarkerWriter {
    /**
     * Appends the marker; completes normally once it is written (and durable as the partition's
     * data is), or exceptionally with Kafka's exception (UnknownTopicOrPartitionException: the
     * partition is gone, drop it; KafkaStorageException: retry later; a fencing error: give up).
     */
    CompletableFuture<Void> writeMarker(
            TopicPartition tp,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            int transactionVersion);
}

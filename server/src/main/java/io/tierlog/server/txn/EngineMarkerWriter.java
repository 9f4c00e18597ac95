package io.tierlog.server.txn;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.txn.coordinator.TxnMarkerWriter;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * The coordinator's markers written into the local log: {@code TieredLog.transactions()
 * .appendMarker} on the blocking executor (a marker append takes the partition's lock, may roll a
 * segment and, for an fsync-durable topic, waits for its fsync). Kafka's exceptions pass through
 * unchanged ({@code UnknownTopicOrPartitionException}, {@code
 * TransactionCoordinatorFencedException}, {@code InvalidProducerEpochException}); an I/O failure
 * becomes {@code KafkaStorageException}, which the coordinator retries. Thread-safe.
 */
public final class EngineMarkerWriter implements TxnMarkerWriter {
    private final TieredLog engine;
    private final Executor blockingExecutor;

    public EngineMarkerWriter(TieredLog engine, Executor blockingExecutor) {
        this.engine = java.util.Objects.requireNonNull(engine);
        this.blockingExecutor = java.util.Objects.requireNonNull(blockingExecutor);
    }

    @Override
    public CompletableFuture<Void> writeMarker(
            TopicPartition tp,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            int transactionVersion) {
        return CompletableFuture.runAsync(
                () -> {
                    try {
                        engine.transactions()
                                .appendMarker(
                                        tp,
                                        producerId,
                                        producerEpoch,
                                        coordinatorEpoch,
                                        commit,
                                        transactionVersion);
                    } catch (IOException e) {
                        throw new CompletionException(
                                new KafkaStorageException(
                                        "marker append to " + tp + " failed: " + e, e));
                    }
                },
                blockingExecutor);
    }
}

package io.tierlog.server.txn;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction area's handlers, over a {@link TransactionCoordinator}: InitProducerId (both
 * transactional and idempotent producers), AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit,
 * EndTxn, WriteTxnMarkers, ListTransactions, DescribeTransactions. Replaces the produce area's
 * InitProducerId when a coordinator is wired (Produce then verifies transactional batches through
 * {@link #verifyPartitions}). Stateless.
 */
public final class TxnApis {
    private TxnApis() {}

    /**
     * @param coordinator the transaction coordinator (opened, recovered)
     * @param groups the group coordinator's side of TxnOffsetCommit (offsets pending until the
     *     marker)
     * @param engine the log (Produce appends, topics for partition checks)
     * @param producerIds the server's producer ids (idempotent InitProducerId)
     * @param blockingExecutor where idempotent InitProducerId, group offset journaling and the
     *     transactional Produce path run, off the event loops
     */
    public static List<ApiHandler> handlers(
            TransactionCoordinator coordinator,
            TxnOffsetSink groups,
            TieredLog engine,
            ProducerIdManager producerIds,
            Executor blockingExecutor) {
        return List.of(
                new TxnInitProducerIdHandler(coordinator, producerIds, blockingExecutor),
                new AddPartitionsToTxnHandler(coordinator, engine.topicRegistry()),
                new AddOffsetsToTxnHandler(coordinator),
                new TxnOffsetCommitHandler(
                        coordinator, groups, engine.topicRegistry(), blockingExecutor),
                new EndTxnHandler(coordinator),
                new WriteTxnMarkersHandler(coordinator),
                new ListTransactionsHandler(coordinator),
                new DescribeTransactionsHandler(coordinator));
    }

    /** The coordinator's settings from the server's {@code transaction.*} options. */
    public static io.tierlog.server.txn.coordinator.TransactionConfig coordinatorConfig(
            io.tierlog.common.Config config) {
        io.tierlog.server.txn.coordinator.TransactionConfig d =
                io.tierlog.server.txn.coordinator.TransactionConfig.defaults();
        return new io.tierlog.server.txn.coordinator.TransactionConfig(
                Math.toIntExact(
                        config.get(io.tierlog.server.ServerOptions.TRANSACTION_MAX_TIMEOUT_MS)
                                .toMillis()),
                config.get(
                                io.tierlog.server.ServerOptions
                                        .TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS)
                        .toMillis(),
                config.get(io.tierlog.server.ServerOptions.TRANSACTIONAL_ID_EXPIRATION_MS)
                        .toMillis(),
                config.get(
                                io.tierlog.server.ServerOptions
                                        .TRANSACTION_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS)
                        .toMillis(),
                config.get(io.tierlog.server.ServerOptions.TRANSACTION_VERSION),
                io.tierlog.server.ServerOptions.transactionStateFsync(config),
                d.markerRetryBackoffMs(),
                d.snapshotBytes());
    }

    /**
     * Produce's KIP-890 partition check over the coordinator: the implicit add of TV2 ({@code add},
     * Produce v12) or a verification (VerifyOnly, TV1). Never blocks; completes with one error per
     * partition (absent = NONE).
     */
    public static CompletableFuture<Map<TopicPartition, Errors>> verifyPartitions(
            TransactionCoordinator coordinator,
            String txnId,
            long pid,
            short epoch,
            Set<TopicPartition> partitions,
            boolean add) {
        CompletableFuture<TransactionCoordinator.AddPartitionsResult> r =
                add
                        ? coordinator.addPartitions(txnId, pid, epoch, partitions, 2)
                        : coordinator.verifyPartitions(txnId, pid, epoch, partitions);
        return r.thenApply(
                result ->
                        result.partitions() == null
                                ? Map.<TopicPartition, Errors>of()
                                : result.partitions());
    }
}

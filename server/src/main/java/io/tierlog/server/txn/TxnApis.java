package io.tierlog.server.txn;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.produce.ProduceApis;
import io.tierlog.server.produce.TxnPartitionCheck;
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
 * EndTxn, WriteTxnMarkers, ListTransactions, DescribeTransactions, and Produce with KIP-890
 * verification of transactional batches. Replaces the produce area's InitProducerId and Produce
 * when a coordinator is wired. Stateless.
 */
public final class TxnApis {
    private TxnApis() {}

    /**
     * @param coordinator the transaction coordinator (opened, recovered)
     * @param groups the group coordinator, holding transactional offset commits until the marker
     * @param engine the log (Produce appends, topics for partition checks)
     * @param producerIds the server's producer ids (idempotent InitProducerId)
     * @param blockingExecutor where idempotent InitProducerId, group offset journaling and the
     *     transactional Produce path run, off the event loops
     */
    public static List<ApiHandler> handlers(
            TransactionCoordinator coordinator,
            GroupCoordinator groups,
            TieredLog engine,
            ProducerIdManager producerIds,
            Executor blockingExecutor) {
        return List.of(
                ProduceApis.transactionalProduce(
                        engine, blockingExecutor, partitionCheck(coordinator)),
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
     * Produce's partition check over the coordinator: a verification (VerifyOnly, TV1) or the
     * implicit add of TV2.
     */
    static TxnPartitionCheck partitionCheck(TransactionCoordinator coordinator) {
        return (String txnId,
                long pid,
                short epoch,
                Set<TopicPartition> partitions,
                boolean add) -> {
            CompletableFuture<TransactionCoordinator.AddPartitionsResult> r =
                    add
                            ? coordinator.addPartitions(txnId, pid, epoch, partitions, 2)
                            : coordinator.verifyPartitions(txnId, pid, epoch, partitions);
            return r.thenApply(
                    result -> {
                        Map<TopicPartition, Errors> out = result.partitions();
                        return out == null ? Map.<TopicPartition, Errors>of() : out;
                    });
        };
    }
}

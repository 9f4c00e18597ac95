package io.tierlog.server;

import io.tierlog.common.Config;
import io.tierlog.engine.TieredLog;
import io.tierlog.server.admin.AdminApis;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.fetch.FetchApis;
import io.tierlog.server.fetch.FetchSource;
import io.tierlog.server.fetch.FetchWaiters;
import io.tierlog.server.group.GroupApis;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.group.coordinator.OffsetStore;
import io.tierlog.server.meta.MetadataService;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.metadata.MetadataApis;
import io.tierlog.server.produce.ProduceApis;
import io.tierlog.server.storage.StorageApis;
import io.tierlog.server.txn.TxnApis;
import io.tierlog.server.txn.TxnOffsetSink;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import io.tierlog.server.txn.coordinator.TxnGroupCompleter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The list of served APIs, composed from each API area's entry point: adding a handler to an area
 * both routes and advertises it. Each area receives only the parts it uses; no handler sees {@link
 * Parts}. Stateless.
 *
 * <p>Version ranges are chosen for today's clients: kafka-clients 4.4 (up to the listed maxima),
 * librdkafka 2.0.2 (needs Produce >= 7 and Fetch >= 10 for ZSTD, FindCoordinator for LZ4) and
 * kafka-python 2.0.2 (Produce 7, Fetch 4, ListOffsets 1, Metadata 1). OffsetCommit/OffsetFetch stop
 * at v9 and TxnOffsetCommit at v5: later versions address topics by id only. Produce stops at v11
 * without a transaction coordinator and at v12 (TV2's implicit add) with one. KIP-848 consumer
 * groups are served (ConsumerGroupHeartbeat, ConsumerGroupDescribe). Transactions are served when
 * {@link Parts#transactions} is wired: then ApiVersions finalizes {@code transaction.version} and
 * FindCoordinator answers transactional ids.
 */
final class ApiHandlers {
    private ApiHandlers() {}

    /**
     * The parts of a running server that handlers are built from, at the composition root only.
     *
     * @param engine the storage of both tiers and the topic registry
     * @param blockingExecutor runs request work that may block (fsync-durable appends, topic
     *     creation), off the event loops
     */
    record Parts(
            Config config,
            MetadataService metadata,
            TieredLog engine,
            FetchSource fetchSource,
            FetchWaiters waiters,
            ProducerIdManager producerIds,
            GroupCoordinator groups,
            ConsumerGroupCoordinator consumerGroups,
            TransactionCoordinator transactions,
            Executor blockingExecutor) {}

    /**
     * The features ApiVersions advertises: {@code transaction.version} (supported 0-2, finalized at
     * the {@code transaction.version} option) when transactions are served, none otherwise (a
     * finalized level 2 makes kafka-clients 4.4 speak TV2 to a server that must then serve it).
     *
     * @param epoch the finalized features epoch: the server's start time in ms, so that a restart
     *     with another level is seen by clients (they act on a larger epoch only)
     */
    static ApiRegistry.Features features(Config config, boolean transactions, long epoch) {
        if (!transactions) {
            return ApiRegistry.Features.NONE;
        }
        short level = config.get(ServerOptions.TRANSACTION_VERSION).shortValue();
        return new ApiRegistry.Features(
                List.of(
                        new ApiRegistry.Feature(
                                "transaction.version", (short) 0, (short) 2, level)),
                epoch);
    }

    /** TxnOffsetCommit's group side: the group coordinator's pending transactional offsets. */
    private static TxnOffsetSink txnOffsets(GroupCoordinator groups) {
        return (group, pid, epoch, member, generation, instance, offsets) -> {
            java.util.Map<org.apache.kafka.common.TopicPartition, OffsetStore.Committed> c =
                    new java.util.LinkedHashMap<>();
            offsets.forEach(
                    (tp, o) ->
                            c.put(
                                    tp,
                                    new OffsetStore.Committed(
                                            o.offset(), o.leaderEpoch(), o.metadata())));
            return groups.txnCommitOffsets(group, pid, epoch, member, generation, instance, c);
        };
    }

    /**
     * The group side of a transaction's markers: {@code GroupCoordinator.completeTransaction}, on
     * the blocking executor (it writes the offsets journal on the calling thread).
     */
    static TxnGroupCompleter groupCompleter(GroupCoordinator groups, Executor blockingExecutor) {
        return (group, pid, epoch, commit) ->
                CompletableFuture.supplyAsync(
                                () -> groups.completeTransaction(group, pid, epoch, commit),
                                blockingExecutor)
                        .thenCompose(f -> f);
    }

    static List<ApiHandler> all(Parts p, Supplier<ApiRegistry> registry) {
        List<ApiHandler> all = new ArrayList<>();
        all.addAll(
                MetadataApis.handlers(
                        registry,
                        p.metadata(),
                        p.engine().topicRegistry(),
                        p.config().get(ServerOptions.AUTO_CREATE_TOPICS_ENABLE),
                        p.config().get(ServerOptions.NUM_PARTITIONS),
                        p.blockingExecutor(),
                        p.transactions() != null));
        if (p.transactions() == null) {
            all.addAll(ProduceApis.handlers(p.engine(), p.producerIds(), p.blockingExecutor()));
        } else {
            TransactionCoordinator txn = p.transactions();
            all.add(
                    ProduceApis.transactionalProduce(
                            p.engine(),
                            p.blockingExecutor(),
                            (id, pid, epoch, tps, add) ->
                                    TxnApis.verifyPartitions(txn, id, pid, epoch, tps, add)));
            all.addAll(
                    TxnApis.handlers(
                            txn,
                            txnOffsets(p.groups()),
                            p.engine(),
                            p.producerIds(),
                            p.blockingExecutor()));
        }
        all.addAll(
                FetchApis.handlers(
                        p.metadata(),
                        p.fetchSource(),
                        p.waiters(),
                        p.engine(),
                        p.blockingExecutor()));
        all.addAll(
                AdminApis.handlers(
                        p.config(),
                        p.metadata(),
                        p.engine().topicRegistry(),
                        p.blockingExecutor()));
        all.addAll(
                AdminApis.partitionProducerAndAclHandlers(
                        p.metadata(), p.engine(), p.blockingExecutor()));
        all.addAll(
                GroupApis.handlers(
                        p.groups(), p.consumerGroups(), p.metadata(), p.blockingExecutor()));
        all.addAll(StorageApis.handlers(p.engine(), p.blockingExecutor()));
        return List.copyOf(all);
    }
}

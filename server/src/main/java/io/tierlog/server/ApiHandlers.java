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
import io.tierlog.server.meta.MetadataService;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.metadata.MetadataApis;
import io.tierlog.server.produce.ProduceApis;
import io.tierlog.server.storage.StorageApis;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The list of served APIs, composed from each API area's entry point: adding a handler to an area
 * both routes and advertises it. Each area receives only the parts it uses; no handler sees {@link
 * Parts}. Stateless.
 *
 * <p>Version ranges are chosen for today's clients: kafka-clients 4.4 (up to the listed maxima),
 * librdkafka 2.0.2 (needs Produce >= 7 and Fetch >= 10 for ZSTD, FindCoordinator for LZ4) and
 * kafka-python 2.0.2 (Produce 7, Fetch 4, ListOffsets 1, Metadata 1). Produce stops at v11 and
 * OffsetCommit/OffsetFetch at v9: later versions address topics by id only. Transactions are not
 * served; KIP-848 consumer groups are (ConsumerGroupHeartbeat, ConsumerGroupDescribe).
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
            Executor blockingExecutor) {}

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
                        false));
        all.addAll(ProduceApis.handlers(p.engine(), p.producerIds(), p.blockingExecutor()));
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

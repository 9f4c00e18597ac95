package io.tierlog.server.metadata;

import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.meta.MetadataService;
import java.util.List;
import java.util.function.Supplier;

/**
 * The metadata area's handlers: ApiVersions, Metadata, FindCoordinator and DescribeCluster, the
 * APIs a client calls to learn what this server serves and where to send its requests. Stateless.
 */
public final class MetadataApis {
    private MetadataApis() {}

    /**
     * @param registry the served APIs (ApiVersions); a supplier because the registry is built from
     *     these very handlers
     * @param metadata cluster identity, advertised endpoint, topic lookup
     * @param topics where auto-created topics are created
     * @param autoCreate {@code auto.create.topics.enable}
     * @param defaultPartitions {@code num.partitions}, the partition count of auto-created topics
     * @param blockingExecutor where a Metadata request that may auto-create a topic runs (catalog
     *     write, partition folders), off the event loops
     * @param transactions true when a transaction coordinator serves transactional ids
     *     (FindCoordinator key type 1)
     */
    public static List<ApiHandler> handlers(
            Supplier<ApiRegistry> registry,
            MetadataService metadata,
            TopicRegistry topics,
            boolean autoCreate,
            int defaultPartitions,
            java.util.concurrent.Executor blockingExecutor,
            boolean transactions) {
        return List.of(
                new ApiVersionsHandler(registry),
                new MetadataHandler(
                        metadata, topics, autoCreate, defaultPartitions, blockingExecutor),
                new FindCoordinatorHandler(metadata, transactions),
                new DescribeClusterHandler(metadata));
    }
}

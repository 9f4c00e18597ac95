package io.tierlog.server.admin;

import io.tierlog.common.Config;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The admin area's handlers: CreateTopics, DeleteTopics, DescribeConfigs, AlterConfigs and
 * IncrementalAlterConfigs. Stateless.
 */
public final class AdminApis {
    private AdminApis() {}

    /**
     * @param config the server's settings ({@code num.partitions}, {@code delete.topic.enable}, and
     *     what DescribeConfigs reports for the broker)
     * @param metadata this server's node id (the broker resource of DescribeConfigs)
     * @param topics the engine's registry topics are created in and deleted from (both tiers)
     * @param blockingExecutor where topic creation and deletion run (many files, fsyncs)
     */
    public static List<ApiHandler> handlers(
            Config config,
            MetadataService metadata,
            TopicRegistry topics,
            Executor blockingExecutor) {
        return List.of(
                new CreateTopicsHandler(config, topics, blockingExecutor),
                new DeleteTopicsHandler(config, topics, blockingExecutor),
                new DescribeConfigsHandler(config, metadata, topics),
                new AlterConfigsHandler(new ConfigResources(metadata, topics), blockingExecutor),
                new IncrementalAlterConfigsHandler(
                        new ConfigResources(metadata, topics), blockingExecutor));
    }

    /**
     * CreatePartitions, DescribeProducers and the ACL APIs (answered {@code SECURITY_DISABLED}: no
     * authorizer exists).
     *
     * @param metadata this server's node id (the only broker a manual assignment may name)
     * @param engine the topic registry partitions are added to, and the producer states
     * @param blockingExecutor where partitions are added (catalog write, partition folders) and
     *     producer states read (under partition locks)
     */
    public static List<ApiHandler> partitionProducerAndAclHandlers(
            MetadataService metadata,
            io.tierlog.engine.TieredLog engine,
            Executor blockingExecutor) {
        List<ApiHandler> out = new java.util.ArrayList<>();
        out.add(new CreatePartitionsHandler(metadata, engine.topicRegistry(), blockingExecutor));
        out.add(new DescribeProducersHandler(engine, blockingExecutor));
        out.addAll(SecurityDisabledAclHandlers.handlers());
        return List.copyOf(out);
    }
}

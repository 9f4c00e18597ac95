package io.tierlog.server.group;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.server.ServerOptions;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.group.consumer.ConsumerAssignor;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.meta.MetadataService;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The consumer-group area's handlers: the classic protocol (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup), the KIP-848 protocol (ConsumerGroupHeartbeat, ConsumerGroupDescribe), OffsetCommit,
 * OffsetFetch, and the admin APIs ListGroups, DescribeGroups, DeleteGroups and OffsetDelete. They
 * translate requests into calls of the {@link GroupCoordinator} (classic groups and every group's
 * offsets) and the {@link ConsumerGroupCoordinator} (consumer groups) and their answers into
 * responses. A group id is either classic or consumer at a time. Stateless.
 */
public final class GroupApis {
    private GroupApis() {}

    /**
     * @param groups the coordinator of classic groups and of every group's committed offsets
     * @param consumerGroups the coordinator of consumer groups
     * @param metadata topic lookup (OffsetCommit refuses unknown partitions)
     * @param blockingExecutor where the fsyncs of OffsetCommit, DeleteGroups and OffsetDelete run
     */
    public static List<ApiHandler> handlers(
            GroupCoordinator groups,
            ConsumerGroupCoordinator consumerGroups,
            MetadataService metadata,
            Executor blockingExecutor) {
        return List.of(
                new JoinGroupHandler(groups, consumerGroups),
                new SyncGroupHandler(groups),
                new HeartbeatHandler(groups),
                new LeaveGroupHandler(groups),
                new ConsumerGroupHeartbeatHandler(consumerGroups, metadata),
                new ConsumerGroupDescribeHandler(consumerGroups, metadata),
                new OffsetCommitHandler(groups, consumerGroups, metadata, blockingExecutor),
                new OffsetFetchHandler(groups, consumerGroups),
                new ListGroupsHandler(groups, consumerGroups),
                new DescribeGroupsHandler(groups, consumerGroups),
                new DeleteGroupsHandler(groups, consumerGroups, blockingExecutor),
                new OffsetDeleteHandler(groups, metadata, blockingExecutor));
    }

    /**
     * The consumer-group coordinator configured by the {@code group.consumer.*} options, seeing the
     * topics of {@code metadata}, persisting its groups under {@code metaDir}; a classic group with
     * members keeps its id from it, and {@code classic}'s transactional offset commits check its
     * members.
     */
    public static ConsumerGroupCoordinator consumerGroups(
            java.nio.file.Path metaDir,
            Config config,
            GroupCoordinator classic,
            MetadataService metadata,
            ScheduledExecutorService timer,
            Time time)
            throws java.io.IOException {
        List<ConsumerAssignor> assignors = new ArrayList<>();
        for (String name :
                ServerOptions.assignorNames(config.get(ServerOptions.GROUP_CONSUMER_ASSIGNORS))) {
            assignors.add(ConsumerGroupCoordinator.knownAssignors().get(name));
        }
        ConsumerGroupCoordinator consumer =
                ConsumerGroupCoordinator.open(
                        metaDir,
                        new ConsumerGroupCoordinator.Settings(
                                Math.toIntExact(
                                        config.get(ServerOptions.GROUP_CONSUMER_SESSION_TIMEOUT_MS)
                                                .toMillis()),
                                Math.toIntExact(
                                        config.get(
                                                        ServerOptions
                                                                .GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS)
                                                .toMillis()),
                                assignors,
                                config.get(ServerOptions.GROUP_CONSUMER_MAX_SIZE)),
                        new ConsumerGroupCoordinator.Topics() {
                            @Override
                            public OptionalInt partitions(String topic) {
                                return metadata.topic(topic)
                                        .map(t -> OptionalInt.of(t.partitions()))
                                        .orElse(OptionalInt.empty());
                            }

                            @Override
                            public Collection<String> names() {
                                return metadata.topics().stream().map(t -> t.name()).toList();
                            }
                        },
                        id ->
                                classic.describeGroup(id)
                                        .map(d -> !d.members().isEmpty())
                                        .orElse(false),
                        timer,
                        time);
        // TxnOffsetCommit of a consumer group checks member epochs as OffsetCommit does.
        classic.useConsumerGroups(
                (groupId, memberId, epoch) ->
                        consumer.checkOffsetAccess(groupId, memberId, epoch, true));
        return consumer;
    }
}

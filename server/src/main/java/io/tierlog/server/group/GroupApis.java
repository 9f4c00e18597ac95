package io.tierlog.server.group;

import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.meta.MetadataService;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The consumer-group area's handlers (classic protocol): JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup, OffsetCommit, OffsetFetch, and the admin APIs ListGroups, DescribeGroups,
 * DeleteGroups and OffsetDelete. They translate requests into calls of the {@link GroupCoordinator}
 * and its answers into responses. Stateless.
 */
public final class GroupApis {
    private GroupApis() {}

    /**
     * @param groups the coordinator of every group
     * @param metadata topic lookup (OffsetCommit refuses unknown partitions)
     * @param blockingExecutor where the fsyncs of OffsetCommit, DeleteGroups and OffsetDelete run
     */
    public static List<ApiHandler> handlers(
            GroupCoordinator groups, MetadataService metadata, Executor blockingExecutor) {
        return List.of(
                new JoinGroupHandler(groups),
                new SyncGroupHandler(groups),
                new HeartbeatHandler(groups),
                new LeaveGroupHandler(groups),
                new OffsetCommitHandler(groups, metadata, blockingExecutor),
                new OffsetFetchHandler(groups),
                new ListGroupsHandler(groups),
                new DescribeGroupsHandler(groups),
                new DeleteGroupsHandler(groups, blockingExecutor),
                new OffsetDeleteHandler(groups, metadata, blockingExecutor));
    }
}

package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteGroups (v0-v3): deletes each Empty group and its committed offsets (durably, off the event
 * loop); {@code NON_EMPTY_GROUP} while it has members, {@code GROUP_ID_NOT_FOUND} if unknown.
 * Thread-safe.
 */
final class DeleteGroupsHandler extends SyncApiHandler<DeleteGroupsRequestData> {
    private final GroupCoordinator groups;
    private final ConsumerGroupCoordinator consumerGroups;

    DeleteGroupsHandler(
            GroupCoordinator groups,
            ConsumerGroupCoordinator consumerGroups,
            Executor blockingExecutor) {
        super(ApiKeys.DELETE_GROUPS, 3, DeleteGroupsRequestData.class, blockingExecutor);
        this.groups = groups;
        this.consumerGroups = consumerGroups;
    }

    @Override
    protected boolean mayBlock(DeleteGroupsRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(RequestContext context, DeleteGroupsRequestData r, short version)
            throws IOException {
        DeleteGroupsResponseData out = new DeleteGroupsResponseData();
        for (String id : r.groupsNames()) {
            if (out.results().find(id) != null) {
                continue; // a group named twice is answered once (the results are keyed by id)
            }
            Optional<Errors> consumer = consumerGroups.delete(id);
            Errors e = consumer.orElse(Errors.NONE);
            if (e == Errors.NONE) {
                e = groups.deleteGroup(id);
                if (consumer.isPresent() && e == Errors.GROUP_ID_NOT_FOUND) {
                    e = Errors.NONE; // an empty consumer group without offsets
                }
            }
            out.results()
                    .add(
                            new DeleteGroupsResponseData.DeletableGroupResult()
                                    .setGroupId(id)
                                    .setErrorCode(e.code())
                                    .setErrorMessage(e == Errors.NONE ? null : e.message()));
        }
        return out;
    }
}

package io.tierlog.server.group;

import io.tierlog.server.dispatch.ApiHandlerBase;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * SyncGroup (v0-v5; a static member names its group.instance.id from v3): the leader's request
 * carries every member's assignment; followers wait for it. See {@link
 * io.tierlog.server.group.coordinator.GroupCoordinator}. Thread-safe.
 */
final class SyncGroupHandler extends ApiHandlerBase {
    private final GroupCoordinator groups;

    SyncGroupHandler(GroupCoordinator groups) {
        super(ApiKeys.SYNC_GROUP, 5);
        this.groups = groups;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
        SyncGroupRequestData r = (SyncGroupRequestData) message;
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestData.SyncGroupRequestAssignment a : r.assignments()) {
            assignments.put(a.memberId(), a.assignment());
        }
        return groups.sync(
                        r.groupId(),
                        r.generationId(),
                        r.memberId(),
                        context.apiVersion() >= 3 ? r.groupInstanceId() : null,
                        assignments)
                .thenApply(
                        s ->
                                new SyncGroupResponseData()
                                        .setErrorCode(s.error().code())
                                        .setProtocolType(s.protocolType())
                                        .setProtocolName(s.protocolName())
                                        .setAssignment(s.assignment()));
    }
}

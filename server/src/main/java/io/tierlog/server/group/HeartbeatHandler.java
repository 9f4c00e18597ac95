package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Heartbeat of a group member (v0-v4; a static member names its group.instance.id from v3): keeps
 * its session, tells it when to rejoin. Thread-safe.
 */
final class HeartbeatHandler extends SyncApiHandler<HeartbeatRequestData> {
    private final GroupCoordinator groups;

    HeartbeatHandler(GroupCoordinator groups) {
        super(ApiKeys.HEARTBEAT, 4, HeartbeatRequestData.class);
        this.groups = groups;
    }

    @Override
    protected ApiMessage handle(RequestContext context, HeartbeatRequestData r, short version) {
        return new HeartbeatResponseData()
                .setErrorCode(
                        groups.heartbeat(
                                        r.groupId(),
                                        r.generationId(),
                                        r.memberId(),
                                        version >= 3 ? r.groupInstanceId() : null)
                                .code());
    }
}

package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** LeaveGroup: one member (v0-v2) or a batch (v3+) leaves; the rest rebalance. Thread-safe. */
final class LeaveGroupHandler extends SyncApiHandler<LeaveGroupRequestData> {
    private final GroupCoordinator groups;

    LeaveGroupHandler(GroupCoordinator groups) {
        super(ApiKeys.LEAVE_GROUP, 5, LeaveGroupRequestData.class);
        this.groups = groups;
    }

    @Override
    protected ApiMessage handle(RequestContext context, LeaveGroupRequestData r, short version) {
        LeaveGroupResponseData out = new LeaveGroupResponseData();
        if (version < 3) {
            return out.setErrorCode(groups.leave(r.groupId(), r.memberId()).code());
        }
        for (LeaveGroupRequestData.MemberIdentity m : r.members()) {
            Errors e = groups.leave(r.groupId(), m.memberId());
            out.members()
                    .add(
                            new LeaveGroupResponseData.MemberResponse()
                                    .setMemberId(m.memberId())
                                    .setGroupInstanceId(m.groupInstanceId())
                                    .setErrorCode(e.code()));
        }
        return out;
    }
}

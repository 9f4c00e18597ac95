package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * LeaveGroup: one member (v0-v2) or a batch (v3+, each by member id or, with member id "", by
 * group.instance.id as AdminClient's removeMembersFromConsumerGroup sends it) leaves; the rest
 * rebalance. An unknown group answers {@code UNKNOWN_MEMBER_ID} for the whole request, as Kafka.
 * Thread-safe.
 */
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
        List<GroupCoordinator.Leaving> leaving = new ArrayList<>();
        for (LeaveGroupRequestData.MemberIdentity m : r.members()) {
            leaving.add(new GroupCoordinator.Leaving(m.memberId(), m.groupInstanceId()));
        }
        GroupCoordinator.LeaveResult result = groups.leave(r.groupId(), leaving);
        if (result.error() != Errors.NONE) {
            return out.setErrorCode(result.error().code());
        }
        for (int i = 0; i < leaving.size(); i++) {
            out.members()
                    .add(
                            new LeaveGroupResponseData.MemberResponse()
                                    .setMemberId(leaving.get(i).memberId())
                                    .setGroupInstanceId(leaving.get(i).groupInstanceId())
                                    .setErrorCode(result.members().get(i).code()));
        }
        return out;
    }
}

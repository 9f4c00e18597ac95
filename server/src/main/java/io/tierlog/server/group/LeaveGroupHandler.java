package io.tierlog.server.group;

import io.tierlog.server.Broker;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** LeaveGroup: one member (v0-v2) or a batch (v3+) leaves; the rest rebalance. Thread-safe. */
public final class LeaveGroupHandler extends SyncApiHandler<LeaveGroupRequestData> {
    public LeaveGroupHandler(Broker broker) {
        super(broker, LeaveGroupRequestData.class);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LEAVE_GROUP;
    }

    @Override
    public short maxVersion() {
        return 5;
    }

    @Override
    ApiMessage handle(RequestContext context, LeaveGroupRequestData r, short version) {
        LeaveGroupResponseData out = new LeaveGroupResponseData();
        if (version < 3) {
            return out.setErrorCode(broker.groups().leave(r.groupId(), r.memberId()).code());
        }
        for (LeaveGroupRequestData.MemberIdentity m : r.members()) {
            Errors e = broker.groups().leave(r.groupId(), m.memberId());
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

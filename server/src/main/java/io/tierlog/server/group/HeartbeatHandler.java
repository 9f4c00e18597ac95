package io.tierlog.server.group;

import io.tierlog.server.Broker;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/** Heartbeat of a group member: keeps its session, tells it when to rejoin. Thread-safe. */
public final class HeartbeatHandler extends SyncApiHandler<HeartbeatRequestData> {
    public HeartbeatHandler(Broker broker) {
        super(broker, HeartbeatRequestData.class);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.HEARTBEAT;
    }

    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    ApiMessage handle(RequestContext context, HeartbeatRequestData r, short version) {
        return new HeartbeatResponseData()
                .setErrorCode(
                        broker.groups()
                                .heartbeat(r.groupId(), r.generationId(), r.memberId())
                                .code());
    }
}

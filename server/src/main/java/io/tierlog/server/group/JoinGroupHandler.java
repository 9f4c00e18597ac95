package io.tierlog.server.group;

import io.tierlog.server.dispatch.ApiHandlerBase;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * JoinGroup (classic protocol, v0-v9): answered when the group's rebalance completes (see {@link
 * GroupCoordinator}). From v4 a new dynamic member is first given its id with {@code
 * MEMBER_ID_REQUIRED} (KIP-394); from v5 a member may be static ({@code group.instance.id},
 * KIP-345); from v9 a static leader that rejoins may be told to skip the assignment. Thread-safe.
 */
final class JoinGroupHandler extends ApiHandlerBase {
    private final GroupCoordinator groups;
    private final ConsumerGroupCoordinator consumerGroups;

    JoinGroupHandler(GroupCoordinator groups, ConsumerGroupCoordinator consumerGroups) {
        super(ApiKeys.JOIN_GROUP, 9);
        this.groups = groups;
        this.consumerGroups = consumerGroups;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
        JoinGroupRequestData r = (JoinGroupRequestData) message;
        if (!consumerGroups.yieldToClassic(r.groupId())) {
            // A consumer group with members: classic members may not join it (no migration).
            return java.util.concurrent.CompletableFuture.completedFuture(
                    new JoinGroupResponseData()
                            .setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code())
                            .setMemberId(r.memberId())
                            .setProtocolName(context.apiVersion() < 7 ? "" : null)
                            .setGenerationId(-1));
        }
        List<GroupCoordinator.Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequestData.JoinGroupRequestProtocol p : r.protocols()) {
            protocols.add(new GroupCoordinator.Protocol(p.name(), p.metadata()));
        }
        int rebalanceTimeout =
                context.apiVersion() >= 1 ? r.rebalanceTimeoutMs() : r.sessionTimeoutMs();
        short v = context.apiVersion();
        return groups.join(
                        new GroupCoordinator.JoinRequest(
                                r.groupId(),
                                r.memberId(),
                                v >= 5 ? r.groupInstanceId() : null,
                                context.clientId(),
                                clientHost(context),
                                r.sessionTimeoutMs(),
                                rebalanceTimeout,
                                r.protocolType(),
                                protocols,
                                v >= 4,
                                v >= 9))
                .thenApply(
                        j -> {
                            JoinGroupResponseData out =
                                    new JoinGroupResponseData()
                                            .setErrorCode(j.error().code())
                                            .setGenerationId(j.generation())
                                            .setProtocolType(j.protocolType())
                                            // Not nullable before v7: errors carry "".
                                            .setProtocolName(
                                                    j.protocolName() == null
                                                                    && context.apiVersion() < 7
                                                            ? ""
                                                            : j.protocolName())
                                            .setLeader(j.leader())
                                            .setMemberId(j.memberId())
                                            .setSkipAssignment(v >= 9 && j.skipAssignment());
                            for (GroupCoordinator.MemberMetadata m : j.members()) {
                                out.members()
                                        .add(
                                                new JoinGroupResponseData.JoinGroupResponseMember()
                                                        .setMemberId(m.memberId())
                                                        .setGroupInstanceId(
                                                                v >= 5 ? m.groupInstanceId() : null)
                                                        .setMetadata(m.metadata()));
                            }
                            return out;
                        });
    }

    /** The peer as Kafka shows it in DescribeGroups: {@code InetAddress.toString()}, "/<ip>". */
    static String clientHost(RequestContext context) {
        return context.peer() instanceof java.net.InetSocketAddress a && a.getAddress() != null
                ? "/" + a.getAddress().getHostAddress()
                : String.valueOf(context.peer());
    }
}

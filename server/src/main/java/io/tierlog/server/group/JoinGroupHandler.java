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
 * JoinGroup (classic protocol): answered when the group's rebalance completes (see {@link
 * GroupCoordinator}); a new member gets its id in the response directly. Static membership ({@code
 * group.instance.id}) is refused with {@code UNSUPPORTED_VERSION}. Thread-safe.
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
        if (r.groupInstanceId() != null) {
            return java.util.concurrent.CompletableFuture.completedFuture(
                    new JoinGroupResponseData()
                            .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                            .setMemberId(r.memberId())
                            .setGenerationId(-1));
        }
        List<GroupCoordinator.Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequestData.JoinGroupRequestProtocol p : r.protocols()) {
            protocols.add(new GroupCoordinator.Protocol(p.name(), p.metadata()));
        }
        int rebalanceTimeout =
                context.apiVersion() >= 1 ? r.rebalanceTimeoutMs() : r.sessionTimeoutMs();
        return groups.join(
                        r.groupId(),
                        r.memberId(),
                        context.clientId(),
                        clientHost(context),
                        r.sessionTimeoutMs(),
                        rebalanceTimeout,
                        r.protocolType(),
                        protocols)
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
                                            .setMemberId(j.memberId());
                            for (GroupCoordinator.MemberMetadata m : j.members()) {
                                out.members()
                                        .add(
                                                new JoinGroupResponseData.JoinGroupResponseMember()
                                                        .setMemberId(m.memberId())
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

package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import java.util.Optional;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeGroups (v0-v6): state, protocol and members of each group. An unknown group is answered
 * as Kafka does: state Dead, and from v6 also {@code GROUP_ID_NOT_FOUND}; an empty group id {@code
 * INVALID_GROUP_ID}. Thread-safe.
 */
final class DescribeGroupsHandler extends SyncApiHandler<DescribeGroupsRequestData> {
    private final GroupCoordinator groups;
    private final ConsumerGroupCoordinator consumerGroups;

    DescribeGroupsHandler(GroupCoordinator groups, ConsumerGroupCoordinator consumerGroups) {
        super(ApiKeys.DESCRIBE_GROUPS, 6, DescribeGroupsRequestData.class);
        this.groups = groups;
        this.consumerGroups = consumerGroups;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DescribeGroupsRequestData r, short version) {
        DescribeGroupsResponseData out = new DescribeGroupsResponseData();
        for (String id : r.groups()) {
            DescribeGroupsResponseData.DescribedGroup d =
                    new DescribeGroupsResponseData.DescribedGroup()
                            .setGroupId(id)
                            .setGroupState("")
                            .setProtocolType("")
                            .setProtocolData("");
            Optional<GroupCoordinator.GroupDescription> g =
                    id == null || id.isEmpty() ? null : groups.describeGroup(id);
            if (g == null) {
                d.setErrorCode(Errors.INVALID_GROUP_ID.code());
            } else if (consumerGroups.isConsumerGroup(id)) {
                // Kafka answers a consumer group as a group that is not classic.
                d.setGroupState(GroupCoordinator.DEAD);
                if (version >= 6) {
                    d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + id + " is not a classic group.");
                }
            } else if (g.isEmpty()) {
                d.setGroupState(GroupCoordinator.DEAD);
                if (version >= 6) {
                    d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + id + " not found.");
                }
            } else {
                GroupCoordinator.GroupDescription desc = g.get();
                d.setGroupState(desc.state())
                        .setProtocolType(desc.protocolType())
                        .setProtocolData(desc.protocolName());
                for (GroupCoordinator.MemberDescription m : desc.members()) {
                    d.members()
                            .add(
                                    new DescribeGroupsResponseData.DescribedGroupMember()
                                            .setMemberId(m.memberId())
                                            .setGroupInstanceId(
                                                    version >= 4 ? m.groupInstanceId() : null)
                                            .setClientId(m.clientId())
                                            .setClientHost(m.clientHost())
                                            .setMemberMetadata(m.metadata())
                                            .setMemberAssignment(m.assignment()));
                }
            }
            out.groups().add(d);
        }
        return out;
    }
}

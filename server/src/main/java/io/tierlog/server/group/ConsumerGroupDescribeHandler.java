package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.Assignment;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.consumer.ConsumerGroupMessages;
import io.tierlog.server.meta.MetadataService;
import java.util.ArrayList;
import java.util.Optional;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupDescribe (v0-v1): epochs, assignor and members (current and target assignment) of
 * consumer groups. A group id that is not a consumer group (unknown, or classic) answers {@code
 * GROUP_ID_NOT_FOUND}, on which the admin client falls back to DescribeGroups, as with Kafka.
 * Members are always of the consumer protocol (member type 1). Thread-safe.
 */
final class ConsumerGroupDescribeHandler extends SyncApiHandler<ConsumerGroupDescribeRequestData> {
    private static final byte CONSUMER_MEMBER_TYPE = 1;
    private final ConsumerGroupCoordinator groups;
    private final MetadataService metadata;

    ConsumerGroupDescribeHandler(ConsumerGroupCoordinator groups, MetadataService metadata) {
        super(ApiKeys.CONSUMER_GROUP_DESCRIBE, 1, ConsumerGroupDescribeRequestData.class);
        this.groups = groups;
        this.metadata = metadata;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, ConsumerGroupDescribeRequestData r, short version) {
        ConsumerGroupDescribeResponseData out = new ConsumerGroupDescribeResponseData();
        for (String id : r.groupIds()) {
            ConsumerGroupDescribeResponseData.DescribedGroup d =
                    new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(id);
            Optional<ConsumerGroupMessages.GroupDescription> g = groups.describe(id);
            if (id == null || id.isEmpty()) {
                d.setErrorCode(Errors.INVALID_GROUP_ID.code());
            } else if (g.isEmpty()) {
                d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + id + " is not a consumer group.");
            } else {
                ConsumerGroupMessages.GroupDescription desc = g.get();
                d.setGroupState(desc.state())
                        .setGroupEpoch(desc.groupEpoch())
                        .setAssignmentEpoch(desc.assignmentEpoch())
                        .setAssignorName(desc.assignorName());
                for (ConsumerGroupMessages.MemberDescription m : desc.members()) {
                    d.members()
                            .add(
                                    new ConsumerGroupDescribeResponseData.Member()
                                            .setMemberId(m.memberId())
                                            .setInstanceId(m.instanceId())
                                            .setRackId(m.rackId())
                                            .setMemberEpoch(m.memberEpoch())
                                            .setClientId(m.clientId())
                                            .setClientHost(m.clientHost())
                                            .setSubscribedTopicNames(
                                                    new ArrayList<>(m.topicNames()))
                                            .setSubscribedTopicRegex(m.topicRegex())
                                            .setAssignment(assignment(m.assigned()))
                                            .setTargetAssignment(assignment(m.target()))
                                            .setMemberType(CONSUMER_MEMBER_TYPE));
                }
            }
            out.groups().add(d);
        }
        return out;
    }

    private ConsumerGroupDescribeResponseData.Assignment assignment(Assignment a) {
        ConsumerGroupDescribeResponseData.Assignment out =
                new ConsumerGroupDescribeResponseData.Assignment();
        a.partitions()
                .forEach(
                        (topic, ps) ->
                                metadata.topic(topic)
                                        .ifPresent(
                                                t ->
                                                        out.topicPartitions()
                                                                .add(
                                                                        new ConsumerGroupDescribeResponseData
                                                                                        .TopicPartitions()
                                                                                .setTopicId(t.id())
                                                                                .setTopicName(topic)
                                                                                .setPartitions(
                                                                                        new ArrayList<>(
                                                                                                ps)))));
        return out;
    }
}

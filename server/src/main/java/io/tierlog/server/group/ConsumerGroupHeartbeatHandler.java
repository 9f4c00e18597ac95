package io.tierlog.server.group;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.Assignment;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.consumer.ConsumerGroupMessages;
import io.tierlog.server.meta.MetadataService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ConsumerGroupHeartbeat (v0-v1, KIP-848): translates topic ids to names for the {@link
 * ConsumerGroupCoordinator} and its assignment back to ids. Owned partitions of a topic id the
 * server does not know are left out (the topic is gone). Thread-safe.
 */
final class ConsumerGroupHeartbeatHandler
        extends SyncApiHandler<ConsumerGroupHeartbeatRequestData> {
    private final ConsumerGroupCoordinator groups;
    private final MetadataService metadata;

    ConsumerGroupHeartbeatHandler(ConsumerGroupCoordinator groups, MetadataService metadata) {
        super(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 1, ConsumerGroupHeartbeatRequestData.class);
        this.groups = groups;
        this.metadata = metadata;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, ConsumerGroupHeartbeatRequestData r, short version) {
        Assignment owned = null;
        if (r.topicPartitions() != null) {
            Map<String, List<Integer>> byName = new TreeMap<>();
            for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : r.topicPartitions()) {
                metadata.topic(tp.topicId())
                        .ifPresent(
                                t ->
                                        byName.computeIfAbsent(t.name(), k -> new ArrayList<>())
                                                .addAll(tp.partitions()));
            }
            owned = Assignment.of(byName);
        }
        ConsumerGroupMessages.HeartbeatResult res =
                groups.heartbeat(
                        new ConsumerGroupMessages.HeartbeatRequest(
                                r.groupId(),
                                r.memberId(),
                                r.memberEpoch(),
                                r.instanceId(),
                                r.rackId(),
                                r.rebalanceTimeoutMs(),
                                r.subscribedTopicNames(),
                                version >= 1 ? r.subscribedTopicRegex() : null,
                                r.serverAssignor(),
                                owned,
                                context.clientId(),
                                JoinGroupHandler.clientHost(context)));
        ConsumerGroupHeartbeatResponseData out =
                new ConsumerGroupHeartbeatResponseData()
                        .setErrorCode(res.error().code())
                        .setErrorMessage(res.errorMessage())
                        .setMemberId(res.memberId())
                        .setMemberEpoch(res.memberEpoch())
                        .setHeartbeatIntervalMs(res.heartbeatIntervalMs());
        if (res.assignment() != null) {
            ConsumerGroupHeartbeatResponseData.Assignment a =
                    new ConsumerGroupHeartbeatResponseData.Assignment();
            res.assignment()
                    .partitions()
                    .forEach(
                            (topic, ps) -> {
                                Optional<TopicInfo> t = metadata.topic(topic);
                                t.ifPresent(
                                        info ->
                                                a.topicPartitions()
                                                        .add(
                                                                new ConsumerGroupHeartbeatResponseData
                                                                                .TopicPartitions()
                                                                        .setTopicId(info.id())
                                                                        .setPartitions(
                                                                                new ArrayList<>(
                                                                                        ps))));
                            });
            out.setAssignment(a);
        }
        return out;
    }
}

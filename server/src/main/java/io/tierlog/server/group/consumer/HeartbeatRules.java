package io.tierlog.server.group.consumer;

import io.tierlog.server.group.consumer.ConsumerGroupMessages.HeartbeatRequest;
import java.util.List;
import java.util.TreeSet;

/**
 * Kafka's checks of a ConsumerGroupHeartbeat: request validation, member-epoch fencing, and
 * applying the fields a heartbeat changes. Stateless; the member passed in is guarded by its
 * group's monitor, held by the caller.
 */
final class HeartbeatRules {
    private HeartbeatRules() {}

    /** Kafka's request checks; the message, or null when valid. */
    static String invalid(HeartbeatRequest r) {
        if (r.groupId() == null || r.groupId().isEmpty()) {
            return "GroupId can't be empty.";
        }
        if (r.instanceId() != null && r.instanceId().isEmpty()) {
            return "InstanceId can't be empty.";
        }
        if (r.rackId() != null && r.rackId().isEmpty()) {
            return "RackId can't be empty.";
        }
        if (r.memberEpoch() == 0) {
            if (r.rebalanceTimeoutMs() == -1) {
                return "RebalanceTimeoutMs must be provided in first request.";
            }
            if (r.owned() != null && !r.owned().isEmpty()) {
                return "TopicPartitions must be empty when (re-)joining.";
            }
            if (r.topicNames() == null && r.topicRegex() == null) {
                return "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.";
            }
        } else if (r.memberEpoch() < ConsumerGroupCoordinator.STATIC_LEAVE_EPOCH) {
            return "MemberEpoch is invalid.";
        } else if (r.memberId() == null || r.memberId().isEmpty()) {
            return "MemberId can't be empty.";
        }
        if (r.topicRegex() != null && r.topicRegex().isEmpty()) {
            return "SubscribedTopicRegex must not be empty.";
        }
        return null;
    }

    /**
     * Why a heartbeat at {@code epoch} is fenced, or null: an epoch ahead of the member's, or
     * behind it unless it is the previous epoch and the member owns no more than it is assigned
     * (its last response was lost).
     */
    static String fencedBy(ConsumerGroupMember m, int epoch, Assignment owned) {
        if (epoch > m.epoch) {
            return "The consumer group member has a greater epoch ("
                    + epoch
                    + ") than the one known by the group coordinator ("
                    + m.epoch
                    + "). The member must abandon all its partitions and rejoin.";
        }
        if (epoch < m.epoch
                && (epoch != m.previousEpoch
                        || owned == null
                        || !m.assigned.union(owned).equals(m.assigned))) {
            return "The consumer group member has a smaller member epoch ("
                    + epoch
                    + ") than the one known by the group coordinator ("
                    + m.epoch
                    + "). The member must abandon all its partitions and rejoin.";
        }
        return null;
    }

    /** Applies the heartbeat's changed fields; true if the subscription or assignor changed. */
    static boolean update(ConsumerGroupMember m, HeartbeatRequest r) {
        boolean changed = false;
        if (r.clientId() != null) {
            m.clientId = r.clientId();
        }
        if (r.clientHost() != null) {
            m.clientHost = r.clientHost();
        }
        if (r.instanceId() != null) {
            m.instanceId = r.instanceId();
        }
        if (r.rackId() != null) {
            m.rackId = r.rackId();
        }
        if (r.rebalanceTimeoutMs() != -1) {
            m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        }
        if (r.topicNames() != null
                && !new TreeSet<>(r.topicNames()).equals(new TreeSet<>(m.topicNames))) {
            m.topicNames = List.copyOf(new TreeSet<>(r.topicNames()));
            changed = true;
        }
        if (r.topicRegex() != null && !r.topicRegex().equals(m.topicRegex)) {
            m.topicRegex = r.topicRegex();
            changed = true;
        }
        if (r.serverAssignor() != null && !r.serverAssignor().equals(m.serverAssignor)) {
            m.serverAssignor = r.serverAssignor();
            changed = true;
        }
        return changed;
    }
}

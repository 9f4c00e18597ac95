package io.tierlog.server.group.consumer;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the {@link ConsumerGroupCoordinator} is asked and answers: heartbeats and the group
 * descriptions of ConsumerGroupDescribe and ListGroups, without wire types. Immutable records,
 * thread-safe.
 */
public final class ConsumerGroupMessages {
    private ConsumerGroupMessages() {}

    /**
     * A heartbeat. Nullable fields are null when unchanged since the previous heartbeat, as on the
     * wire; {@code owned} is by topic name (partitions of unknown topic ids left out).
     */
    public record HeartbeatRequest(
            String groupId,
            String memberId,
            int memberEpoch,
            String instanceId,
            String rackId,
            int rebalanceTimeoutMs,
            List<String> topicNames,
            String topicRegex,
            String serverAssignor,
            Assignment owned,
            String clientId,
            String clientHost) {}

    /** A heartbeat's answer; {@code assignment} null when unchanged. */
    public record HeartbeatResult(
            Errors error,
            String errorMessage,
            String memberId,
            int memberEpoch,
            int heartbeatIntervalMs,
            Assignment assignment) {
        public static HeartbeatResult error(Errors e, String message, String memberId, int epoch) {
            return new HeartbeatResult(e, message, memberId, epoch, 0, null);
        }
    }

    /** A member as ConsumerGroupDescribe shows it. */
    public record MemberDescription(
            String memberId,
            String instanceId,
            String rackId,
            int memberEpoch,
            String clientId,
            String clientHost,
            List<String> topicNames,
            String topicRegex,
            Assignment assigned,
            Assignment target) {}

    /** A group as ConsumerGroupDescribe shows it. */
    public record GroupDescription(
            String groupId,
            String state,
            int groupEpoch,
            int assignmentEpoch,
            String assignorName,
            List<MemberDescription> members) {}

    /** A group as ListGroups shows it (Kafka's state name). */
    public record GroupListing(String groupId, String state) {}
}

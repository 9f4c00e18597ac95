package io.tierlog.server.group.consumer;

import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * A member of a consumer group as the coordinator keeps it. Not thread-safe: guarded by its group's
 * monitor.
 */
final class ConsumerGroupMember {
    final String id;
    String instanceId;
    String rackId;
    String clientId = "";
    String clientHost = "";
    int rebalanceTimeoutMs;
    List<String> topicNames = List.of();
    String topicRegex;
    String serverAssignor;
    int epoch;
    int previousEpoch = -1;
    MemberState state = MemberState.STABLE;
    Assignment assigned = Assignment.EMPTY;
    Assignment pendingRevocation = Assignment.EMPTY;
    long lastSeenMs;
    ScheduledFuture<?> session;
    ScheduledFuture<?> revocation;

    ConsumerGroupMember(String id) {
        this.id = id;
    }

    /** Everything it owns: what it is assigned and what it has not revoked yet. */
    Assignment owned() {
        return assigned.union(pendingRevocation);
    }

    void cancelTimers() {
        if (session != null) {
            session.cancel(false);
        }
        if (revocation != null) {
            revocation.cancel(false);
        }
    }
}

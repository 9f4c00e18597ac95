package io.tierlog.server.group.consumer;

import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-848 static membership ({@code group.instance.id}), as Kafka does it: a static member that
 * leaves with epoch -2 stays in the group at epoch -2 keeping its partitions (nobody else gets
 * them, the group epoch does not move) until its session timeout; a join (epoch 0) with its
 * instance id takes its place under the joining member id, with its epoch and partitions. Called
 * under the group's monitor; stateless, so thread-safe.
 */
final class StaticMembers {
    private static final Logger LOG = LoggerFactory.getLogger(StaticMembers.class);

    private StaticMembers() {}

    /** A static member leaves with epoch -2: it keeps its assignment, gives up what it revokes. */
    static void leave(ConsumerGroup g, ConsumerGroupMember m) {
        g.release(m);
        if (m.revocation != null) {
            m.revocation.cancel(false);
            m.revocation = null;
        }
        m.pendingRevocation = Assignment.EMPTY;
        m.state = MemberState.STABLE;
        // The epoch it gets back when it rejoins.
        m.previousEpoch = m.epoch;
        m.epoch = ConsumerGroupCoordinator.STATIC_LEAVE_EPOCH;
        g.acquire(m);
        LOG.info(
                "Static member {} (instance {}) left consumer group {}; its partitions are kept"
                        + " for its session timeout",
                m.id,
                m.instanceId,
                g.id);
    }

    /**
     * The member that left with epoch -2 ({@code old}) is replaced by the joining member {@code
     * newId} (a new id if empty), which gets its epoch, partitions and target assignment.
     */
    static ConsumerGroupMember replace(ConsumerGroup g, ConsumerGroupMember old, String newId) {
        String id = newId == null || newId.isEmpty() ? UUID.randomUUID().toString() : newId;
        g.release(old);
        old.cancelTimers();
        g.members.remove(old.id);
        Assignment target = g.target.remove(old.id);
        ConsumerGroupMember m = new ConsumerGroupMember(id);
        m.instanceId = old.instanceId;
        m.rackId = old.rackId;
        m.clientId = old.clientId;
        m.clientHost = old.clientHost;
        m.rebalanceTimeoutMs = old.rebalanceTimeoutMs;
        m.topicNames = old.topicNames;
        m.topicRegex = old.topicRegex;
        m.serverAssignor = old.serverAssignor;
        m.epoch = old.previousEpoch;
        m.assigned = old.assigned;
        g.members.put(id, m);
        if (target != null) {
            g.target.put(id, target);
        }
        g.acquire(m);
        LOG.info(
                "Static member {} (instance {}) of consumer group {} rejoined as {} at epoch {}"
                        + " with {}",
                old.id,
                m.instanceId,
                g.id,
                id,
                m.epoch,
                m.assigned);
        return m;
    }
}

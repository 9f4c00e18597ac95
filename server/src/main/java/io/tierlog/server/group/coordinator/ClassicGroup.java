package io.tierlog.server.group.coordinator;

import io.tierlog.server.group.coordinator.GroupCoordinator.JoinResult;
import io.tierlog.server.group.coordinator.GroupCoordinator.Protocol;
import io.tierlog.server.group.coordinator.GroupCoordinator.SyncResult;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.protocol.Errors;

/**
 * The state of one classic group, as Kafka's {@code ClassicGroup} holds it: its state, generation,
 * chosen protocol, leader, members, the static members' instance-id mapping (KIP-345) and the
 * pending members that were given an id but have not rejoined with it yet (KIP-394). It decides
 * nothing about time or rebalances: {@link GroupCoordinator} drives it.
 *
 * <p>Not thread-safe: every access holds the group's monitor.
 */
final class ClassicGroup {
    enum State {
        EMPTY("Empty"),
        PREPARING_REBALANCE("PreparingRebalance"),
        COMPLETING_REBALANCE("CompletingRebalance"),
        STABLE("Stable");

        /** Kafka's name of the state (ListGroups, DescribeGroups). */
        final String kafkaName;

        State(String kafkaName) {
            this.kafkaName = kafkaName;
        }
    }

    /** A member of the group (static when {@code instanceId} is set). */
    static final class Member {
        final String id;
        final String instanceId;
        String clientId = "";
        String clientHost = "";
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;
        List<Protocol> protocols = List.of();
        long lastSeenMs;
        ScheduledFuture<?> expiry; // the check due when the session times out
        CompletableFuture<JoinResult> join;
        CompletableFuture<SyncResult> sync;
        byte[] assignment = new byte[0];

        Member(String id, String instanceId) {
            this.id = id;
            this.instanceId = instanceId;
        }

        /** Same protocols with the same metadata, in the same order (Kafka's {@code matches}). */
        boolean matches(List<Protocol> other) {
            if (other.size() != protocols.size()) {
                return false;
            }
            for (int i = 0; i < other.size(); i++) {
                Protocol a = protocols.get(i);
                Protocol b = other.get(i);
                if (!a.name().equals(b.name())
                        || !java.util.Arrays.equals(a.metadata(), b.metadata())) {
                    return false;
                }
            }
            return true;
        }

        byte[] metadataFor(String protocol) {
            for (Protocol p : protocols) {
                if (p.name().equals(protocol)) {
                    return p.metadata();
                }
            }
            return new byte[0];
        }
    }

    final String id;
    State state = State.EMPTY;
    int generation;
    String protocolType;
    String protocolName;
    String leader;
    final LinkedHashMap<String, Member> members = new LinkedHashMap<>();

    /** group.instance.id to the member id that holds it now. */
    final Map<String, String> staticMembers = new HashMap<>();

    /** Member ids handed out with MEMBER_ID_REQUIRED, to their expiry (session timeout). */
    final Map<String, ScheduledFuture<?>> pending = new HashMap<>();

    ScheduledFuture<?> joinDeadline;
    long joinDeadlineMs;

    /** Bumped on each change worth persisting; the store writes a snapshot only if newer. */
    long persistSeq;

    ClassicGroup(String id) {
        this.id = id;
    }

    void add(Member m) {
        members.put(m.id, m);
        if (m.instanceId != null) {
            staticMembers.put(m.instanceId, m.id);
        }
    }

    void remove(Member m) {
        members.remove(m.id);
        if (m.instanceId != null) {
            staticMembers.remove(m.instanceId, m.id);
        }
        if (m.id.equals(leader)) {
            leader = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /**
     * Who a request naming {@code memberId} and {@code instanceId} is, as Kafka's {@code
     * validateMember}: a static instance held by another member id is {@code FENCED_INSTANCE_ID},
     * an unknown instance or member {@code UNKNOWN_MEMBER_ID}.
     */
    Errors validateMember(String memberId, String instanceId) {
        if (instanceId != null) {
            String holder = staticMembers.get(instanceId);
            if (holder == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!holder.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        return members.containsKey(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    /**
     * Whether a member with these protocols may join: same protocol type as the group and at least
     * one protocol every current member supports (any, when the group is empty).
     */
    boolean supportsProtocols(String type, List<Protocol> candidate) {
        if (members.isEmpty()) {
            return type != null && !type.isEmpty() && !candidate.isEmpty();
        }
        if (!type.equals(protocolType)) {
            return false;
        }
        for (Protocol p : candidate) {
            if (members.values().stream()
                    .allMatch(m -> m.protocols.stream().anyMatch(q -> q.name().equals(p.name())))) {
                return true;
            }
        }
        return false;
    }

    /** The first member's most preferred protocol that every member supports; null if none. */
    String chooseProtocol() {
        if (members.isEmpty()) {
            return null;
        }
        Member first = members.values().iterator().next();
        for (Protocol p : first.protocols) {
            boolean all = true;
            for (Member m : members.values()) {
                all &= m.protocols.stream().anyMatch(q -> q.name().equals(p.name()));
            }
            if (all) {
                return p.name();
            }
        }
        return null;
    }

    /** Whether every member has a JoinGroup waiting and no handed-out id is still to rejoin. */
    boolean allMembersJoined() {
        for (Member m : members.values()) {
            if (m.join == null) {
                return false;
            }
        }
        return pending.isEmpty();
    }

    int largestRebalanceTimeoutMs() {
        int timeout = 0;
        for (Member m : members.values()) {
            timeout = Math.max(timeout, m.rebalanceTimeoutMs);
        }
        return timeout;
    }

    /**
     * The topics the members subscribe to, from their consumer-protocol metadata for the chosen
     * protocol; none before a protocol is chosen or when any metadata cannot be parsed (as Kafka's
     * classic group).
     */
    Set<String> subscribedTopics() {
        if (protocolName == null) {
            return Set.of();
        }
        Set<String> topics = new HashSet<>();
        try {
            for (Member m : members.values()) {
                topics.addAll(
                        ConsumerProtocol.deserializeSubscription(
                                        ByteBuffer.wrap(m.metadataFor(protocolName)))
                                .topics());
            }
        } catch (RuntimeException e) {
            return Set.of();
        }
        return topics;
    }
}

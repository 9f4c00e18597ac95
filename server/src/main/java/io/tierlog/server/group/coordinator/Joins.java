package io.tierlog.server.group.coordinator;

import io.tierlog.server.group.coordinator.ClassicGroup.Member;
import io.tierlog.server.group.coordinator.ClassicGroup.State;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinRequest;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinResult;
import io.tierlog.server.group.coordinator.GroupCoordinator.SyncResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JoinGroup of the classic protocol, as Kafka 4.4's coordinator answers it: a new dynamic member
 * (admitted at once, or first given its id with {@code MEMBER_ID_REQUIRED}, KIP-394), a pending
 * member using that id, a new or returning static member (KIP-345: a returning one replaces its
 * previous member id, keeping the assignment), and a known member joining again. See {@link
 * GroupCoordinator} for the protocol.
 *
 * <p>Thread-safe: each group's state is guarded by the group's monitor.
 */
final class Joins {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    private final Map<String, ClassicGroup> groups;
    private final Rebalances rebalances;
    private final ScheduledExecutorService timer;

    Joins(Map<String, ClassicGroup> groups, Rebalances rebalances, ScheduledExecutorService timer) {
        this.groups = groups;
        this.rebalances = rebalances;
        this.timer = timer;
    }

    /** A member joins; see {@link GroupCoordinator} for what each kind of join does. */
    CompletableFuture<JoinResult> join(JoinRequest r) {
        String memberId = r.memberId() == null ? "" : r.memberId();
        if (r.groupId() == null || r.groupId().isEmpty()) {
            return Rebalances.done(JoinResult.error(Errors.INVALID_GROUP_ID, memberId));
        }
        if (r.sessionTimeoutMs() < GroupCoordinator.MIN_SESSION_TIMEOUT_MS
                || r.sessionTimeoutMs() > GroupCoordinator.MAX_SESSION_TIMEOUT_MS) {
            return Rebalances.done(JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, memberId));
        }
        if (r.protocols().isEmpty() || r.protocolType() == null || r.protocolType().isEmpty()) {
            return Rebalances.done(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
        }
        ClassicGroup g = groups.computeIfAbsent(r.groupId(), ClassicGroup::new);
        List<Runnable> after = new ArrayList<>();
        CompletableFuture<JoinResult> result;
        synchronized (g) {
            if (!g.supportsProtocols(r.protocolType(), r.protocols())) {
                return Rebalances.done(
                        JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
            }
            if (memberId.isEmpty()) {
                String prefix = r.groupInstanceId() != null ? r.groupInstanceId() : r.clientId();
                String newId = (prefix == null ? "member" : prefix) + "-" + UUID.randomUUID();
                String holder =
                        r.groupInstanceId() == null
                                ? null
                                : g.staticMembers.get(r.groupInstanceId());
                if (holder != null) {
                    result = replaceStaticMember(g, r, g.members.get(holder), newId, after);
                } else if (r.groupInstanceId() == null && r.requireKnownMemberId()) {
                    addPending(g, newId, r.sessionTimeoutMs());
                    return Rebalances.done(JoinResult.error(Errors.MEMBER_ID_REQUIRED, newId));
                } else {
                    result = addMember(g, r, newId, after);
                }
            } else if (r.groupInstanceId() == null && g.pending.containsKey(memberId)) {
                g.pending.remove(memberId).cancel(false);
                result = addMember(g, r, memberId, after);
            } else {
                Errors e = g.validateMember(memberId, r.groupInstanceId());
                if (e != Errors.NONE) {
                    if (e == Errors.FENCED_INSTANCE_ID) {
                        LOG.info(
                                "Group {}: member {} with instance id {} is fenced by member {}",
                                g.id,
                                memberId,
                                r.groupInstanceId(),
                                g.staticMembers.get(r.groupInstanceId()));
                    }
                    return Rebalances.done(JoinResult.error(e, memberId));
                }
                result = rejoin(g, r, g.members.get(memberId), after);
            }
        }
        after.forEach(Runnable::run);
        return result;
    }

    /** A new member (static or dynamic) enters the group; a rebalance starts or goes on. */
    private CompletableFuture<JoinResult> addMember(
            ClassicGroup g, JoinRequest r, String id, List<Runnable> after) {
        Member m = new Member(id, r.groupInstanceId());
        m.clientId = r.clientId() == null ? "" : r.clientId();
        m.clientHost = r.clientHost() == null ? "" : r.clientHost();
        g.add(m);
        g.protocolType = r.protocolType();
        CompletableFuture<JoinResult> f = update(g, m, r, after);
        if (g.state == State.PREPARING_REBALANCE) {
            rebalances.maybeCompleteJoin(g, after);
        } else {
            rebalances.prepareRebalance(g, after);
        }
        return f;
    }

    /** New protocols, timeouts and a waiting JoinGroup for {@code m}; its session restarts. */
    private CompletableFuture<JoinResult> update(
            ClassicGroup g, Member m, JoinRequest r, List<Runnable> after) {
        m.sessionTimeoutMs = r.sessionTimeoutMs();
        m.rebalanceTimeoutMs = Math.max(r.rebalanceTimeoutMs(), r.sessionTimeoutMs());
        m.protocols = List.copyOf(r.protocols());
        rebalances.touch(g, m);
        if (m.join != null) {
            CompletableFuture<JoinResult> old = m.join;
            after.add(() -> old.complete(JoinResult.error(Errors.REBALANCE_IN_PROGRESS, m.id)));
        }
        m.join = new CompletableFuture<>();
        return m.join;
    }

    /** A known member joins again (Kafka's {@code classicGroupJoinExistingMember}). */
    private CompletableFuture<JoinResult> rejoin(
            ClassicGroup g, JoinRequest r, Member m, List<Runnable> after) {
        boolean same = m.matches(r.protocols());
        switch (g.state) {
            case PREPARING_REBALANCE -> {
                CompletableFuture<JoinResult> f = update(g, m, r, after);
                rebalances.maybeCompleteJoin(g, after);
                return f;
            }
            case COMPLETING_REBALANCE, STABLE -> {
                boolean leaderRejoins = g.state == State.STABLE && m.id.equals(g.leader);
                if (same && !leaderRejoins) {
                    // It missed the JoinGroup answer, or only wants the generation again.
                    rebalances.touch(g, m);
                    return Rebalances.done(
                            currentGeneration(g, m, g.state == State.COMPLETING_REBALANCE));
                }
                CompletableFuture<JoinResult> f = update(g, m, r, after);
                rebalances.prepareRebalance(g, after);
                return f;
            }
            default -> {
                // An Empty group has no members: validateMember refused already.
                return Rebalances.done(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, m.id));
            }
        }
    }

    /** The current generation as a JoinGroup answer to {@code m} (members for the leader). */
    private static JoinResult currentGeneration(ClassicGroup g, Member m, boolean leaderGetsAll) {
        boolean lead = leaderGetsAll && m.id.equals(g.leader);
        return new JoinResult(
                Errors.NONE,
                g.generation,
                g.protocolType,
                g.protocolName,
                g.leader,
                m.id,
                lead ? Rebalances.allMetadata(g, g.protocolName) : List.of(),
                false);
    }

    /**
     * A static member rejoined with an unknown member id: {@code old} is fenced and replaced by
     * {@code newId} with its assignment (Kafka's {@code updateStaticMemberThenRebalanceOrComplete
     * Join}).
     */
    private CompletableFuture<JoinResult> replaceStaticMember(
            ClassicGroup g, JoinRequest r, Member old, String newId, List<Runnable> after) {
        String previousLeader = g.leader;
        g.members.remove(old.id);
        if (old.expiry != null) {
            old.expiry.cancel(false);
        }
        if (old.join != null) {
            CompletableFuture<JoinResult> f = old.join;
            after.add(() -> f.complete(JoinResult.error(Errors.FENCED_INSTANCE_ID, old.id)));
        }
        if (old.sync != null) {
            CompletableFuture<SyncResult> f = old.sync;
            after.add(() -> f.complete(SyncResult.error(Errors.FENCED_INSTANCE_ID)));
        }
        Member m = new Member(newId, old.instanceId);
        m.clientId = old.clientId; // as Kafka: the instance keeps the client id and host it had
        m.clientHost = old.clientHost;
        m.assignment = old.assignment;
        m.protocols = old.protocols;
        g.add(m);
        if (old.id.equals(g.leader)) {
            g.leader = newId;
        }
        LOG.info(
                "Group {}: static member {} rejoined; member {} replaced by {}",
                g.id,
                old.instanceId,
                old.id,
                newId);
        CompletableFuture<JoinResult> f = update(g, m, r, after);
        switch (g.state) {
            case STABLE -> {
                if (g.protocolName != null && g.protocolName.equals(g.chooseProtocol())) {
                    // The assignment stands: no new generation for anyone.
                    m.join = null;
                    boolean lead = r.supportsSkipAssignment() && newId.equals(g.leader);
                    JoinResult same =
                            new JoinResult(
                                    Errors.NONE,
                                    g.generation,
                                    g.protocolType,
                                    g.protocolName,
                                    r.supportsSkipAssignment() ? g.leader : previousLeader,
                                    newId,
                                    lead ? Rebalances.allMetadata(g, g.protocolName) : List.of(),
                                    lead);
                    after.add(() -> f.complete(same));
                    rebalances.persistLater(g);
                } else {
                    rebalances.prepareRebalance(g, after);
                }
            }
            // The leader may have been given the old id to assign to: assign again.
            case COMPLETING_REBALANCE -> rebalances.prepareRebalance(g, after);
            default -> rebalances.maybeCompleteJoin(g, after);
        }
        return f;
    }

    private void addPending(ClassicGroup g, String id, int sessionTimeoutMs) {
        g.pending.put(
                id,
                timer.schedule(
                        () -> expirePending(g, id), sessionTimeoutMs, TimeUnit.MILLISECONDS));
    }

    /** A handed-out member id was not used within the session timeout. */
    private void expirePending(ClassicGroup g, String id) {
        List<Runnable> after = new ArrayList<>();
        synchronized (g) {
            if (g.pending.remove(id) != null && g.state == State.PREPARING_REBALANCE) {
                rebalances.maybeCompleteJoin(g, after);
            }
        }
        after.forEach(Runnable::run);
    }
}

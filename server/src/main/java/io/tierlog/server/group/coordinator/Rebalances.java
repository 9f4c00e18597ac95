package io.tierlog.server.group.coordinator;

import io.tierlog.common.Time;
import io.tierlog.server.group.coordinator.ClassicGroup.Member;
import io.tierlog.server.group.coordinator.ClassicGroup.State;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinResult;
import io.tierlog.server.group.coordinator.GroupCoordinator.LeaveResult;
import io.tierlog.server.group.coordinator.GroupCoordinator.Leaving;
import io.tierlog.server.group.coordinator.GroupCoordinator.MemberMetadata;
import io.tierlog.server.group.coordinator.GroupCoordinator.SyncResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic protocol after the JoinGroup ({@link Joins}): SyncGroup, Heartbeat, LeaveGroup, the
 * commit check, the rebalance's phases and deadline, session expiry, and the writes of each group's
 * membership to the {@link GroupMetadataStore}. See {@link GroupCoordinator} for the protocol.
 *
 * <p>Thread-safe: each group's state is guarded by the group's monitor; futures complete outside it
 * (callers collect them in an {@code after} list).
 */
final class Rebalances {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);

    private final Map<String, ClassicGroup> groups;
    private final OffsetStore offsets;
    private final GroupMetadataStore membership;
    private final ScheduledExecutorService timer;
    private final Time time;
    private final java.util.concurrent.ConcurrentHashMap<String, GroupMetadataStore.Snapshot>
            unwritten = new java.util.concurrent.ConcurrentHashMap<>();

    Rebalances(
            Map<String, ClassicGroup> groups,
            OffsetStore offsets,
            GroupMetadataStore membership,
            ScheduledExecutorService timer,
            Time time) {
        this.groups = groups;
        this.offsets = offsets;
        this.membership = membership;
        this.timer = timer;
        this.time = time;
    }

    static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }

    /** SyncGroup; {@code groupInstanceId} null for a dynamic member. */
    CompletableFuture<SyncResult> sync(
            String groupId,
            int generation,
            String memberId,
            String groupInstanceId,
            Map<String, byte[]> assignments) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) {
            return done(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        List<Runnable> after = new ArrayList<>();
        CompletableFuture<SyncResult> result;
        synchronized (g) {
            Errors e = g.validateMember(memberId, groupInstanceId);
            if (e != Errors.NONE) {
                return done(SyncResult.error(e));
            }
            Member m = g.members.get(memberId);
            touch(g, m);
            if (generation != g.generation) {
                return done(SyncResult.error(Errors.ILLEGAL_GENERATION));
            }
            if (g.state == State.PREPARING_REBALANCE) {
                return done(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
            }
            if (g.state == State.STABLE) {
                return done(
                        new SyncResult(Errors.NONE, g.protocolType, g.protocolName, m.assignment));
            }
            m.sync = new CompletableFuture<>();
            result = m.sync;
            if (memberId.equals(g.leader)) {
                for (Member each : g.members.values()) {
                    byte[] a = assignments.get(each.id);
                    each.assignment = a == null ? new byte[0] : a;
                    if (each.sync != null) {
                        CompletableFuture<SyncResult> f = each.sync;
                        SyncResult r =
                                new SyncResult(
                                        Errors.NONE,
                                        g.protocolType,
                                        g.protocolName,
                                        each.assignment);
                        after.add(() -> f.complete(r));
                        each.sync = null;
                    }
                }
                g.state = State.STABLE;
                persistLater(g);
            }
        }
        after.forEach(Runnable::run);
        return result;
    }

    /** Heartbeat; {@code groupInstanceId} null for a dynamic member. */
    Errors heartbeat(String groupId, int generation, String memberId, String groupInstanceId) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        synchronized (g) {
            Errors e = checkMember(g, generation, memberId, groupInstanceId);
            if (e != Errors.NONE) {
                return e;
            }
            return g.state == State.PREPARING_REBALANCE
                    ? Errors.REBALANCE_IN_PROGRESS
                    : Errors.NONE;
        }
    }

    /**
     * Whether {@code memberId} (holding {@code groupInstanceId}, if set) is a member at {@code
     * generation}; a known member's session is kept alive. Called under {@code g}'s monitor.
     */
    private Errors checkMember(
            ClassicGroup g, int generation, String memberId, String groupInstanceId) {
        Errors e = g.validateMember(memberId, groupInstanceId);
        if (e != Errors.NONE) {
            return e;
        }
        touch(g, g.members.get(memberId));
        return generation != g.generation ? Errors.ILLEGAL_GENERATION : Errors.NONE;
    }

    /**
     * LeaveGroup, as Kafka's: each member named by member id (checked against its instance id, if
     * given) or, with member id "", by instance id (an administrative removal); an unknown group is
     * a group-level {@code UNKNOWN_MEMBER_ID}. The others rebalance.
     */
    LeaveResult leave(String groupId, List<Leaving> leaving) {
        ClassicGroup g = groups.get(groupId);
        if (g == null) {
            return new LeaveResult(Errors.UNKNOWN_MEMBER_ID, List.of());
        }
        List<Runnable> after = new ArrayList<>();
        List<Errors> out = new ArrayList<>();
        synchronized (g) {
            for (Leaving l : leaving) {
                String id = l.memberId() == null ? "" : l.memberId();
                if (id.isEmpty()) {
                    String holder =
                            l.groupInstanceId() == null
                                    ? null
                                    : g.staticMembers.get(l.groupInstanceId());
                    if (holder == null) {
                        out.add(Errors.UNKNOWN_MEMBER_ID);
                        continue;
                    }
                    id = holder;
                } else if (g.pending.containsKey(id)) {
                    g.pending.remove(id).cancel(false);
                    out.add(Errors.NONE);
                    continue;
                } else {
                    Errors e = g.validateMember(id, l.groupInstanceId());
                    if (e != Errors.NONE) {
                        out.add(e);
                        continue;
                    }
                }
                LOG.info("Group {}: member {} left (LeaveGroup)", g.id, id);
                remove(g, g.members.get(id), after);
                out.add(Errors.NONE);
            }
        }
        after.forEach(Runnable::run);
        return new LeaveResult(Errors.NONE, out);
    }

    /**
     * Checks that a member may commit offsets for the group, as Kafka's {@code
     * validateOffsetCommit}: a generation-less commit (-1, "", no instance id: the AdminClient or
     * an assign() consumer) is allowed while the group is Empty, else {@code UNKNOWN_MEMBER_ID};
     * otherwise the member (and instance id) and its generation must be current, and the group not
     * CompletingRebalance (its members commit during PreparingRebalance, before they rejoin). A
     * group unknown altogether is {@code GROUP_ID_NOT_FOUND} (OffsetCommit v9+ answers that; older
     * versions {@code ILLEGAL_GENERATION}).
     */
    Errors checkCommit(String groupId, int generation, String memberId, String groupInstanceId) {
        ClassicGroup g = groups.get(groupId);
        boolean anonymous =
                generation < 0
                        && (memberId == null || memberId.isEmpty())
                        && groupInstanceId == null;
        if (g == null) {
            // Kafka keeps a group with only committed offsets as Empty: its members are unknown.
            if (generation < 0) {
                return Errors.NONE;
            }
            return offsets.groupIds().contains(groupId)
                    ? Errors.UNKNOWN_MEMBER_ID
                    : Errors.GROUP_ID_NOT_FOUND;
        }
        synchronized (g) {
            if (generation < 0 && g.state == State.EMPTY) {
                return Errors.NONE;
            }
            if (anonymous) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            Errors e = checkMember(g, generation, memberId, groupInstanceId);
            if (e != Errors.NONE) {
                return e;
            }
            return g.state == State.COMPLETING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : e;
        }
    }

    /**
     * Checks a TxnOffsetCommit as Kafka's {@code validateTransactionalOffsetCommit}: an unknown
     * group accepts only generation -1 ({@code ILLEGAL_GENERATION}); a member id, instance id or
     * generation given is checked as for OffsetCommit; without them the commit is accepted whatever
     * the group's state (TxnOffsetCommit v0-2 carry none); the group's state is not enforced.
     */
    Errors checkTxnCommit(String groupId, int generation, String memberId, String groupInstanceId) {
        ClassicGroup g = groups.get(groupId);
        boolean anonymous =
                generation < 0
                        && (memberId == null || memberId.isEmpty())
                        && groupInstanceId == null;
        if (g == null) {
            if (generation < 0) {
                return Errors.NONE;
            }
            // a group that only has offsets is Empty in Kafka: no member is known
            return offsets.groupIds().contains(groupId)
                    ? Errors.UNKNOWN_MEMBER_ID
                    : Errors.ILLEGAL_GENERATION;
        }
        synchronized (g) {
            if ((generation < 0 && g.state == State.EMPTY) || anonymous) {
                return Errors.NONE;
            }
            return checkMember(g, generation, memberId, groupInstanceId);
        }
    }

    void prepareRebalance(ClassicGroup g, List<Runnable> after) {
        if (g.state != State.PREPARING_REBALANCE) {
            LOG.info(
                    "Group {}: preparing to rebalance from {} at generation {} ({} members)",
                    g.id,
                    g.state.kafkaName,
                    g.generation,
                    g.members.size());
        }
        g.state = State.PREPARING_REBALANCE;
        for (Member m : g.members.values()) {
            if (m.sync != null) {
                CompletableFuture<SyncResult> f = m.sync;
                after.add(() -> f.complete(SyncResult.error(Errors.REBALANCE_IN_PROGRESS)));
                m.sync = null;
            }
        }
        if (g.joinDeadline != null) {
            g.joinDeadline.cancel(false);
        }
        long delay = Math.max(g.largestRebalanceTimeoutMs(), 1000);
        g.joinDeadlineMs = time.milliseconds() + delay;
        g.joinDeadline = timer.schedule(() -> onJoinDeadline(g), delay, TimeUnit.MILLISECONDS);
        maybeCompleteJoin(g, after); // every member may have joined already (a lone member)
    }

    /**
     * A member was heard from: its session restarts, and the check of its expiry moves to the first
     * millisecond after the new deadline. Called under {@code g}'s monitor.
     */
    void touch(ClassicGroup g, Member m) {
        m.lastSeenMs = time.milliseconds();
        if (m.expiry != null) {
            m.expiry.cancel(false);
        }
        m.expiry =
                timer.schedule(
                        () -> expireSessions(g), m.sessionTimeoutMs + 1L, TimeUnit.MILLISECONDS);
    }

    private void onJoinDeadline(ClassicGroup g) {
        List<Runnable> after = new ArrayList<>();
        synchronized (g) {
            if (g.state != State.PREPARING_REBALANCE || time.milliseconds() < g.joinDeadlineMs) {
                return; // completed meanwhile, or early by the clock (the periodic check waits)
            }
            for (Member m : new ArrayList<>(g.members.values())) {
                if (m.join == null) {
                    g.remove(m);
                    if (m.expiry != null) {
                        m.expiry.cancel(false);
                    }
                }
            }
            if (g.members.isEmpty()) {
                becomeEmpty(g);
            } else {
                completeJoin(g, after);
            }
        }
        after.forEach(Runnable::run);
    }

    void maybeCompleteJoin(ClassicGroup g, List<Runnable> after) {
        if (!g.members.isEmpty() && g.allMembersJoined()) {
            completeJoin(g, after);
        }
    }

    private void completeJoin(ClassicGroup g, List<Runnable> after) {
        if (g.joinDeadline != null) {
            g.joinDeadline.cancel(false);
            g.joinDeadline = null;
        }
        String protocol = g.chooseProtocol();
        g.generation++;
        if (protocol == null) {
            for (Member m : g.members.values()) {
                CompletableFuture<JoinResult> f = m.join;
                after.add(
                        () ->
                                f.complete(
                                        JoinResult.error(
                                                Errors.INCONSISTENT_GROUP_PROTOCOL, m.id)));
            }
            g.members.clear();
            g.staticMembers.clear();
            becomeEmpty(g);
            return;
        }
        g.protocolName = protocol;
        LOG.info(
                "Group {}: generation {} with {} members, protocol {}",
                g.id,
                g.generation,
                g.members.size(),
                protocol);
        if (g.leader == null || !g.members.containsKey(g.leader)) {
            g.leader = g.members.keySet().iterator().next();
        }
        List<MemberMetadata> all = allMetadata(g, protocol);
        g.state = State.COMPLETING_REBALANCE;
        for (Member m : g.members.values()) {
            CompletableFuture<JoinResult> f = m.join;
            m.join = null;
            m.assignment = new byte[0];
            JoinResult r =
                    new JoinResult(
                            Errors.NONE,
                            g.generation,
                            g.protocolType,
                            protocol,
                            g.leader,
                            m.id,
                            m.id.equals(g.leader) ? all : List.of());
            after.add(() -> f.complete(r));
        }
    }

    static List<MemberMetadata> allMetadata(ClassicGroup g, String protocol) {
        List<MemberMetadata> all = new ArrayList<>();
        for (Member m : g.members.values()) {
            all.add(new MemberMetadata(m.id, m.metadataFor(protocol), m.instanceId));
        }
        return all;
    }

    void remove(ClassicGroup g, Member m, List<Runnable> after) {
        g.remove(m);
        if (m.expiry != null) {
            m.expiry.cancel(false);
        }
        if (m.join != null) {
            CompletableFuture<JoinResult> f = m.join;
            after.add(() -> f.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, m.id)));
        }
        if (m.sync != null) {
            CompletableFuture<SyncResult> f = m.sync;
            after.add(() -> f.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID)));
        }
        if (g.members.isEmpty()) {
            if (g.joinDeadline != null) {
                g.joinDeadline.cancel(false);
            }
            becomeEmpty(g);
        } else if (g.state == State.PREPARING_REBALANCE) {
            maybeCompleteJoin(g, after);
        } else {
            prepareRebalance(g, after);
        }
    }

    /** The last member is gone: a new generation without members; nothing left to persist. */
    private void becomeEmpty(ClassicGroup g) {
        g.state = State.EMPTY;
        g.leader = null;
        g.generation++;
        persistLater(g);
    }

    void expireSessions() {
        for (ClassicGroup g : groups.values()) {
            expireSessions(g);
            boolean rebalanceDue;
            synchronized (g) {
                rebalanceDue =
                        g.state == State.PREPARING_REBALANCE
                                && time.milliseconds() >= g.joinDeadlineMs;
            }
            if (rebalanceDue) {
                onJoinDeadline(g); // its own task ran early by the clock, or not yet
            }
        }
    }

    /** Removes the members of {@code g} whose session timed out; forgets the group if idle. */
    void expireSessions(ClassicGroup g) {
        long now = time.milliseconds();
        List<Runnable> after = new ArrayList<>();
        synchronized (g) {
            for (Member m : new ArrayList<>(g.members.values())) {
                if (m.join == null && m.sync == null && now - m.lastSeenMs > m.sessionTimeoutMs) {
                    LOG.info(
                            "Group {}: member {}{} expired after its session timeout of {} ms",
                            g.id,
                            m.id,
                            m.instanceId == null ? "" : " (instance " + m.instanceId + ")",
                            m.sessionTimeoutMs);
                    remove(g, m, after);
                }
            }
            if (g.members.isEmpty() && g.pending.isEmpty() && g.state == State.EMPTY) {
                // Forget idle groups (their committed offsets stay in the offset store); a
                // join racing with this lands in a detached group and is told to rejoin.
                groups.remove(g.id, g);
            }
        }
        after.forEach(Runnable::run);
    }

    /**
     * Persists the group's membership as it is now, on the timer's thread (the caller may be an
     * event loop); called under {@code g}'s monitor. The snapshot waits in {@code unwritten} until
     * written, so that {@link #flush} at close writes what the timer did not get to.
     */
    void persistLater(ClassicGroup g) {
        GroupMetadataStore.Snapshot s = snapshot(g);
        unwritten.merge(g.id, s, (old, now) -> old.seq() > now.seq() ? old : now);
        timer.execute(this::flush);
    }

    /** Writes every snapshot not written yet (the store skips any older than one it wrote). */
    void flush() {
        for (String id : unwritten.keySet()) {
            GroupMetadataStore.Snapshot s = unwritten.get(id);
            if (s != null && unwritten.remove(id, s)) {
                persist(s);
            }
        }
    }

    void persist(GroupMetadataStore.Snapshot s) {
        try {
            membership.write(s);
        } catch (IOException | RuntimeException e) {
            LOG.error(
                    "Cannot persist the membership of group {}; after a restart its members"
                            + " rejoin",
                    s.groupId(),
                    e);
        }
    }

    /** The group's membership for the store: members only while Stable. Under the monitor. */
    static GroupMetadataStore.Snapshot snapshot(ClassicGroup g) {
        List<GroupMetadataStore.MemberSnapshot> members = new ArrayList<>();
        if (g.state == State.STABLE) {
            for (Member m : g.members.values()) {
                members.add(
                        new GroupMetadataStore.MemberSnapshot(
                                m.id,
                                m.instanceId,
                                m.clientId,
                                m.clientHost,
                                m.sessionTimeoutMs,
                                m.rebalanceTimeoutMs,
                                m.metadataFor(g.protocolName),
                                m.assignment));
            }
        }
        return new GroupMetadataStore.Snapshot(
                g.id,
                ++g.persistSeq,
                g.generation,
                g.protocolType == null ? "" : g.protocolType,
                g.protocolName == null ? "" : g.protocolName,
                g.leader,
                members);
    }

    /** Cancels the group's tasks. */
    void closeGroup(ClassicGroup g) {
        synchronized (g) {
            if (g.joinDeadline != null) {
                g.joinDeadline.cancel(false);
            }
            for (Member m : g.members.values()) {
                if (m.expiry != null) {
                    m.expiry.cancel(false);
                }
            }
            for (ScheduledFuture<?> p : g.pending.values()) {
                p.cancel(false);
            }
        }
    }
}

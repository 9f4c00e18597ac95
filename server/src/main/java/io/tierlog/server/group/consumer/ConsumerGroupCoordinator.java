package io.tierlog.server.group.consumer;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.tierlog.common.Time;
import io.tierlog.server.group.consumer.ConsumerGroupMessages.GroupDescription;
import io.tierlog.server.group.consumer.ConsumerGroupMessages.GroupListing;
import io.tierlog.server.group.consumer.ConsumerGroupMessages.HeartbeatRequest;
import io.tierlog.server.group.consumer.ConsumerGroupMessages.HeartbeatResult;
import io.tierlog.server.group.consumer.ConsumerGroupMessages.MemberDescription;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator of KIP-848 consumer groups on a single server: members heartbeat
 * (ConsumerGroupHeartbeat), the group epoch rises on every change of membership, subscriptions,
 * assignor or subscribed topic metadata (partition counts, new topics matching a regex), the target
 * assignment is recomputed by the group's server-side assignor at the new epoch, and each member is
 * moved towards its target by {@link Reconciliation}, which never gives a partition to a member
 * while another still owns it.
 *
 * <p>Deadlines run on the injected {@link Time} and timer: a member that is not heard from for
 * {@code sessionTimeoutMs} is removed; a member asked to revoke partitions that has not done so
 * within its rebalance timeout is fenced (removed), as in Kafka.
 *
 * <p>Durability: each group's state (epochs, assignor, target assignment, every member with its
 * epochs, subscription and partitions) is persisted by {@link ConsumerGroupStore} off the caller's
 * thread after each change, and flushed on {@link #close}; a coordinator {@link #open opened} on
 * the same directory carries on with those members, whose sessions restart at the load. A kill -9
 * can lose the last changes: a member heartbeating with an epoch ahead of the one known is fenced
 * ({@code FENCED_MEMBER_EPOCH}), an unknown member is told {@code UNKNOWN_MEMBER_ID}; both drop
 * their partitions and rejoin. Such a heartbeat within a session timeout of the start proves the
 * file stale or lost, so the group then hands out no partition that nobody owns until a session
 * timeout after the start (members of before that have not heartbeated yet may still consume it).
 *
 * <p>Static membership ({@code group.instance.id}): see {@link StaticMembers}; a second live member
 * with the instance id of a member is refused with {@code UNRELEASED_INSTANCE_ID}.
 *
 * <p>Thread-safe: each group's state is guarded by its monitor.
 */
public final class ConsumerGroupCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupCoordinator.class);
    public static final int LEAVE_EPOCH = -1;
    public static final int STATIC_LEAVE_EPOCH = -2;

    /** The topics the coordinator can see. Implementations are thread-safe. */
    public interface Topics {
        /** Partition count of a topic; empty if it does not exist. */
        OptionalInt partitions(String topic);

        /** Every topic name (to match regex subscriptions); a snapshot. */
        Collection<String> names();
    }

    /**
     * @param sessionTimeoutMs {@code group.consumer.session.timeout.ms}
     * @param heartbeatIntervalMs {@code group.consumer.heartbeat.interval.ms}
     * @param assignors {@code group.consumer.assignors}; the first is the default
     * @param maxSize {@code group.consumer.max.size}
     */
    public record Settings(
            int sessionTimeoutMs,
            int heartbeatIntervalMs,
            List<ConsumerAssignor> assignors,
            int maxSize) {}

    private final Map<String, ConsumerGroup> groups = new ConcurrentHashMap<>();
    private final Settings settings;
    private final Predicate<String> classicGroupInUse;
    private final ConsumerGroupStore store;
    private final TargetAssignments targets;
    private final MemberDeadlines deadlines;
    private final ScheduledExecutorService timer;
    private final Time time;
    private final long startedMs;

    /**
     * @param classicGroupInUse whether a classic group of that id has members (a consumer group of
     *     the same id is then refused)
     */
    public ConsumerGroupCoordinator(
            Settings settings,
            Topics topics,
            Predicate<String> classicGroupInUse,
            ScheduledExecutorService timer,
            Time time) {
        this(settings, topics, classicGroupInUse, null, timer, time);
    }

    private ConsumerGroupCoordinator(
            Settings settings,
            Topics topics,
            Predicate<String> classicGroupInUse,
            ConsumerGroupStore store,
            ScheduledExecutorService timer,
            Time time) {
        if (settings.assignors().isEmpty()) {
            throw new IllegalArgumentException("group.consumer.assignors must name an assignor");
        }
        this.settings = settings;
        this.classicGroupInUse = classicGroupInUse;
        this.store = store;
        this.targets = new TargetAssignments(settings.assignors(), topics);
        this.deadlines =
                new MemberDeadlines(
                        timer,
                        time,
                        settings.sessionTimeoutMs(),
                        (g, m) -> {
                            remove(g, m);
                            changed(g);
                        });
        this.timer = timer;
        this.time = time;
        this.startedMs = time.milliseconds();
    }

    /**
     * A coordinator that persists its groups in {@code metaDir/consumer-groups} (written on {@code
     * timer}) and starts with the groups persisted there; an unreadable file is moved aside.
     */
    public static ConsumerGroupCoordinator open(
            Path metaDir,
            Settings settings,
            Topics topics,
            Predicate<String> classicGroupInUse,
            ScheduledExecutorService timer,
            Time time)
            throws IOException {
        List<ConsumerGroupStore.GroupRecord> loaded = new ArrayList<>();
        ConsumerGroupStore store = ConsumerGroupStore.open(metaDir, timer, loaded);
        ConsumerGroupCoordinator c =
                new ConsumerGroupCoordinator(
                        settings, topics, classicGroupInUse, store, timer, time);
        for (ConsumerGroupStore.GroupRecord rec : loaded) {
            c.restore(rec);
        }
        return c;
    }

    private void restore(ConsumerGroupStore.GroupRecord rec) throws IOException {
        ConsumerGroup g;
        try {
            g = ConsumerGroupStore.restore(rec);
        } catch (RuntimeException e) {
            ConsumerGroupStore.moveAside(store.file(rec.groupId()), e);
            return;
        }
        synchronized (g) {
            g.persisted = rec;
            for (ConsumerGroupMember m : g.members.values()) {
                deadlines.touch(g, m);
                if (m.state == MemberState.UNREVOKED_PARTITIONS) {
                    deadlines.scheduleRevocationDeadline(g, m);
                }
            }
        }
        groups.put(g.id, g);
        LOG.info(
                "Consumer group {} restored at epoch {} with {} members",
                g.id,
                g.groupEpoch,
                g.members.size());
    }

    /** Persists the group's state if it changed. Under {@code g}'s monitor. */
    private void changed(ConsumerGroup g) {
        if (store == null) {
            return;
        }
        ConsumerGroupStore.GroupRecord rec = ConsumerGroupStore.snapshot(g, groups.get(g.id) == g);
        if (!rec.equals(g.persisted)) {
            g.persisted = rec;
            store.persistLater(++g.persistSeq, rec);
        }
    }

    /** True within a session timeout of the start, while members of before may be alive. */
    private boolean mayBeStale() {
        return time.milliseconds() - startedMs <= settings.sessionTimeoutMs();
    }

    /**
     * The group's persisted state was stale or lost: partitions nobody owns are held back until a
     * session timeout after the start. Under {@code g}'s monitor.
     */
    private void holdBack(ConsumerGroup g, String why) {
        if (g.recoveringUntilMs == 0) {
            LOG.warn(
                    "Consumer group {}: {}, so its persisted state is older than its members';"
                            + " partitions nobody owns are held back until a session timeout"
                            + " after the start",
                    g.id,
                    why);
        }
        g.recoveringUntilMs = startedMs + settings.sessionTimeoutMs() + 1L;
    }

    /** The assignors by name, for {@code group.consumer.assignors}. */
    public static Map<String, ConsumerAssignor> knownAssignors() {
        Map<String, ConsumerAssignor> m = new LinkedHashMap<>();
        m.put(UniformAssignor.NAME, new UniformAssignor());
        m.put(RangeAssignor.NAME, new RangeAssignor());
        return m;
    }

    /** One ConsumerGroupHeartbeat: join (epoch 0), heartbeat (epoch > 0) or leave (-1, -2). */
    public HeartbeatResult heartbeat(HeartbeatRequest r) {
        String invalid = HeartbeatRules.invalid(r);
        if (invalid != null) {
            return HeartbeatResult.error(
                    Errors.INVALID_REQUEST, invalid, r.memberId(), r.memberEpoch());
        }
        if (r.serverAssignor() != null && targets.assignor(r.serverAssignor()) == null) {
            return HeartbeatResult.error(
                    Errors.UNSUPPORTED_ASSIGNOR,
                    "ServerAssignor "
                            + r.serverAssignor()
                            + " is not supported. Supported assignors: "
                            + targets.assignorNames()
                            + ".",
                    r.memberId(),
                    r.memberEpoch());
        }
        if (r.topicRegex() != null) {
            try {
                Pattern.compile(r.topicRegex());
            } catch (PatternSyntaxException e) {
                return HeartbeatResult.error(
                        Errors.INVALID_REGULAR_EXPRESSION,
                        "SubscribedTopicRegex `"
                                + r.topicRegex()
                                + "` is not a valid regular expression: "
                                + e.getMessage()
                                + ".",
                        r.memberId(),
                        r.memberEpoch());
            }
        }
        ConsumerGroup g;
        if (r.memberEpoch() == 0) {
            if (classicGroupInUse.test(r.groupId())) {
                return HeartbeatResult.error(
                        Errors.GROUP_ID_NOT_FOUND,
                        "Group " + r.groupId() + " is not a consumer group.",
                        r.memberId(),
                        r.memberEpoch());
            }
            g = groups.computeIfAbsent(r.groupId(), ConsumerGroup::new);
        } else {
            g = groups.get(r.groupId());
            if (g == null
                    && r.memberEpoch() > 0
                    && mayBeStale()
                    && !classicGroupInUse.test(r.groupId())) {
                // A member of a group whose file was lost or never written: the others of
                // before may still consume, so nothing they might own is handed out for now.
                g = groups.computeIfAbsent(r.groupId(), ConsumerGroup::new);
                synchronized (g) {
                    holdBack(g, "member " + r.memberId() + " is unknown");
                }
            }
            if (g == null) {
                return HeartbeatResult.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + r.memberId() + " is not a member of group " + r.groupId() + ".",
                        r.memberId(),
                        r.memberEpoch());
            }
        }
        synchronized (g) {
            if (groups.get(g.id) != g) {
                // Deleted or converted meanwhile.
                return HeartbeatResult.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Group " + g.id + " was removed.",
                        r.memberId(),
                        r.memberEpoch());
            }
            HeartbeatResult result = heartbeat(g, r);
            changed(g);
            return result;
        }
    }

    private HeartbeatResult heartbeat(ConsumerGroup g, HeartbeatRequest r) {
        String memberId = r.memberId();
        ConsumerGroupMember m =
                memberId == null || memberId.isEmpty() ? null : g.members.get(memberId);
        if (r.memberEpoch() == LEAVE_EPOCH || r.memberEpoch() == STATIC_LEAVE_EPOCH) {
            if (m == null) {
                return HeartbeatResult.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + memberId + " is not a member of group " + g.id + ".",
                        memberId,
                        r.memberEpoch());
            }
            if (r.memberEpoch() == STATIC_LEAVE_EPOCH && m.instanceId != null) {
                StaticMembers.leave(g, m);
                deadlines.touch(g, m);
            } else {
                LOG.info(
                        "Member {} left consumer group {} (epoch {})", m.id, g.id, r.memberEpoch());
                remove(g, m);
            }
            return new HeartbeatResult(Errors.NONE, null, m.id, r.memberEpoch(), 0, null);
        }
        boolean joining = r.memberEpoch() == 0;
        boolean bump = false;
        Assignment before;
        if (joining) {
            ConsumerGroupMember held =
                    r.instanceId() == null ? null : g.staticMember(r.instanceId());
            if (held != null && (held != m || held.epoch == STATIC_LEAVE_EPOCH)) {
                if (held.epoch != STATIC_LEAVE_EPOCH) {
                    return HeartbeatResult.error(
                            Errors.UNRELEASED_INSTANCE_ID,
                            "Static member "
                                    + memberId
                                    + " with instance id "
                                    + r.instanceId()
                                    + " cannot join the group because the instance id is owned by "
                                    + held.id
                                    + " member.",
                            memberId,
                            0);
                }
                // It left with -2 and comes back: it takes the place of its former member id,
                // with its epoch and partitions; the others see no change.
                m = StaticMembers.replace(g, held, memberId);
                targets.maybeRefreshTarget(g, HeartbeatRules.update(m, r));
                deadlines.touch(g, m);
                return new HeartbeatResult(
                        Errors.NONE,
                        null,
                        m.id,
                        m.epoch,
                        settings.heartbeatIntervalMs(),
                        m.assigned);
            }
            if (m == null) {
                if (g.members.size() >= settings.maxSize()) {
                    return HeartbeatResult.error(
                            Errors.GROUP_MAX_SIZE_REACHED,
                            "The consumer group has reached its maximum capacity of "
                                    + settings.maxSize()
                                    + " members.",
                            memberId,
                            0);
                }
                m =
                        new ConsumerGroupMember(
                                memberId == null || memberId.isEmpty()
                                        ? UUID.randomUUID().toString()
                                        : memberId);
                g.members.put(m.id, m);
                bump = true;
                LOG.info("Member {} joins consumer group {}", m.id, g.id);
            } else {
                // A rejoin: the client gave up what it owned, so does the group.
                g.release(m);
                m.assigned = Assignment.EMPTY;
                m.pendingRevocation = Assignment.EMPTY;
                m.state = MemberState.STABLE;
                m.previousEpoch = m.epoch;
                m.epoch = 0;
                if (m.revocation != null) {
                    m.revocation.cancel(false);
                }
            }
            before = null;
        } else {
            if (m == null) {
                if (mayBeStale()) {
                    holdBack(g, "member " + memberId + " is unknown");
                }
                return HeartbeatResult.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + memberId + " is not a member of group " + g.id + ".",
                        memberId,
                        r.memberEpoch());
            }
            String fenced = HeartbeatRules.fencedBy(m, r.memberEpoch(), r.owned());
            if (fenced != null) {
                if (r.memberEpoch() > m.epoch && mayBeStale()) {
                    holdBack(g, "member " + m.id + " is at epoch " + r.memberEpoch());
                }
                deadlines.touch(g, m);
                return HeartbeatResult.error(
                        Errors.FENCED_MEMBER_EPOCH, fenced, m.id, r.memberEpoch());
            }
            before = m.assigned;
        }
        bump |= HeartbeatRules.update(m, r);
        deadlines.touch(g, m);
        targets.maybeRefreshTarget(g, bump);
        reconcile(g, m, r.owned());
        boolean full =
                r.rebalanceTimeoutMs() != -1
                        && (r.topicNames() != null || r.topicRegex() != null)
                        && r.owned() != null;
        Assignment answer = joining || full || !m.assigned.equals(before) ? m.assigned : null;
        return new HeartbeatResult(
                Errors.NONE, null, m.id, m.epoch, settings.heartbeatIntervalMs(), answer);
    }

    private void reconcile(ConsumerGroup g, ConsumerGroupMember m, Assignment owned) {
        MemberState was = m.state;
        int epochWas = m.epoch;
        Reconciliation.Step s =
                Reconciliation.next(
                        m.epoch,
                        m.state,
                        m.assigned,
                        m.pendingRevocation,
                        owned,
                        g.targetEpoch,
                        g.target.getOrDefault(m.id, Assignment.EMPTY),
                        (t, p) ->
                                g.ownedByOther(m.id, t, p)
                                        || (time.milliseconds() < g.recoveringUntilMs
                                                && !g.ownedBy(m.id, t, p)));
        g.release(m);
        if (s.epoch() != m.epoch) {
            m.previousEpoch = m.epoch;
        }
        m.epoch = s.epoch();
        m.state = s.state();
        m.assigned = s.assigned();
        m.pendingRevocation = s.pendingRevocation();
        g.acquire(m);
        if (m.state == MemberState.UNREVOKED_PARTITIONS
                && (was != MemberState.UNREVOKED_PARTITIONS || epochWas != m.epoch)) {
            deadlines.scheduleRevocationDeadline(g, m);
        } else if (m.state != MemberState.UNREVOKED_PARTITIONS && m.revocation != null) {
            m.revocation.cancel(false);
            m.revocation = null;
        }
    }

    /**
     * Removes a member; the group epoch rises and the others are reconciled on their heartbeats.
     */
    private void remove(ConsumerGroup g, ConsumerGroupMember m) {
        m.cancelTimers();
        g.release(m);
        g.members.remove(m.id);
        g.target.remove(m.id);
        g.groupEpoch++;
        if (g.members.isEmpty()) {
            g.subscribedMetadata = Map.of();
            g.targetEpoch = g.groupEpoch;
        }
    }

    /** True if a consumer group of that id exists (with or without members). */
    public boolean isConsumerGroup(String groupId) {
        return groupId != null && groups.containsKey(groupId);
    }

    /**
     * Lets a classic group take over an id: forgets an empty consumer group of that id (its
     * committed offsets stay). False if a consumer group of that id has members.
     */
    public boolean yieldToClassic(String groupId) {
        ConsumerGroup g = groups.get(groupId);
        if (g == null) {
            return true;
        }
        synchronized (g) {
            if (!g.members.isEmpty()) {
                return false;
            }
            groups.remove(groupId, g);
            changed(g);
            return true;
        }
    }

    /**
     * Kafka's checks of an OffsetCommit or OffsetFetch for a consumer group: empty when the group
     * is not a consumer group (the classic rules apply); else {@code NONE}, {@code
     * UNKNOWN_MEMBER_ID} or {@code STALE_MEMBER_EPOCH}. A commit without a member (epoch < 0) is
     * only allowed while the group is empty.
     */
    public Optional<Errors> checkOffsetAccess(
            String groupId, String memberId, int memberEpoch, boolean commit) {
        ConsumerGroup g = groupId == null ? null : groups.get(groupId);
        if (g == null) {
            return Optional.empty();
        }
        synchronized (g) {
            if (memberEpoch < 0 && (memberId == null || memberId.isEmpty() || !commit)) {
                return Optional.of(
                        !commit || g.members.isEmpty() ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID);
            }
            ConsumerGroupMember m = g.members.get(memberId);
            if (m == null) {
                return Optional.of(Errors.UNKNOWN_MEMBER_ID);
            }
            return Optional.of(memberEpoch == m.epoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH);
        }
    }

    /**
     * Forgets an empty consumer group (DeleteGroups; the caller deletes its offsets): empty when no
     * consumer group has that id, {@code NON_EMPTY_GROUP} while it has members.
     */
    public Optional<Errors> delete(String groupId) {
        ConsumerGroup g = groups.get(groupId);
        if (g == null) {
            return Optional.empty();
        }
        synchronized (g) {
            if (!g.members.isEmpty()) {
                return Optional.of(Errors.NON_EMPTY_GROUP);
            }
            groups.remove(groupId, g);
            changed(g);
            return Optional.of(Errors.NONE);
        }
    }

    /** Every consumer group, by id. */
    public List<GroupListing> list() {
        List<GroupListing> out = new ArrayList<>();
        for (ConsumerGroup g : new TreeMap<>(groups).values()) {
            synchronized (g) {
                out.add(new GroupListing(g.id, g.stateName()));
            }
        }
        return out;
    }

    /** A consumer group's state, epochs and members; empty if no consumer group has that id. */
    public Optional<GroupDescription> describe(String groupId) {
        ConsumerGroup g = groupId == null ? null : groups.get(groupId);
        if (g == null) {
            return Optional.empty();
        }
        synchronized (g) {
            List<MemberDescription> members = new ArrayList<>();
            for (ConsumerGroupMember m : g.members.values()) {
                members.add(
                        new MemberDescription(
                                m.id,
                                m.instanceId,
                                m.rackId,
                                m.epoch,
                                m.clientId,
                                m.clientHost,
                                m.topicNames,
                                m.topicRegex,
                                m.assigned,
                                g.target.getOrDefault(m.id, Assignment.EMPTY)));
            }
            return Optional.of(
                    new GroupDescription(
                            g.id,
                            g.stateName(),
                            g.groupEpoch,
                            g.targetEpoch,
                            settings.assignors().get(0).name(),
                            members));
        }
    }

    /** Cancels every member's timers (the timer belongs to the caller). */
    @Override
    public void close() {
        for (ConsumerGroup g : groups.values()) {
            synchronized (g) {
                g.members.values().forEach(ConsumerGroupMember::cancelTimers);
            }
        }
        if (store != null) {
            store.flush();
        }
    }
}

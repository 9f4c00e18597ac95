package io.tierlog.server.group.consumer;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.tierlog.common.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * <p>Durability: group membership is kept in memory only (committed offsets are in the shared
 * {@code OffsetStore}). After a restart, a member of before that heartbeats within a session
 * timeout of the start with a full heartbeat (which a client sends to a coordinator it has not
 * talked to yet: subscription, rebalance timeout and owned partitions) is re-created at its epoch
 * owning what it reports, unless another member owns any of that; any other heartbeat of an unknown
 * member is answered {@code UNKNOWN_MEMBER_ID}, which the client treats as fencing: it drops its
 * partitions (onPartitionsLost) and rejoins with epoch 0, resuming from the committed offsets.
 *
 * <p>Static membership ({@code group.instance.id}) is accepted but treated as dynamic: a leave with
 * epoch -2 leaves the group like -1. Thread-safe: each group's state is guarded by its monitor.
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
        static HeartbeatResult error(Errors e, String message, String memberId, int epoch) {
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

    private final Map<String, ConsumerGroup> groups = new ConcurrentHashMap<>();
    private final Settings settings;
    private final Topics topics;
    private final Predicate<String> classicGroupInUse;
    private final Predicate<String> existedBefore;
    private final ScheduledExecutorService timer;
    private final Time time;
    private final long startedMs;

    /**
     * @param classicGroupInUse whether a classic group of that id has members (a consumer group of
     *     the same id is then refused)
     * @param existedBefore whether a group of that id existed before this coordinator started (it
     *     has committed offsets): its members may come back after a restart
     */
    public ConsumerGroupCoordinator(
            Settings settings,
            Topics topics,
            Predicate<String> classicGroupInUse,
            Predicate<String> existedBefore,
            ScheduledExecutorService timer,
            Time time) {
        if (settings.assignors().isEmpty()) {
            throw new IllegalArgumentException("group.consumer.assignors must name an assignor");
        }
        this.settings = settings;
        this.topics = topics;
        this.classicGroupInUse = classicGroupInUse;
        this.existedBefore = existedBefore;
        this.timer = timer;
        this.time = time;
        this.startedMs = time.milliseconds();
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
        String invalid = invalid(r);
        if (invalid != null) {
            return HeartbeatResult.error(
                    Errors.INVALID_REQUEST, invalid, r.memberId(), r.memberEpoch());
        }
        if (r.serverAssignor() != null && assignor(r.serverAssignor()) == null) {
            return HeartbeatResult.error(
                    Errors.UNSUPPORTED_ASSIGNOR,
                    "ServerAssignor "
                            + r.serverAssignor()
                            + " is not supported. Supported assignors: "
                            + assignorNames()
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
            g = groups.computeIfAbsent(r.groupId(), this::newGroup);
        } else {
            g = groups.get(r.groupId());
            if (g == null && adoptable(r)) {
                g = groups.computeIfAbsent(r.groupId(), this::newGroup);
            }
            if (g == null) {
                // Unknown after a restart (membership is not persisted): fence, so it rejoins.
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
            return heartbeat(g, r);
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
            LOG.info("Member {} left consumer group {} (epoch {})", m.id, g.id, r.memberEpoch());
            remove(g, m);
            return new HeartbeatResult(Errors.NONE, null, m.id, r.memberEpoch(), 0, null);
        }
        boolean joining = r.memberEpoch() == 0;
        boolean bump = false;
        Assignment before;
        if (joining) {
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
            if (m == null && adoptable(r) && !g.ownsAnyOf(r.owned())) {
                m = adopt(g, r);
            }
            if (m == null) {
                return HeartbeatResult.error(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + memberId + " is not a member of group " + g.id + ".",
                        memberId,
                        r.memberEpoch());
            }
            String fenced = fencedBy(m, r.memberEpoch(), r.owned());
            if (fenced != null) {
                touch(g, m);
                return HeartbeatResult.error(
                        Errors.FENCED_MEMBER_EPOCH, fenced, m.id, r.memberEpoch());
            }
            before = m.assigned;
        }
        bump |= update(m, r);
        touch(g, m);
        maybeRefreshTarget(g, bump);
        reconcile(g, m, r.owned());
        boolean full =
                r.rebalanceTimeoutMs() != -1
                        && (r.topicNames() != null || r.topicRegex() != null)
                        && r.owned() != null;
        Assignment answer = joining || full || !m.assigned.equals(before) ? m.assigned : null;
        return new HeartbeatResult(
                Errors.NONE, null, m.id, m.epoch, settings.heartbeatIntervalMs(), answer);
    }

    /** True within a session timeout of this coordinator's start. */
    private boolean recovering() {
        return time.milliseconds() - startedMs <= settings.sessionTimeoutMs();
    }

    /**
     * A group created now. One that existed before this coordinator started, created within a
     * session timeout of the start, holds back every partition no member reports owning until that
     * session timeout has passed: members of before the restart that have not heartbeated yet may
     * still own them (a returning member is fenced, and drops them, or re-created owning them).
     */
    private ConsumerGroup newGroup(String id) {
        ConsumerGroup g = new ConsumerGroup(id);
        if (recovering() && existedBefore.test(id)) {
            g.recoveringUntilMs = startedMs + settings.sessionTimeoutMs() + 1;
        }
        return g;
    }

    /**
     * Whether an unknown member's heartbeat may re-create it: within a session timeout of this
     * coordinator's start (membership is not persisted, so after a restart the members of before
     * come back this way) and only from a full heartbeat (subscription, rebalance timeout and owned
     * partitions given: what a client sends to a coordinator it has not talked to yet).
     */
    private boolean adoptable(HeartbeatRequest r) {
        return r.memberEpoch() > 0
                && recovering()
                && r.rebalanceTimeoutMs() != -1
                && (r.topicNames() != null || r.topicRegex() != null)
                && r.owned() != null
                && r.memberId() != null
                && !r.memberId().isEmpty();
    }

    /**
     * Re-creates a member of before a restart at the epoch it reports, owning what it reports (none
     * of which another member owns): it keeps its partitions, and the group epoch moves past every
     * epoch of before so that the next target assignment is newer than anything it saw.
     */
    private ConsumerGroupMember adopt(ConsumerGroup g, HeartbeatRequest r) {
        ConsumerGroupMember m = new ConsumerGroupMember(r.memberId());
        m.epoch = r.memberEpoch();
        m.assigned = r.owned();
        g.members.put(m.id, m);
        g.acquire(m);
        g.groupEpoch = Math.max(g.groupEpoch, r.memberEpoch()) + 1;
        g.target.put(m.id, r.owned());
        // Members of before that have not heartbeated yet may still own any partition nobody
        // reported: none is handed out until every live one had a session timeout to come back.
        g.recoveringUntilMs = startedMs + settings.sessionTimeoutMs() + 1;
        LOG.info(
                "Member {} of consumer group {} re-created at epoch {} owning {} (coordinator"
                        + " restarted)",
                m.id,
                g.id,
                m.epoch,
                m.assigned);
        return m;
    }

    /** Kafka's request checks; the message, or null when valid. */
    private static String invalid(HeartbeatRequest r) {
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
        } else if (r.memberEpoch() < STATIC_LEAVE_EPOCH) {
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
    private static String fencedBy(ConsumerGroupMember m, int epoch, Assignment owned) {
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
    private static boolean update(ConsumerGroupMember m, HeartbeatRequest r) {
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

    /** The topics {@code m} subscribes to that exist: names and regex matches. */
    private Set<String> subscription(ConsumerGroupMember m, Collection<String> allTopics) {
        Set<String> out = new TreeSet<>(m.topicNames);
        if (m.topicRegex != null) {
            Pattern p = Pattern.compile(m.topicRegex);
            for (String t : allTopics) {
                if (p.matches(t)) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /**
     * Bumps the group epoch once if {@code bump} (membership or a subscription changed) or the
     * subscribed topics' metadata changed, and recomputes the target assignment if it is behind the
     * group epoch.
     */
    private void maybeRefreshTarget(ConsumerGroup g, boolean bump) {
        Collection<String> all = g.hasRegex() ? topics.names() : List.of();
        Map<String, Set<String>> subs = new TreeMap<>();
        Map<String, Integer> metadata = new TreeMap<>();
        for (ConsumerGroupMember m : g.members.values()) {
            Set<String> s = subscription(m, all);
            subs.put(m.id, s);
            for (String t : s) {
                OptionalInt n = topics.partitions(t);
                if (n.isPresent()) {
                    metadata.put(t, n.getAsInt());
                }
            }
        }
        if (!metadata.equals(g.subscribedMetadata)) {
            g.subscribedMetadata = metadata;
            bump = true;
        }
        if (bump) {
            // One epoch per change, whatever changed (membership, subscriptions, metadata).
            g.groupEpoch++;
        }
        if (g.targetEpoch == g.groupEpoch) {
            return;
        }
        ConsumerAssignor a = assignor(groupAssignor(g));
        Map<String, ConsumerAssignor.MemberSpec> specs = new TreeMap<>();
        subs.forEach(
                (id, s) ->
                        specs.put(
                                id,
                                new ConsumerAssignor.MemberSpec(
                                        s, g.target.getOrDefault(id, Assignment.EMPTY))));
        g.target = new HashMap<>(a.assign(specs, metadata));
        g.targetEpoch = g.groupEpoch;
        g.assignorName = a.name();
    }

    /** The assignor most members ask for (ties: the one listed first), else the default. */
    private String groupAssignor(ConsumerGroup g) {
        Map<String, Integer> votes = new HashMap<>();
        for (ConsumerGroupMember m : g.members.values()) {
            if (m.serverAssignor != null) {
                votes.merge(m.serverAssignor, 1, Integer::sum);
            }
        }
        String best = settings.assignors().get(0).name();
        int bestVotes = 0;
        for (ConsumerAssignor a : settings.assignors()) {
            int v = votes.getOrDefault(a.name(), 0);
            if (v > bestVotes) {
                best = a.name();
                bestVotes = v;
            }
        }
        return best;
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
            scheduleRevocationDeadline(g, m);
        } else if (m.state != MemberState.UNREVOKED_PARTITIONS && m.revocation != null) {
            m.revocation.cancel(false);
            m.revocation = null;
        }
    }

    private void scheduleRevocationDeadline(ConsumerGroup g, ConsumerGroupMember m) {
        if (m.revocation != null) {
            m.revocation.cancel(false);
        }
        long deadline = time.milliseconds() + m.rebalanceTimeoutMs;
        int epoch = m.epoch;
        m.revocation =
                timer.schedule(
                        () -> onRevocationDeadline(g, m, epoch, deadline),
                        m.rebalanceTimeoutMs,
                        TimeUnit.MILLISECONDS);
    }

    private void onRevocationDeadline(
            ConsumerGroup g, ConsumerGroupMember m, int epoch, long deadline) {
        synchronized (g) {
            if (g.members.get(m.id) != m
                    || m.state != MemberState.UNREVOKED_PARTITIONS
                    || m.epoch != epoch) {
                return;
            }
            long left = deadline - time.milliseconds();
            if (left > 0) {
                m.revocation =
                        timer.schedule(
                                () -> onRevocationDeadline(g, m, epoch, deadline),
                                left,
                                TimeUnit.MILLISECONDS);
                return;
            }
            LOG.info(
                    "Member {} of consumer group {} did not revoke its partitions within {} ms: fenced",
                    m.id,
                    g.id,
                    m.rebalanceTimeoutMs);
            remove(g, m);
        }
    }

    /** The member was heard from: its session restarts. Called under {@code g}'s monitor. */
    private void touch(ConsumerGroup g, ConsumerGroupMember m) {
        m.lastSeenMs = time.milliseconds();
        if (m.session != null) {
            m.session.cancel(false);
        }
        m.session =
                timer.schedule(
                        () -> maybeExpire(g, m),
                        settings.sessionTimeoutMs() + 1L,
                        TimeUnit.MILLISECONDS);
    }

    private void maybeExpire(ConsumerGroup g, ConsumerGroupMember m) {
        synchronized (g) {
            if (g.members.get(m.id) != m) {
                return;
            }
            long silent = time.milliseconds() - m.lastSeenMs;
            if (silent <= settings.sessionTimeoutMs()) {
                // Early by the clock: check again when it is due.
                m.session =
                        timer.schedule(
                                () -> maybeExpire(g, m),
                                settings.sessionTimeoutMs() + 1L - silent,
                                TimeUnit.MILLISECONDS);
                return;
            }
            LOG.info(
                    "Member {} of consumer group {} expired after {} ms without a heartbeat",
                    m.id,
                    g.id,
                    silent);
            remove(g, m);
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

    private ConsumerAssignor assignor(String name) {
        for (ConsumerAssignor a : settings.assignors()) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        return null;
    }

    private String assignorNames() {
        List<String> names = new ArrayList<>();
        settings.assignors().forEach(a -> names.add(a.name()));
        return String.join(", ", names);
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
        boolean memberOfBefore =
                memberEpoch > 0 && memberId != null && !memberId.isEmpty() && recovering();
        if (g == null) {
            // Within a session timeout of a restart, a member of before (of a consumer group, or a
            // classic one: the request cannot tell) may commit what it consumed before it
            // heartbeats again, rather than be told it is unknown.
            return memberOfBefore && existedBefore.test(groupId) && !classicGroupInUse.test(groupId)
                    ? Optional.of(Errors.NONE)
                    : Optional.empty();
        }
        synchronized (g) {
            if (memberOfBefore && g.recoveringUntilMs > 0 && !g.members.containsKey(memberId)) {
                return Optional.of(Errors.NONE);
            }
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
    }
}

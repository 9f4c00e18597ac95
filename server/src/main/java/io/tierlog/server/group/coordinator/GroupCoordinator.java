package io.tierlog.server.group.coordinator;

import io.tierlog.common.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minimal single-server coordinator for Kafka's classic consumer-group protocol: JoinGroup /
 * SyncGroup rebalances with a leader that computes the assignment (the client's assignor), session
 * expiry by heartbeat, LeaveGroup, and committed offsets ({@link OffsetStore}).
 *
 * <p>Rebalance: a join (or a leave, or an expired member) moves the group to "preparing"; it
 * completes when every known member has sent JoinGroup, or when the largest rebalance timeout
 * passes (members that did not rejoin are dropped). Then the generation increases, the leader (the
 * previous one if still present, else the first member) receives all members' metadata and the
 * others an empty list; the leader's SyncGroup hands every member its assignment. Static membership
 * and the new (KIP-848) protocol are not supported.
 *
 * <p>Time: every deadline is a point on the injected {@link Time} (a member's last contact plus its
 * session timeout, a rebalance's start plus the largest rebalance timeout), checked by tasks on the
 * injected timer: one due at each deadline, so that a member expires on the first millisecond after
 * its session timeout, and a periodic check that catches any deadline a task reached early (with a
 * clock that is not the timer's). A test drives both with a manual clock and scheduler.
 *
 * <p>Thread-safe: each group's state is guarded by the group's monitor; futures complete outside
 * it.
 */
public final class GroupCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);
    static final int MIN_SESSION_TIMEOUT_MS = 1000;
    static final int MAX_SESSION_TIMEOUT_MS = 1_800_000;

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

    /** Kafka's name of a group that does not exist. */
    public static final String DEAD = "Dead";

    /** The only group type this coordinator runs. */
    public static final String CLASSIC = "classic";

    private static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    /** A group as ListGroups shows it: protocol type ("" when unknown) and Kafka's state name. */
    public record GroupListing(String groupId, String protocolType, String state) {}

    /** A member as DescribeGroups shows it (metadata and assignment empty unless Stable). */
    public record MemberDescription(
            String memberId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment) {}

    /** A group as DescribeGroups shows it; {@code protocolName} is "" unless Stable. */
    public record GroupDescription(
            String groupId,
            String state,
            String protocolType,
            String protocolName,
            List<MemberDescription> members) {}

    /** OffsetDelete outcome: a group-level error, or one error per partition asked. */
    public record OffsetDeleteResult(Errors error, Map<TopicPartition, Errors> partitions) {}

    /** One protocol a member supports (assignor name and its metadata). */
    public record Protocol(String name, byte[] metadata) {}

    /** A member as the leader sees it in the JoinGroup response. */
    public record MemberMetadata(String memberId, byte[] metadata) {}

    /** JoinGroup outcome. */
    public record JoinResult(
            Errors error,
            int generation,
            String protocolType,
            String protocolName,
            String leader,
            String memberId,
            List<MemberMetadata> members) {
        static JoinResult error(Errors e, String memberId) {
            return new JoinResult(e, -1, null, null, "", memberId, List.of());
        }
    }

    /** SyncGroup outcome. */
    public record SyncResult(
            Errors error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(Errors e) {
            return new SyncResult(e, null, null, new byte[0]);
        }
    }

    private static final class Member {
        final String id;
        String clientId = "";
        String clientHost = "";
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;
        List<Protocol> protocols;
        long lastSeenMs;
        ScheduledFuture<?> expiry; // the check due when the session times out
        CompletableFuture<JoinResult> join;
        CompletableFuture<SyncResult> sync;
        byte[] assignment = new byte[0];

        Member(String id) {
            this.id = id;
        }
    }

    private static final class Group {
        final String id;
        State state = State.EMPTY;
        int generation;
        String protocolType;
        String protocolName;
        String leader;
        final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
        ScheduledFuture<?> joinDeadline;
        long joinDeadlineMs;

        Group(String id) {
            this.id = id;
        }
    }

    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final OffsetStore offsets;
    private final ScheduledExecutorService timer;
    private final Time time;
    private final ScheduledFuture<?> expiry;

    private GroupCoordinator(OffsetStore offsets, ScheduledExecutorService timer, Time time) {
        this.offsets = offsets;
        this.timer = timer;
        this.time = time;
        this.expiry =
                timer.scheduleWithFixedDelay(
                        io.tierlog.common.Tasks.guarded(
                                this::expireSessions,
                                e ->
                                        LOG.error(
                                                "Group session expiry failed; retried in 500 ms",
                                                e)),
                        500,
                        500,
                        TimeUnit.MILLISECONDS);
    }

    /** Loads committed offsets from {@code metaDir/groups}; {@code timer} runs expiries. */
    public static GroupCoordinator open(Path metaDir, ScheduledExecutorService timer, Time time)
            throws IOException {
        return new GroupCoordinator(OffsetStore.open(metaDir), timer, time);
    }

    /** As {@link #open(Path, ScheduledExecutorService, Time)}, with the offsets' durability. */
    public static GroupCoordinator open(
            Path metaDir,
            ScheduledExecutorService timer,
            Time time,
            OffsetStore.Durability durability)
            throws IOException {
        return new GroupCoordinator(OffsetStore.open(metaDir, durability), timer, time);
    }

    public CompletableFuture<JoinResult> join(
            String groupId,
            String memberId,
            String clientId,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String protocolType,
            List<Protocol> protocols) {
        return join(
                groupId,
                memberId,
                clientId,
                "",
                sessionTimeoutMs,
                rebalanceTimeoutMs,
                protocolType,
                protocols);
    }

    /**
     * A member joins (a new one when {@code memberId} is empty); {@code clientHost} is shown by
     * DescribeGroups, as Kafka shows it ({@code /<ip>}).
     */
    public CompletableFuture<JoinResult> join(
            String groupId,
            String memberId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String protocolType,
            List<Protocol> protocols) {
        if (groupId == null || groupId.isEmpty()) {
            return CompletableFuture.completedFuture(
                    JoinResult.error(Errors.INVALID_GROUP_ID, memberId));
        }
        if (sessionTimeoutMs < MIN_SESSION_TIMEOUT_MS
                || sessionTimeoutMs > MAX_SESSION_TIMEOUT_MS) {
            return CompletableFuture.completedFuture(
                    JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, memberId));
        }
        if (protocols.isEmpty() || protocolType == null || protocolType.isEmpty()) {
            return CompletableFuture.completedFuture(
                    JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
        }
        Group g = groups.computeIfAbsent(groupId, Group::new);
        List<Runnable> after = new ArrayList<>();
        CompletableFuture<JoinResult> result;
        synchronized (g) {
            if (!g.members.isEmpty() && !protocolType.equals(g.protocolType)) {
                return CompletableFuture.completedFuture(
                        JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
            }
            Member m;
            if (memberId == null || memberId.isEmpty()) {
                m = new Member((clientId == null ? "member" : clientId) + "-" + UUID.randomUUID());
                g.members.put(m.id, m);
            } else {
                m = g.members.get(memberId);
                if (m == null) {
                    return CompletableFuture.completedFuture(
                            JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
                }
            }
            g.protocolType = protocolType;
            m.clientId = clientId == null ? "" : clientId;
            m.clientHost = clientHost == null ? "" : clientHost;
            m.sessionTimeoutMs = sessionTimeoutMs;
            m.rebalanceTimeoutMs = Math.max(rebalanceTimeoutMs, sessionTimeoutMs);
            m.protocols = List.copyOf(protocols);
            touch(g, m);
            if (m.join != null) {
                CompletableFuture<JoinResult> old = m.join;
                after.add(() -> old.complete(JoinResult.error(Errors.REBALANCE_IN_PROGRESS, m.id)));
            }
            m.join = new CompletableFuture<>();
            result = m.join;
            if (g.state != State.PREPARING_REBALANCE) {
                prepareRebalance(g, after);
            }
            maybeCompleteJoin(g, after);
        }
        after.forEach(Runnable::run);
        return result;
    }

    public CompletableFuture<SyncResult> sync(
            String groupId, int generation, String memberId, Map<String, byte[]> assignments) {
        Group g = groups.get(groupId);
        if (g == null) {
            return CompletableFuture.completedFuture(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        List<Runnable> after = new ArrayList<>();
        CompletableFuture<SyncResult> result;
        synchronized (g) {
            Member m = g.members.get(memberId);
            if (m == null) {
                return CompletableFuture.completedFuture(
                        SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            }
            touch(g, m);
            if (generation != g.generation) {
                return CompletableFuture.completedFuture(
                        SyncResult.error(Errors.ILLEGAL_GENERATION));
            }
            if (g.state == State.PREPARING_REBALANCE) {
                return CompletableFuture.completedFuture(
                        SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
            }
            if (g.state == State.STABLE) {
                return CompletableFuture.completedFuture(
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
            }
        }
        after.forEach(Runnable::run);
        return result;
    }

    public Errors heartbeat(String groupId, int generation, String memberId) {
        return checkMember(groups.get(groupId), generation, memberId);
    }

    /**
     * What a heartbeat (or a commit) of {@code memberId} at {@code generation} is told; a known
     * member's session is kept alive.
     */
    private Errors checkMember(Group g, int generation, String memberId) {
        if (g == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        synchronized (g) {
            Member m = g.members.get(memberId);
            if (m == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            touch(g, m);
            if (generation != g.generation) {
                return Errors.ILLEGAL_GENERATION;
            }
            return g.state == State.PREPARING_REBALANCE
                    ? Errors.REBALANCE_IN_PROGRESS
                    : Errors.NONE;
        }
    }

    /** Removes a member; others rebalance. */
    public Errors leave(String groupId, String memberId) {
        Group g = groups.get(groupId);
        if (g == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        List<Runnable> after = new ArrayList<>();
        synchronized (g) {
            Member m = g.members.get(memberId);
            if (m == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            remove(g, m, after);
        }
        after.forEach(Runnable::run);
        return Errors.NONE;
    }

    /**
     * Checks that a member may commit offsets for the group: a generation-less commit (-1, "") is
     * allowed when the group has no members (assign() consumers); otherwise the member and its
     * generation must be current.
     */
    public Errors checkCommit(String groupId, int generation, String memberId) {
        Group g = groups.get(groupId);
        if (generation < 0 && (memberId == null || memberId.isEmpty())) {
            if (g == null) {
                return Errors.NONE;
            }
            synchronized (g) {
                return g.members.isEmpty() ? Errors.NONE : Errors.ILLEGAL_GENERATION;
            }
        }
        return checkMember(g, generation, memberId);
    }

    public void commit(String groupId, Map<TopicPartition, OffsetStore.Committed> committed)
            throws IOException {
        offsets.commit(groupId, committed);
    }

    public Optional<OffsetStore.Committed> committed(String groupId, TopicPartition tp) {
        return offsets.committed(groupId, tp);
    }

    public Map<TopicPartition, OffsetStore.Committed> committed(String groupId) {
        return offsets.all(groupId);
    }

    /** Every group: those with members or in memory, and those that only have committed offsets. */
    public List<GroupListing> listGroups() {
        Map<String, GroupListing> out = new java.util.TreeMap<>();
        for (String id : offsets.groupIds()) {
            out.put(id, new GroupListing(id, "", State.EMPTY.kafkaName));
        }
        for (Group g : groups.values()) {
            synchronized (g) {
                out.put(
                        g.id,
                        new GroupListing(
                                g.id,
                                g.protocolType == null ? "" : g.protocolType,
                                g.state.kafkaName));
            }
        }
        return List.copyOf(out.values());
    }

    /**
     * A group's state and members; empty when it has neither members nor committed offsets (Kafka
     * then answers Dead or GROUP_ID_NOT_FOUND). As in Kafka, member metadata, assignments and the
     * protocol name are only shown when the group is Stable.
     */
    public Optional<GroupDescription> describeGroup(String groupId) {
        Group g = groups.get(groupId);
        if (g == null) {
            return offsets.groupIds().contains(groupId)
                    ? Optional.of(
                            new GroupDescription(groupId, State.EMPTY.kafkaName, "", "", List.of()))
                    : Optional.empty();
        }
        synchronized (g) {
            boolean stable = g.state == State.STABLE;
            List<MemberDescription> members = new ArrayList<>();
            for (Member m : g.members.values()) {
                members.add(
                        new MemberDescription(
                                m.id,
                                m.clientId,
                                m.clientHost,
                                stable ? metadataFor(m, g.protocolName) : new byte[0],
                                stable ? m.assignment : new byte[0]));
            }
            return Optional.of(
                    new GroupDescription(
                            g.id,
                            g.state.kafkaName,
                            g.protocolType == null ? "" : g.protocolType,
                            stable ? g.protocolName : "",
                            members));
        }
    }

    /**
     * Deletes a group and its committed offsets (durably), as Kafka's DeleteGroups: {@code
     * GROUP_ID_NOT_FOUND} if unknown, {@code NON_EMPTY_GROUP} while it has members. Blocks on
     * fsync.
     */
    public Errors deleteGroup(String groupId) throws IOException {
        if (groupId == null || groupId.isEmpty()) {
            return Errors.INVALID_GROUP_ID;
        }
        Group g = groups.get(groupId);
        boolean known = false;
        if (g != null) {
            synchronized (g) {
                if (g.state != State.EMPTY || !g.members.isEmpty()) {
                    return Errors.NON_EMPTY_GROUP;
                }
                known = groups.remove(groupId, g);
            }
        }
        known |= offsets.deleteGroup(groupId);
        return known ? Errors.NONE : Errors.GROUP_ID_NOT_FOUND;
    }

    /**
     * Deletes committed offsets (durably), as Kafka's OffsetDelete for a classic group: {@code
     * GROUP_ID_NOT_FOUND} if the group is unknown, {@code NON_EMPTY_GROUP} if it has members but is
     * not a consumer group; a partition of a topic that a member of the current generation
     * subscribes to answers {@code GROUP_SUBSCRIBED_TO_TOPIC}, any other {@code NONE} (whether or
     * not it had an offset). Blocks on fsync.
     */
    public OffsetDeleteResult deleteOffsets(
            String groupId, java.util.Collection<TopicPartition> partitions) throws IOException {
        if (groupId == null || groupId.isEmpty()) {
            return new OffsetDeleteResult(Errors.INVALID_GROUP_ID, Map.of());
        }
        Group g = groups.get(groupId);
        java.util.Set<String> subscribed = java.util.Set.of();
        if (g != null) {
            synchronized (g) {
                if (!g.members.isEmpty()) {
                    if (!CONSUMER_PROTOCOL_TYPE.equals(g.protocolType)) {
                        return new OffsetDeleteResult(Errors.NON_EMPTY_GROUP, Map.of());
                    }
                    subscribed = subscribedTopics(g);
                }
            }
        } else if (!offsets.groupIds().contains(groupId)) {
            return new OffsetDeleteResult(Errors.GROUP_ID_NOT_FOUND, Map.of());
        }
        Map<TopicPartition, Errors> out = new LinkedHashMap<>();
        List<TopicPartition> deletable = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            if (subscribed.contains(tp.topic())) {
                out.put(tp, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
            } else {
                out.put(tp, Errors.NONE);
                deletable.add(tp);
            }
        }
        offsets.delete(groupId, deletable);
        return new OffsetDeleteResult(Errors.NONE, out);
    }

    /**
     * The topics the members subscribe to, from their consumer-protocol metadata for the chosen
     * protocol; none before a protocol is chosen or when any metadata cannot be parsed (as Kafka's
     * classic group). Called under {@code g}'s monitor.
     */
    private static java.util.Set<String> subscribedTopics(Group g) {
        if (g.protocolName == null) {
            return java.util.Set.of();
        }
        java.util.Set<String> topics = new java.util.HashSet<>();
        try {
            for (Member m : g.members.values()) {
                topics.addAll(
                        org.apache.kafka.clients.consumer.internals.ConsumerProtocol
                                .deserializeSubscription(
                                        java.nio.ByteBuffer.wrap(metadataFor(m, g.protocolName)))
                                .topics());
            }
        } catch (RuntimeException e) {
            return java.util.Set.of();
        }
        return topics;
    }

    private void prepareRebalance(Group g, List<Runnable> after) {
        g.state = State.PREPARING_REBALANCE;
        for (Member m : g.members.values()) {
            if (m.sync != null) {
                CompletableFuture<SyncResult> f = m.sync;
                after.add(() -> f.complete(SyncResult.error(Errors.REBALANCE_IN_PROGRESS)));
                m.sync = null;
            }
        }
        int timeout = 0;
        for (Member m : g.members.values()) {
            timeout = Math.max(timeout, m.rebalanceTimeoutMs);
        }
        if (g.joinDeadline != null) {
            g.joinDeadline.cancel(false);
        }
        long delay = Math.max(timeout, 1000);
        g.joinDeadlineMs = time.milliseconds() + delay;
        g.joinDeadline = timer.schedule(() -> onJoinDeadline(g), delay, TimeUnit.MILLISECONDS);
    }

    /**
     * A member was heard from: its session restarts, and the check of its expiry moves to the first
     * millisecond after the new deadline. Called under {@code g}'s monitor.
     */
    private void touch(Group g, Member m) {
        m.lastSeenMs = time.milliseconds();
        if (m.expiry != null) {
            m.expiry.cancel(false);
        }
        m.expiry =
                timer.schedule(
                        () -> expireSessions(g), m.sessionTimeoutMs + 1L, TimeUnit.MILLISECONDS);
    }

    private void onJoinDeadline(Group g) {
        List<Runnable> after = new ArrayList<>();
        synchronized (g) {
            if (g.state != State.PREPARING_REBALANCE || time.milliseconds() < g.joinDeadlineMs) {
                return; // completed meanwhile, or early by the clock (the periodic check waits)
            }
            g.members.values().removeIf(m -> m.join == null);
            if (g.members.isEmpty()) {
                g.state = State.EMPTY;
                g.generation++;
            } else {
                completeJoin(g, after);
            }
        }
        after.forEach(Runnable::run);
    }

    private void maybeCompleteJoin(Group g, List<Runnable> after) {
        for (Member m : g.members.values()) {
            if (m.join == null) {
                return;
            }
        }
        if (!g.members.isEmpty()) {
            completeJoin(g, after);
        }
    }

    private void completeJoin(Group g, List<Runnable> after) {
        if (g.joinDeadline != null) {
            g.joinDeadline.cancel(false);
            g.joinDeadline = null;
        }
        String protocol = chooseProtocol(g);
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
            g.state = State.EMPTY;
            return;
        }
        g.protocolName = protocol;
        if (g.leader == null || !g.members.containsKey(g.leader)) {
            g.leader = g.members.keySet().iterator().next();
        }
        List<MemberMetadata> all = new ArrayList<>();
        for (Member m : g.members.values()) {
            all.add(new MemberMetadata(m.id, metadataFor(m, protocol)));
        }
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

    /** The leader's most preferred protocol that every member supports. */
    private static String chooseProtocol(Group g) {
        Member first = g.members.values().iterator().next();
        for (Protocol p : first.protocols) {
            boolean all = true;
            for (Member m : g.members.values()) {
                all &= m.protocols.stream().anyMatch(q -> q.name().equals(p.name()));
            }
            if (all) {
                return p.name();
            }
        }
        return null;
    }

    private static byte[] metadataFor(Member m, String protocol) {
        for (Protocol p : m.protocols) {
            if (p.name().equals(protocol)) {
                return p.metadata();
            }
        }
        return new byte[0];
    }

    private void remove(Group g, Member m, List<Runnable> after) {
        g.members.remove(m.id);
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
            g.state = State.EMPTY;
            g.leader = null;
            g.generation++;
        } else if (g.state == State.PREPARING_REBALANCE) {
            maybeCompleteJoin(g, after);
        } else {
            prepareRebalance(g, after);
        }
    }

    private void expireSessions() {
        for (Group g : groups.values()) {
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
    private void expireSessions(Group g) {
        long now = time.milliseconds();
        List<Runnable> after = new ArrayList<>();
        synchronized (g) {
            Iterator<Member> it = new ArrayList<>(g.members.values()).iterator();
            while (it.hasNext()) {
                Member m = it.next();
                if (m.join == null && m.sync == null && now - m.lastSeenMs > m.sessionTimeoutMs) {
                    remove(g, m, after);
                }
            }
            if (g.members.isEmpty() && g.state == State.EMPTY) {
                // Forget idle groups (their committed offsets stay in the offset store); a
                // join racing with this lands in a detached group and is told to rejoin.
                groups.remove(g.id, g);
            }
        }
        after.forEach(Runnable::run);
    }

    /**
     * Cancels the coordinator's tasks on the timer (which belongs to the caller) and closes the
     * offsets (fsyncing their journal).
     */
    @Override
    public void close() {
        expiry.cancel(false);
        try {
            offsets.close();
        } catch (IOException e) {
            LOG.warn("Cannot fsync the committed group offsets at close: {}", e.toString());
        }
        for (Group g : groups.values()) {
            synchronized (g) {
                if (g.joinDeadline != null) {
                    g.joinDeadline.cancel(false);
                }
                for (Member m : g.members.values()) {
                    if (m.expiry != null) {
                        m.expiry.cancel(false);
                    }
                }
            }
        }
    }
}

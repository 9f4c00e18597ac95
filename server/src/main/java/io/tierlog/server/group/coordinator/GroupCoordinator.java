package io.tierlog.server.group.coordinator;

import io.tierlog.common.Time;
import io.tierlog.server.group.coordinator.ClassicGroup.Member;
import io.tierlog.server.group.coordinator.ClassicGroup.State;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-server coordinator for Kafka's classic consumer-group protocol, as Kafka 4.4's classic
 * group coordinator behaves: JoinGroup / SyncGroup rebalances with a leader that computes the
 * assignment (the client's assignor), session expiry by heartbeat, LeaveGroup, static membership
 * (KIP-345), the member id handed out with {@code MEMBER_ID_REQUIRED} before a first join
 * (KIP-394), and committed offsets ({@link OffsetStore}). The group's state lives in {@link
 * ClassicGroup}.
 *
 * <p>Rebalance: a new member (or a leave, a changed subscription, the leader rejoining, an expired
 * member) moves the group to PreparingRebalance; it completes when every known member has sent
 * JoinGroup and no handed-out id is still to rejoin, or when the largest rebalance timeout passes
 * (members that did not rejoin are dropped). Then the generation increases, the leader (the
 * previous one if still present, else the first member) receives all members' metadata and the
 * others an empty list; the leader's SyncGroup hands every member its assignment. A follower that
 * rejoins with unchanged metadata while the group is Stable gets the current generation back.
 *
 * <p>Static members: a JoinGroup with a {@code group.instance.id} already held by a member takes
 * that member's place under a new member id with its assignment; while the group is Stable and the
 * chosen protocol stays, without a rebalance (the other members see no new generation). The old
 * member id is fenced: its pending and later requests get {@code FENCED_INSTANCE_ID}. A static
 * member is removed only by its session timeout or by a LeaveGroup naming its instance id.
 *
 * <p>Durability: each group's membership as of its last Stable generation is persisted ({@link
 * GroupMetadataStore}) off the caller's thread, and all of it on {@link #close}; a reopened
 * coordinator starts each persisted group Stable with those members, whose sessions restart (as
 * Kafka loads its group metadata on a coordinator change). A crash can lose the last persisted
 * change: members then see {@code UNKNOWN_MEMBER_ID} or {@code ILLEGAL_GENERATION} and rejoin.
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

    /** Kafka's name of a group that does not exist. */
    public static final String DEAD = "Dead";

    /** The only group type this coordinator runs. */
    public static final String CLASSIC = "classic";

    private static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    /** A group as ListGroups shows it: protocol type ("" when unknown) and Kafka's state name. */
    public record GroupListing(String groupId, String protocolType, String state) {}

    /**
     * A member as DescribeGroups shows it (metadata and assignment empty unless Stable); {@code
     * groupInstanceId} null for a dynamic member.
     */
    public record MemberDescription(
            String memberId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment,
            String groupInstanceId) {
        public MemberDescription(
                String memberId,
                String clientId,
                String clientHost,
                byte[] metadata,
                byte[] assignment) {
            this(memberId, clientId, clientHost, metadata, assignment, null);
        }
    }

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
    public record MemberMetadata(String memberId, byte[] metadata, String groupInstanceId) {
        public MemberMetadata(String memberId, byte[] metadata) {
            this(memberId, metadata, null);
        }
    }

    /**
     * A JoinGroup as the coordinator needs it. {@code memberId} empty for a first join; {@code
     * groupInstanceId} null for a dynamic member; {@code requireKnownMemberId} (JoinGroup v4+): a
     * new dynamic member is given its id with {@code MEMBER_ID_REQUIRED} and must join again with
     * it; {@code supportsSkipAssignment} (v9+): a leader may be told its assignment stands.
     */
    public record JoinRequest(
            String groupId,
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String protocolType,
            List<Protocol> protocols,
            boolean requireKnownMemberId,
            boolean supportsSkipAssignment) {}

    /** JoinGroup outcome; {@code skipAssignment}: the leader's current assignment stands. */
    public record JoinResult(
            Errors error,
            int generation,
            String protocolType,
            String protocolName,
            String leader,
            String memberId,
            List<MemberMetadata> members,
            boolean skipAssignment) {
        public JoinResult(
                Errors error,
                int generation,
                String protocolType,
                String protocolName,
                String leader,
                String memberId,
                List<MemberMetadata> members) {
            this(error, generation, protocolType, protocolName, leader, memberId, members, false);
        }

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

    /** One member a LeaveGroup names: by member id, or (member id "") by group instance id. */
    public record Leaving(String memberId, String groupInstanceId) {}

    /** LeaveGroup outcome: a group-level error, and one error per member named, in order. */
    public record LeaveResult(Errors error, List<Errors> members) {}

    private final Map<String, ClassicGroup> groups = new ConcurrentHashMap<>();
    private final OffsetStore offsets;
    private final Rebalances rebalances;
    private final Joins joins;
    private final ScheduledFuture<?> expiry;
    private volatile ConsumerGroupCheck consumerGroupCheck = (g, m, e) -> Optional.empty();

    private GroupCoordinator(
            OffsetStore offsets,
            GroupMetadataStore membership,
            ScheduledExecutorService timer,
            Time time) {
        this.offsets = offsets;
        this.rebalances = new Rebalances(groups, offsets, membership, timer, time);
        this.joins = new Joins(groups, rebalances, timer);
        this.expiry =
                timer.scheduleWithFixedDelay(
                        io.tierlog.common.Tasks.guarded(
                                rebalances::expireSessions,
                                e ->
                                        LOG.error(
                                                "Group session expiry failed; retried in 500 ms",
                                                e)),
                        500,
                        500,
                        TimeUnit.MILLISECONDS);
    }

    /**
     * Loads committed offsets from {@code metaDir/groups} and the groups' membership from {@code
     * metaDir/group-members}; {@code timer} runs expiries and the membership writes.
     */
    public static GroupCoordinator open(Path metaDir, ScheduledExecutorService timer, Time time)
            throws IOException {
        return open(metaDir, timer, time, OffsetStore.Durability.PAGE_CACHE);
    }

    /** As {@link #open(Path, ScheduledExecutorService, Time)}, with the offsets' durability. */
    public static GroupCoordinator open(
            Path metaDir,
            ScheduledExecutorService timer,
            Time time,
            OffsetStore.Durability durability)
            throws IOException {
        List<GroupMetadataStore.Snapshot> loaded = new ArrayList<>();
        GroupMetadataStore membership = GroupMetadataStore.open(metaDir, loaded);
        GroupCoordinator c =
                new GroupCoordinator(
                        OffsetStore.open(metaDir, durability), membership, timer, time);
        for (GroupMetadataStore.Snapshot s : loaded) {
            c.restore(s);
        }
        return c;
    }

    private void restore(GroupMetadataStore.Snapshot s) {
        ClassicGroup g = new ClassicGroup(s.groupId());
        synchronized (g) {
            g.generation = s.generation();
            g.protocolType = s.protocolType();
            g.protocolName = s.protocolName();
            for (GroupMetadataStore.MemberSnapshot ms : s.members()) {
                Member m = new Member(ms.id(), ms.instanceId());
                m.clientId = ms.clientId();
                m.clientHost = ms.clientHost();
                m.sessionTimeoutMs = ms.sessionTimeoutMs();
                m.rebalanceTimeoutMs = ms.rebalanceTimeoutMs();
                m.protocols = List.of(new Protocol(s.protocolName(), ms.metadata()));
                m.assignment = ms.assignment();
                g.add(m);
                rebalances.touch(g, m);
            }
            g.leader =
                    s.leader() != null && g.members.containsKey(s.leader())
                            ? s.leader()
                            : g.members.keySet().iterator().next();
            g.state = State.STABLE;
        }
        groups.put(g.id, g);
        LOG.info(
                "Group {} restored Stable at generation {} with {} members",
                g.id,
                g.generation,
                s.members().size());
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
     * A dynamic member joins (a new one when {@code memberId} is empty, admitted at once as
     * JoinGroup v0-v3 is); {@code clientHost} is shown by DescribeGroups, as Kafka shows it ({@code
     * /<ip>}).
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
        return join(
                new JoinRequest(
                        groupId,
                        memberId,
                        null,
                        clientId,
                        clientHost,
                        sessionTimeoutMs,
                        rebalanceTimeoutMs,
                        protocolType,
                        protocols,
                        false,
                        false));
    }

    /** A member joins; see the class comment for what each kind of join does. */
    public CompletableFuture<JoinResult> join(JoinRequest r) {
        return joins.join(r);
    }

    public CompletableFuture<SyncResult> sync(
            String groupId, int generation, String memberId, Map<String, byte[]> assignments) {
        return sync(groupId, generation, memberId, null, assignments);
    }

    /**
     * SyncGroup; {@code groupInstanceId} null for a dynamic member. The leader's assignments
     * complete the rebalance; the others wait for them.
     */
    public CompletableFuture<SyncResult> sync(
            String groupId,
            int generation,
            String memberId,
            String groupInstanceId,
            Map<String, byte[]> assignments) {
        return rebalances.sync(groupId, generation, memberId, groupInstanceId, assignments);
    }

    public Errors heartbeat(String groupId, int generation, String memberId) {
        return heartbeat(groupId, generation, memberId, null);
    }

    /**
     * Heartbeat; {@code groupInstanceId} null for a dynamic member. {@code REBALANCE_IN_PROGRESS}
     * tells the member to rejoin.
     */
    public Errors heartbeat(
            String groupId, int generation, String memberId, String groupInstanceId) {
        return rebalances.heartbeat(groupId, generation, memberId, groupInstanceId);
    }

    /** Removes a dynamic member; others rebalance. */
    public Errors leave(String groupId, String memberId) {
        LeaveResult r = leave(groupId, List.of(new Leaving(memberId, null)));
        return r.error() != Errors.NONE ? r.error() : r.members().get(0);
    }

    /**
     * LeaveGroup, as Kafka's: each member named by member id (checked against its instance id, if
     * given) or, with member id "", by instance id (an administrative removal); an unknown group is
     * a group-level {@code UNKNOWN_MEMBER_ID}. The others rebalance.
     */
    public LeaveResult leave(String groupId, List<Leaving> leaving) {
        return rebalances.leave(groupId, leaving);
    }

    /** As {@link #checkCommit(String, int, String, String)} for a member without instance id. */
    public Errors checkCommit(String groupId, int generation, String memberId) {
        return checkCommit(groupId, generation, memberId, null);
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
    public Errors checkCommit(
            String groupId, int generation, String memberId, String groupInstanceId) {
        return rebalances.checkCommit(groupId, generation, memberId, groupInstanceId);
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

    /**
     * How a KIP-848 consumer group checks an offset commit of one of its members: empty when {@code
     * groupId} is no consumer group (the classic rules apply), else {@code NONE}, {@code
     * UNKNOWN_MEMBER_ID} or {@code STALE_MEMBER_EPOCH}. Thread-safe.
     */
    @FunctionalInterface
    public interface ConsumerGroupCheck {
        Optional<Errors> checkCommit(String groupId, String memberId, int memberEpoch);
    }

    /**
     * Makes transactional offset commits of consumer groups check member epochs with {@code check}
     * (set once at startup, before requests are served; without it every group is classic).
     */
    public void useConsumerGroups(ConsumerGroupCheck check) {
        this.consumerGroupCheck = check;
    }

    /**
     * TxnOffsetCommit: records {@code offsets} of {@code groupId} as pending in the transaction of
     * {@code producerId} (durably, in the offsets journal); they become the committed offsets when
     * {@link #completeTransaction} commits that transaction (unless a plain commit of the same
     * partition came after them), and are dropped when it aborts. The member is checked as Kafka's
     * {@code validateTransactionalOffsetCommit} does: a classic group its member id, instance id
     * and generation ({@code ILLEGAL_GENERATION}, {@code UNKNOWN_MEMBER_ID}, {@code
     * FENCED_INSTANCE_ID}; no check of the group's state, and a commit without member and
     * generation is accepted), a consumer group its member epoch ({@code STALE_MEMBER_EPOCH}
     * answered as {@code ILLEGAL_GENERATION}); an unknown group accepts only generation -1. A
     * producer epoch below the one of offsets already pending for {@code producerId} is {@code
     * INVALID_PRODUCER_EPOCH}. The caller checks the partitions exist and the producer's
     * transaction state; {@code memberId} is "" and {@code generation} -1 for TxnOffsetCommit v0-2.
     * Blocks on the journal write (call it from the blocking executor).
     *
     * @return one error per partition of {@code offsets} (the same group-level error for all)
     * @throws IOException the offsets could not be persisted (nothing was acknowledged)
     */
    public Map<TopicPartition, Errors> txnCommitOffsets(
            String groupId,
            long producerId,
            short producerEpoch,
            String memberId,
            int generation,
            String groupInstanceId,
            Map<TopicPartition, OffsetStore.Committed> offsets)
            throws IOException {
        Errors e =
                consumerGroupCheck
                        .checkCommit(groupId, memberId, generation)
                        .map(c -> c == Errors.STALE_MEMBER_EPOCH ? Errors.ILLEGAL_GENERATION : c)
                        .orElseGet(
                                () ->
                                        rebalances.checkTxnCommit(
                                                groupId, generation, memberId, groupInstanceId));
        if (e == Errors.NONE
                && !this.offsets.txnCommit(groupId, producerId, producerEpoch, offsets)) {
            e = Errors.INVALID_PRODUCER_EPOCH;
        }
        Map<TopicPartition, Errors> out = new LinkedHashMap<>();
        for (TopicPartition tp : offsets.keySet()) {
            out.put(tp, e);
        }
        return out;
    }

    /**
     * The group side of a transaction marker: applies (commit) or drops (abort) the offsets pending
     * in {@code groupId} for {@code producerId}, and journals that outcome, so that a restart does
     * not find them pending again. Idempotent: with nothing pending it does nothing (a marker
     * re-sent after a coordinator restart). Runs on the calling thread and blocks on the journal
     * write; the future is complete when this returns: normally once the outcome is durable,
     * exceptionally with an {@code IOException} (retry later) or {@code
     * InvalidProducerEpochException} (the marker's epoch is below the pending offsets' epoch: a
     * zombie coordinator's marker, nothing changed).
     */
    public CompletableFuture<Void> completeTransaction(
            String groupId, long producerId, short producerEpoch, boolean commit) {
        try {
            if (offsets.endTxn(groupId, producerId, producerEpoch, commit)
                    == OffsetStore.TxnEnd.FENCED) {
                return CompletableFuture.failedFuture(
                        new InvalidProducerEpochException(
                                "Group "
                                        + groupId
                                        + " has offsets of producer "
                                        + producerId
                                        + " pending at an epoch above the marker's "
                                        + producerEpoch));
            }
            return CompletableFuture.completedFuture(null);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether some transaction has offsets of {@code tp} pending in {@code groupId} (OffsetFetch
     * with {@code require_stable} then answers {@code UNSTABLE_OFFSET_COMMIT}). Lock-free.
     */
    public boolean hasPendingTxnOffsets(String groupId, TopicPartition tp) {
        return offsets.hasPendingTxnOffsets(groupId, tp);
    }

    /** Every group: those with members or in memory, and those that only have committed offsets. */
    public List<GroupListing> listGroups() {
        Map<String, GroupListing> out = new TreeMap<>();
        for (String id : offsets.groupIds()) {
            out.put(id, new GroupListing(id, "", State.EMPTY.kafkaName));
        }
        for (ClassicGroup g : groups.values()) {
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
        ClassicGroup g = groups.get(groupId);
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
                                stable ? m.metadataFor(g.protocolName) : new byte[0],
                                stable ? m.assignment : new byte[0],
                                m.instanceId));
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
        ClassicGroup g = groups.get(groupId);
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
    public OffsetDeleteResult deleteOffsets(String groupId, Collection<TopicPartition> partitions)
            throws IOException {
        if (groupId == null || groupId.isEmpty()) {
            return new OffsetDeleteResult(Errors.INVALID_GROUP_ID, Map.of());
        }
        ClassicGroup g = groups.get(groupId);
        Set<String> subscribed = Set.of();
        if (g != null) {
            synchronized (g) {
                if (!g.members.isEmpty()) {
                    if (!CONSUMER_PROTOCOL_TYPE.equals(g.protocolType)) {
                        return new OffsetDeleteResult(Errors.NON_EMPTY_GROUP, Map.of());
                    }
                    subscribed = g.subscribedTopics();
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
     * Cancels the coordinator's tasks on the timer (which belongs to the caller), closes the
     * offsets (fsyncing their journal) and writes every membership change not persisted yet, so
     * that a restart finds it.
     */
    @Override
    public void close() {
        expiry.cancel(false);
        for (ClassicGroup g : groups.values()) {
            rebalances.closeGroup(g);
        }
        rebalances.flush();
        try {
            offsets.close();
        } catch (IOException e) {
            LOG.warn("Cannot fsync the committed group offsets at close: {}", e.toString());
        }
    }
}

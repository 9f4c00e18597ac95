package io.tierlog.server.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup through their handlers: the messages carry what
 * the coordinator decided (member ids, generations, the leader, assignments, error codes).
 */
class GroupMembershipHandlersTest extends HandlerTestBase {
    private static final short JOIN_V5 = 5;
    private static final short SYNC_V3 = 3;
    private static final short HEARTBEAT_V3 = 3;
    private static final int SESSION_MS = 10_000;

    private CompletableFuture<ApiMessage> joinOnce(
            String memberId, String instanceId, String... protocols) {
        JoinGroupRequestProtocolCollection ps = new JoinGroupRequestProtocolCollection();
        for (String p : protocols) {
            ps.add(new JoinGroupRequestProtocol().setName(p).setMetadata(p.getBytes()));
        }
        return kit.send(
                ApiKeys.JOIN_GROUP,
                JOIN_V5,
                new JoinGroupRequestData()
                        .setGroupId("g")
                        .setMemberId(memberId)
                        .setGroupInstanceId(instanceId)
                        .setSessionTimeoutMs(SESSION_MS)
                        .setRebalanceTimeoutMs(SESSION_MS)
                        .setProtocolType("consumer")
                        .setProtocols(ps));
    }

    /** Joins as kafka-clients does: a first join is answered MEMBER_ID_REQUIRED, then again. */
    private CompletableFuture<ApiMessage> join(String memberId, String... protocols) {
        return joinOnce(memberId, null, protocols)
                .thenCompose(
                        m -> {
                            JoinGroupResponseData r = (JoinGroupResponseData) m;
                            return memberId.isEmpty()
                                            && r.errorCode() == Errors.MEMBER_ID_REQUIRED.code()
                                    ? joinOnce(r.memberId(), null, protocols)
                                    : CompletableFuture.completedFuture(m);
                        });
    }

    private static JoinGroupResponseData done(CompletableFuture<ApiMessage> f) throws Exception {
        return (JoinGroupResponseData) f.get(ServerTestKit.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private SyncGroupResponseData sync(String memberId, int generation, byte[]... assignments)
            throws Exception {
        SyncGroupRequestData req =
                new SyncGroupRequestData()
                        .setGroupId("g")
                        .setMemberId(memberId)
                        .setGenerationId(generation);
        for (int i = 0; i < assignments.length; i += 2) {
            req.assignments()
                    .add(
                            new SyncGroupRequestAssignment()
                                    .setMemberId(new String(assignments[i]))
                                    .setAssignment(assignments[i + 1]));
        }
        return (SyncGroupResponseData)
                kit.send(ApiKeys.SYNC_GROUP, SYNC_V3, req)
                        .get(ServerTestKit.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private short heartbeat(String memberId, int generation) {
        HeartbeatResponseData r =
                kit.call(
                        ApiKeys.HEARTBEAT,
                        HEARTBEAT_V3,
                        new HeartbeatRequestData()
                                .setGroupId("g")
                                .setMemberId(memberId)
                                .setGenerationId(generation));
        return r.errorCode();
    }

    @Test
    void aLoneMemberJoinsAsLeaderAndGetsItsOwnAssignmentBack() throws Exception {
        JoinGroupResponseData j = done(join("", "range", "sticky"));

        assertThat(j.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(j.memberId()).startsWith("kit-client-");
        assertThat(j.generationId()).isEqualTo(1);
        assertThat(j.leader()).isEqualTo(j.memberId());
        assertThat(j.protocolType()).isEqualTo("consumer");
        assertThat(j.protocolName()).isEqualTo("range");
        assertThat(j.members())
                .extracting(JoinGroupResponseMember::memberId)
                .containsExactly(j.memberId());
        assertThat(j.members().get(0).metadata()).isEqualTo("range".getBytes());

        SyncGroupResponseData s = sync(j.memberId(), 1, j.memberId().getBytes(), new byte[] {42});
        assertThat(s.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(s.assignment()).containsExactly(42);
        assertThat(s.protocolName()).isEqualTo("range");
        assertThat(heartbeat(j.memberId(), 1)).isEqualTo(Errors.NONE.code());
    }

    @Test
    void aSecondMemberRebalancesTheGroupAndTheLeaderAssignsBoth() throws Exception {
        JoinGroupResponseData a = done(join("", "range"));
        sync(a.memberId(), 1, a.memberId().getBytes(), new byte[] {1});

        CompletableFuture<ApiMessage> bJoin = join("", "range");
        assertThat(bJoin).as("waits for the known member to rejoin").isNotDone();
        assertThat(heartbeat(a.memberId(), 1)).isEqualTo(Errors.REBALANCE_IN_PROGRESS.code());

        JoinGroupResponseData a2 = done(join(a.memberId(), "range"));
        JoinGroupResponseData b = done(bJoin);
        assertThat(a2.generationId()).isEqualTo(2);
        assertThat(b.generationId()).isEqualTo(2);
        assertThat(a2.leader()).as("the previous leader stays").isEqualTo(a.memberId());
        assertThat(a2.members()).hasSize(2);
        assertThat(b.members()).as("followers get no member list").isEmpty();

        CompletableFuture<SyncGroupResponseData> bSync =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return sync(b.memberId(), 2);
                            } catch (Exception e) {
                                throw new AssertionError(e);
                            }
                        });
        SyncGroupResponseData aSync =
                sync(
                        a.memberId(),
                        2,
                        a.memberId().getBytes(),
                        new byte[] {1},
                        b.memberId().getBytes(),
                        new byte[] {2});
        assertThat(aSync.assignment()).containsExactly(1);
        assertThat(bSync.get(ServerTestKit.TIMEOUT_SECONDS, TimeUnit.SECONDS).assignment())
                .containsExactly(2);
        assertThat(heartbeat(a.memberId(), 1)).isEqualTo(Errors.ILLEGAL_GENERATION.code());
        assertThat(heartbeat(b.memberId(), 2)).isEqualTo(Errors.NONE.code());
    }

    @Test
    void unknownMembersAreRefusedAndAFirstDynamicJoinIsGivenItsMemberId() throws Exception {
        assertThat(done(join("nobody", "range")).errorCode())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(heartbeat("nobody", 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());

        JoinGroupResponseData first = done(joinOnce("", null, "range"));
        assertThat(first.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
        assertThat(first.memberId()).startsWith("kit-client-");
        assertThat(done(joinOnce(first.memberId(), null, "range")).errorCode())
                .isEqualTo(Errors.NONE.code());
    }

    @Test
    void aStaticMemberJoinsAtOnceIsDescribedWithItsInstanceAndItsDuplicateFencesIt()
            throws Exception {
        JoinGroupResponseData a = done(joinOnce("", "instance-1", "range"));
        assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(a.memberId()).startsWith("instance-1-");
        assertThat(a.members().get(0).groupInstanceId()).isEqualTo("instance-1");
        SyncGroupResponseData s = sync(a.memberId(), 1, a.memberId().getBytes(), new byte[] {7});
        assertThat(s.assignment()).containsExactly(7);

        org.apache.kafka.common.message.DescribeGroupsResponseData d =
                kit.call(
                        ApiKeys.DESCRIBE_GROUPS,
                        (short) 5,
                        new org.apache.kafka.common.message.DescribeGroupsRequestData()
                                .setGroups(List.of("g")));
        assertThat(d.groups().get(0).members().get(0).groupInstanceId()).isEqualTo("instance-1");

        JoinGroupResponseData again = done(joinOnce("", "instance-1", "range"));
        assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(again.generationId()).as("no rebalance").isEqualTo(1);
        assertThat(again.skipAssignment()).as("v5 has no skipAssignment").isFalse();
        HeartbeatResponseData fenced =
                kit.call(
                        ApiKeys.HEARTBEAT,
                        HEARTBEAT_V3,
                        new HeartbeatRequestData()
                                .setGroupId("g")
                                .setMemberId(a.memberId())
                                .setGroupInstanceId("instance-1")
                                .setGenerationId(1));
        assertThat(fenced.errorCode()).isEqualTo(Errors.FENCED_INSTANCE_ID.code());

        LeaveGroupResponseData removed =
                kit.call(
                        ApiKeys.LEAVE_GROUP,
                        (short) 4,
                        new LeaveGroupRequestData()
                                .setGroupId("g")
                                .setMembers(
                                        List.of(
                                                new MemberIdentity()
                                                        .setMemberId("")
                                                        .setGroupInstanceId("instance-1"))));
        assertThat(removed.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(removed.members().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(heartbeat(again.memberId(), 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    @Test
    void aMemberThatLeavesIsForgottenAndTheOthersRebalance() throws Exception {
        JoinGroupResponseData a = done(join("", "range"));
        CompletableFuture<ApiMessage> bJoin = join("", "range");
        JoinGroupResponseData a2 = done(join(a.memberId(), "range"));
        JoinGroupResponseData b = done(bJoin);
        assertThat(a2.members()).hasSize(2);

        LeaveGroupResponseData left =
                kit.call(
                        ApiKeys.LEAVE_GROUP,
                        (short) 3,
                        new LeaveGroupRequestData()
                                .setGroupId("g")
                                .setMembers(
                                        List.of(new MemberIdentity().setMemberId(b.memberId()))));

        assertThat(left.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(left.members()).hasSize(1);
        assertThat(left.members().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(heartbeat(b.memberId(), 2)).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(heartbeat(a.memberId(), 2)).isEqualTo(Errors.REBALANCE_IN_PROGRESS.code());

        LeaveGroupResponseData again =
                kit.call(
                        ApiKeys.LEAVE_GROUP,
                        (short) 1,
                        new LeaveGroupRequestData().setGroupId("g").setMemberId(b.memberId()));
        assertThat(again.errorCode()).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    @Test
    void aMemberSilentForItsSessionTimeoutIsExpiredOnTheCoordinatorsClock() throws Exception {
        kit.createTopic("orders", 1);
        JoinGroupResponseData a = done(join("", "range"));
        sync(a.memberId(), 1, a.memberId().getBytes(), new byte[] {1});
        assertThat(heartbeat(a.memberId(), 1)).isEqualTo(Errors.NONE.code());
        assertThat(anonymousCommit())
                .as("the group has a member")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());

        kit.time().advance(SESSION_MS + 1);

        // The expiry task runs on the coordinator's own timer: poll (without heartbeats, which
        // would keep the member alive) until a generation-less commit sees an empty group.
        Instant deadline = Instant.now().plus(Duration.ofSeconds(ServerTestKit.TIMEOUT_SECONDS));
        while (anonymousCommit() != Errors.NONE.code() && Instant.now().isBefore(deadline)) {
            Thread.sleep(20);
        }
        assertThat(anonymousCommit())
                .as("expired within the deadline")
                .isEqualTo(Errors.NONE.code());
        assertThat(heartbeat(a.memberId(), 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
    }

    /** A commit without member and generation, allowed only when the group has no members. */
    private short anonymousCommit() {
        OffsetCommitResponseData r =
                kit.call(
                        ApiKeys.OFFSET_COMMIT,
                        (short) 8,
                        new OffsetCommitRequestData()
                                .setGroupId("g")
                                .setGenerationIdOrMemberEpoch(-1)
                                .setMemberId("")
                                .setTopics(
                                        List.of(
                                                new OffsetCommitRequestTopic()
                                                        .setName("orders")
                                                        .setPartitions(
                                                                List.of(
                                                                        new OffsetCommitRequestPartition()
                                                                                .setPartitionIndex(
                                                                                        0)
                                                                                .setCommittedOffset(
                                                                                        5))))));
        return r.topics().get(0).partitions().get(0).errorCode();
    }
}

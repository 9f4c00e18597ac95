package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinRequest;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinResult;
import io.tierlog.server.group.coordinator.GroupCoordinator.Leaving;
import io.tierlog.server.group.coordinator.GroupCoordinator.MemberDescription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Static membership (KIP-345), the member id required before a first join (KIP-394) and the
 * membership kept across a reopen, as Kafka 4.4's classic coordinator behaves, on a manual clock.
 */
class StaticMembershipTest {
    private static final int SESSION_MS = 10_000;

    @TempDir Path dir;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final ManualScheduler timer = new ManualScheduler(time);
    GroupCoordinator c;

    @BeforeEach
    void open() throws Exception {
        c = GroupCoordinator.open(dir, timer, time);
    }

    @AfterEach
    void close() {
        c.close();
    }

    private static List<GroupCoordinator.Protocol> range() {
        return List.of(new GroupCoordinator.Protocol("range", new byte[] {1}));
    }

    private static JoinRequest join(String memberId, String instance, boolean v9) {
        return new JoinRequest(
                "g",
                memberId,
                instance,
                "client-" + instance,
                "/127.0.0.1",
                SESSION_MS,
                SESSION_MS,
                "consumer",
                range(),
                true,
                v9);
    }

    /** Static members "a" (leader) and "b", Stable in generation 2 with assignments {1}, {2}. */
    private String[] stableStaticPair() throws Exception {
        JoinResult a = c.join(join("", "a", true)).get();
        assertThat(a.error())
                .as("a static member needs no MEMBER_ID_REQUIRED")
                .isEqualTo(Errors.NONE);
        assertThat(a.memberId()).startsWith("a-");
        c.sync("g", 1, a.memberId(), "a", Map.of()).get();
        CompletableFuture<JoinResult> b = c.join(join("", "b", true));
        JoinResult a2 = c.join(join(a.memberId(), "a", true)).get();
        JoinResult b2 = b.get();
        assertThat(a2.generation()).isEqualTo(2);
        assertThat(a2.members())
                .extracting(GroupCoordinator.MemberMetadata::groupInstanceId)
                .containsExactly("a", "b");
        CompletableFuture<GroupCoordinator.SyncResult> bSync =
                c.sync("g", 2, b2.memberId(), "b", Map.of());
        c.sync(
                        "g",
                        2,
                        a.memberId(),
                        "a",
                        Map.of(a.memberId(), new byte[] {1}, b2.memberId(), new byte[] {2}))
                .get();
        assertThat(bSync.get().assignment()).containsExactly(2);
        return new String[] {a.memberId(), b2.memberId()};
    }

    @Test
    void aStaticMemberRejoiningWithinItsSessionKeepsItsAssignmentWithoutANewGeneration()
            throws Exception {
        String[] ids = stableStaticPair();
        time.advance(3_000);

        JoinResult b = c.join(join("", "b", true)).get();

        assertThat(b.error()).isEqualTo(Errors.NONE);
        assertThat(b.memberId()).startsWith("b-").isNotEqualTo(ids[1]);
        assertThat(b.generation()).as("no new generation").isEqualTo(2);
        assertThat(b.leader()).isEqualTo(ids[0]);
        assertThat(b.members()).isEmpty();
        assertThat(c.heartbeat("g", 2, ids[0], "a"))
                .as("the other member sees no rebalance")
                .isEqualTo(Errors.NONE);
        assertThat(c.sync("g", 2, b.memberId(), "b", Map.of()).get().assignment())
                .containsExactly(2);
        assertThat(c.heartbeat("g", 2, ids[1], "b"))
                .as("the replaced member id is fenced")
                .isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(c.checkCommit("g", 2, ids[1], "b")).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(c.heartbeat("g", 2, ids[1])).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(c.join(join(ids[1], "b", true)).get().error())
                .isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(c.describeGroup("g").orElseThrow().members())
                .extracting(MemberDescription::memberId, MemberDescription::groupInstanceId)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(ids[0], "a"),
                        org.assertj.core.groups.Tuple.tuple(b.memberId(), "b"));
    }

    @Test
    void aRejoiningStaticLeaderIsToldToSkipTheAssignmentFromJoinGroupV9() throws Exception {
        String[] ids = stableStaticPair();

        JoinResult old = c.join(join("", "a", false)).get();
        assertThat(old.skipAssignment()).isFalse();
        assertThat(old.leader()).as("before v9 the previous leader id is named").isEqualTo(ids[0]);
        JoinResult a = c.join(join("", "a", true)).get();

        assertThat(a.generation()).isEqualTo(2);
        assertThat(a.leader()).isEqualTo(a.memberId());
        assertThat(a.skipAssignment()).isTrue();
        assertThat(a.members()).hasSize(2);
        assertThat(c.heartbeat("g", 2, ids[1], "b")).isEqualTo(Errors.NONE);
    }

    @Test
    void aDuplicateInstanceFencesTheWaitingRequestsOfTheMemberItReplaces() throws Exception {
        String[] ids = stableStaticPair();
        // b's subscription changes: a rebalance starts and b's JoinGroup waits for a.
        CompletableFuture<JoinResult> bWaits =
                c.join(
                        new JoinRequest(
                                "g",
                                ids[1],
                                "b",
                                "client-b",
                                "",
                                SESSION_MS,
                                SESSION_MS,
                                "consumer",
                                List.of(new GroupCoordinator.Protocol("range", new byte[] {9})),
                                true,
                                true));
        assertThat(bWaits).isNotDone();

        CompletableFuture<JoinResult> duplicate = c.join(join("", "b", true));

        assertThat(bWaits.get().error()).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(duplicate).as("joins the ongoing rebalance").isNotDone();
        JoinResult a = c.join(join(ids[0], "a", true)).get();
        assertThat(a.generation()).isEqualTo(3);
        assertThat(duplicate.get().generation()).isEqualTo(3);
    }

    @Test
    void aStaticMemberLeavesOnlyByItsSessionTimeoutOrALeaveNamingItsInstance() throws Exception {
        String[] ids = stableStaticPair();

        GroupCoordinator.LeaveResult wrong =
                c.leave(
                        "g",
                        List.of(
                                new Leaving(ids[0], "b"),
                                new Leaving("", "nobody"),
                                new Leaving("", "b")));
        assertThat(wrong.error()).isEqualTo(Errors.NONE);
        assertThat(wrong.members())
                .containsExactly(Errors.FENCED_INSTANCE_ID, Errors.UNKNOWN_MEMBER_ID, Errors.NONE);
        assertThat(c.heartbeat("g", 2, ids[0], "a")).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(c.leave("nogroup", List.of(new Leaving("", "a"))).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        JoinResult a = c.join(join(ids[0], "a", true)).get();
        assertThat(a.generation()).isEqualTo(3);
        c.sync("g", 3, a.memberId(), "a", Map.of()).get();
        timer.advance(SESSION_MS + 1);
        assertThat(c.heartbeat("g", 3, a.memberId(), "a"))
                .as("a silent static member expires like any other")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aNewDynamicMemberIsGivenItsIdWithMemberIdRequiredAndTheIdExpiresUnused() throws Exception {
        JoinResult first = c.join(join("", null, true)).get();
        assertThat(first.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).startsWith("client-null-");
        assertThat(c.describeGroup("g")).as("a pending id is no member").isPresent();
        assertThat(c.describeGroup("g").orElseThrow().members()).isEmpty();

        JoinResult joined = c.join(join(first.memberId(), null, true)).get();
        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.memberId()).isEqualTo(first.memberId());

        JoinResult unused = c.join(join("", null, true)).get();
        timer.advance(SESSION_MS);
        assertThat(c.join(join(unused.memberId(), null, true)).get().error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void membersAndAssignmentsSurviveAReopenAndAStaticMemberRejoinsWithoutARebalance()
            throws Exception {
        String[] ids = stableStaticPair();
        timer.runDue(); // the membership write queued by the leader's SyncGroup
        c.close();

        c = GroupCoordinator.open(dir, timer, time);
        GroupCoordinator.GroupDescription d = c.describeGroup("g").orElseThrow();
        assertThat(d.state()).isEqualTo("Stable");
        assertThat(d.protocolName()).isEqualTo("range");
        assertThat(d.members())
                .extracting(MemberDescription::memberId)
                .containsExactly(ids[0], ids[1]);
        assertThat(d.members().get(1).assignment()).containsExactly(2);
        assertThat(c.heartbeat("g", 2, ids[0], "a")).isEqualTo(Errors.NONE);

        JoinResult b = c.join(join("", "b", true)).get();
        assertThat(b.generation()).isEqualTo(2);
        assertThat(c.sync("g", 2, b.memberId(), "b", Map.of()).get().assignment())
                .containsExactly(2);
        assertThat(c.heartbeat("g", 2, ids[0], "a")).isEqualTo(Errors.NONE);
    }

    @Test
    void anEmptiedGroupLeavesNoMembershipAndADamagedFileIsMovedAside() throws Exception {
        String[] ids = stableStaticPair();
        timer.runDue(); // the Stable membership is written
        Path members = dir.resolve("group-members");
        try (Stream<Path> files = Files.list(members)) {
            assertThat(files).hasSize(1);
        }
        c.leave("g", List.of(new Leaving(ids[0], "a"), new Leaving(ids[1], "b")));
        c.close(); // before the timer wrote the change: close writes it
        try (Stream<Path> files = Files.list(members)) {
            assertThat(files).as("no file for an Empty group").isEmpty();
        }

        Files.writeString(members.resolve(OffsetStore.fileName("bad")), "members=x\n");
        c = GroupCoordinator.open(dir, timer, time);
        assertThat(c.describeGroup("bad")).isEmpty();
        try (Stream<Path> files = Files.list(members)) {
            assertThat(files)
                    .extracting(p -> p.getFileName().toString())
                    .singleElement()
                    .asString()
                    .contains(".corrupt-");
        }
    }

    @Test
    void aCrashBeforeTheLastMembershipWriteRestoresTheStableGenerationBeforeIt() throws Exception {
        String[] ids = stableStaticPair();
        timer.runDue(); // generation 2 is on disk
        JoinResult b = c.join(join("", "b", true)).get(); // its write stays queued: then a crash

        GroupCoordinator afterCrash = GroupCoordinator.open(dir, new ManualScheduler(time), time);
        try {
            assertThat(afterCrash.describeGroup("g").orElseThrow().members())
                    .extracting(MemberDescription::memberId)
                    .as("the last write lost: the replaced member id is back")
                    .containsExactly(ids[0], ids[1]);
            assertThat(afterCrash.heartbeat("g", 2, b.memberId(), "b"))
                    .as("the member the lost write named is fenced, and rejoins")
                    .isEqualTo(Errors.FENCED_INSTANCE_ID);
            JoinResult again = afterCrash.join(join("", "b", true)).get();
            assertThat(again.generation()).as("rejoining costs no rebalance").isEqualTo(2);
            assertThat(afterCrash.heartbeat("g", 2, ids[0], "a")).isEqualTo(Errors.NONE);
        } finally {
            afterCrash.close();
        }
    }
}

package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The classic rebalance protocol of the coordinator, driven call by call. */
class GroupCoordinatorTest {
    @TempDir Path dir;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        // Membership writes run on the timer: let a write in flight finish before @TempDir is
        // deleted under it (a loaded machine showed "Failed to delete temp directory").
        timer.shutdownNow();
        assertThat(timer.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }

    private static List<GroupCoordinator.Protocol> protocols(String... names) {
        return java.util.Arrays.stream(names)
                .map(n -> new GroupCoordinator.Protocol(n, n.getBytes()))
                .toList();
    }

    @Test
    void secondMemberTriggersARebalanceThatTheLeaderCompletesWithAssignments() throws Exception {
        GroupCoordinator c = GroupCoordinator.open(dir, timer, Time.SYSTEM);
        GroupCoordinator.JoinResult a1 =
                c.join("g", "", "a", 10_000, 10_000, "consumer", protocols("range", "sticky"))
                        .get();
        assertThat(a1.error()).isEqualTo(Errors.NONE);
        assertThat(a1.generation()).isEqualTo(1);
        assertThat(a1.leader()).isEqualTo(a1.memberId());
        assertThat(a1.members()).hasSize(1);
        assertThat(
                        c.sync("g", 1, a1.memberId(), Map.of(a1.memberId(), new byte[] {1}))
                                .get()
                                .assignment())
                .containsExactly(1);

        CompletableFuture<GroupCoordinator.JoinResult> b =
                c.join("g", "", "b", 10_000, 10_000, "consumer", protocols("sticky", "range"));
        assertThat(b).isNotDone();
        assertThat(c.heartbeat("g", 1, a1.memberId())).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(c.checkCommit("g", 1, a1.memberId()))
                .as("as in Kafka, a member commits before it rejoins")
                .isEqualTo(Errors.NONE);
        GroupCoordinator.JoinResult a2 =
                c.join(
                                "g",
                                a1.memberId(),
                                "a",
                                10_000,
                                10_000,
                                "consumer",
                                protocols("range", "sticky"))
                        .get();
        GroupCoordinator.JoinResult b2 = b.get();
        assertThat(a2.generation()).isEqualTo(2).isEqualTo(b2.generation());
        assertThat(a2.protocolName()).isEqualTo("range");
        assertThat(a2.members()).hasSize(2);
        assertThat(b2.members()).isEmpty();
        assertThat(b2.leader()).isEqualTo(a1.memberId());

        CompletableFuture<GroupCoordinator.SyncResult> bSync =
                c.sync("g", 2, b2.memberId(), Map.of());
        assertThat(bSync).isNotDone();
        c.sync(
                "g",
                2,
                a1.memberId(),
                Map.of(a1.memberId(), new byte[] {1}, b2.memberId(), new byte[] {2}));
        assertThat(bSync.get().assignment()).containsExactly(2);
        assertThat(c.heartbeat("g", 2, b2.memberId())).isEqualTo(Errors.NONE);
        assertThat(c.heartbeat("g", 1, b2.memberId())).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(c.heartbeat("g", 2, "nobody")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(c.checkCommit("g", -1, ""))
                .as("generation-less commits only to an Empty group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(c.checkCommit("nogroup", 3, "m")).isEqualTo(Errors.GROUP_ID_NOT_FOUND);

        assertThat(c.leave("g", b2.memberId())).isEqualTo(Errors.NONE);
        assertThat(c.heartbeat("g", 2, a1.memberId())).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        c.close();
    }

    @Test
    void membersWithoutACommonProtocolOrWithBadTimeoutsAreRefused() throws Exception {
        GroupCoordinator c = GroupCoordinator.open(dir, timer, Time.SYSTEM);
        assertThat(c.join("g", "", "a", 10, 10, "consumer", protocols("range")).get().error())
                .isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
        assertThat(
                        c.join("", "", "a", 10_000, 10_000, "consumer", protocols("range"))
                                .get()
                                .error())
                .isEqualTo(Errors.INVALID_GROUP_ID);
        c.join("g", "", "a", 10_000, 10_000, "consumer", protocols("range")).get();
        assertThat(
                        c.join("g", "", "b", 10_000, 10_000, "connect", protocols("range"))
                                .get()
                                .error())
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        c.close();
    }

    @Test
    void committedOffsetsSurviveReopen() throws Exception {
        GroupCoordinator c = GroupCoordinator.open(dir, timer, Time.SYSTEM);
        TopicPartition tp = new TopicPartition("t:odd=name", 3);
        c.commit(
                "group with spaces/ünïcode",
                Map.of(tp, new OffsetStore.Committed(42, 7, "meta,data")));
        c.close();
        GroupCoordinator again = GroupCoordinator.open(dir, timer, Time.SYSTEM);
        assertThat(again.committed("group with spaces/ünïcode", tp))
                .contains(new OffsetStore.Committed(42, 7, "meta,data"));
        assertThat(again.committed("other", tp)).isEmpty();
        again.close();
    }
}

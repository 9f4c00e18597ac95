package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session expiry and the rebalance deadline of the classic protocol, on a manual clock: nothing
 * happens until the test moves the clock, and each deadline falls on the exact millisecond.
 */
class GroupDeadlinesTest {
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

    /** Members a (leader) and b, stable in generation 2; returns their ids. */
    private String[] stableGroupOfTwo(int sessionMs, int rebalanceMs) throws Exception {
        GroupCoordinator.JoinResult a =
                c.join("g", "", "a", sessionMs, rebalanceMs, "consumer", range()).get();
        c.sync("g", a.generation(), a.memberId(), Map.of()).get();
        CompletableFuture<GroupCoordinator.JoinResult> b =
                c.join("g", "", "b", sessionMs, rebalanceMs, "consumer", range());
        GroupCoordinator.JoinResult a2 =
                c.join("g", a.memberId(), "a", sessionMs, rebalanceMs, "consumer", range()).get();
        GroupCoordinator.JoinResult b2 = b.get();
        CompletableFuture<GroupCoordinator.SyncResult> bSync =
                c.sync("g", b2.generation(), b2.memberId(), Map.of());
        c.sync("g", a2.generation(), a.memberId(), Map.of()).get();
        assertThat(bSync.get().error()).isEqualTo(Errors.NONE);
        assertThat(c.heartbeat("g", 2, b2.memberId())).isEqualTo(Errors.NONE);
        return new String[] {a.memberId(), b2.memberId()};
    }

    @Test
    void aSilentMemberExpiresOnTheFirstMillisecondPastItsSessionTimeoutAndNotBefore()
            throws Exception {
        String[] ids = stableGroupOfTwo(10_000, 10_000);
        String a = ids[0];
        String b = ids[1];
        // b's last contact was now; a keeps heartbeating, b falls silent.
        timer.advance(5_000);
        assertThat(c.heartbeat("g", 2, a)).isEqualTo(Errors.NONE);
        timer.advance(5_000); // exactly session.timeout.ms since b was last heard from
        assertThat(c.heartbeat("g", 2, a))
                .as("b is still a member at its session timeout: no rebalance yet")
                .isEqualTo(Errors.NONE);

        timer.advance(1);
        assertThat(c.heartbeat("g", 2, a))
                .as("b expired one millisecond later, which starts a rebalance")
                .isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(c.heartbeat("g", 2, b)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aRebalanceEndsAtItsDeadlineWithoutTheMembersThatDidNotRejoin() throws Exception {
        GroupCoordinator.JoinResult a =
                c.join("g", "", "a", 10_000, 20_000, "consumer", range()).get();
        c.sync("g", 1, a.memberId(), Map.of()).get();
        CompletableFuture<GroupCoordinator.JoinResult> b =
                c.join("g", "", "b", 10_000, 20_000, "consumer", range());
        // a stays alive by heartbeats but never rejoins; the rebalance waits 20 s for it.
        for (int i = 0; i < 3; i++) {
            timer.advance(5_000);
            assertThat(c.heartbeat("g", 1, a.memberId())).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        }
        timer.advance(4_999);
        assertThat(b).as("one millisecond before the rebalance deadline").isNotDone();

        timer.advance(1);
        assertThat(b).as("at the rebalance deadline").isDone();
        GroupCoordinator.JoinResult joined = b.get();
        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.generation()).isEqualTo(2);
        assertThat(joined.leader()).isEqualTo(joined.memberId());
        assertThat(joined.members())
                .extracting(m -> m.memberId())
                .containsExactly(joined.memberId());
        assertThat(c.heartbeat("g", 2, a.memberId())).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }
}

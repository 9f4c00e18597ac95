package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinRequest;
import io.tierlog.server.group.coordinator.GroupCoordinator.JoinResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TxnOffsetCommit on the coordinator, as Kafka 4.4's group coordinator: the member checks of {@code
 * validateTransactionalOffsetCommit} (looser than OffsetCommit's), offsets pending until the
 * marker, committed or dropped by it, require_stable's signal, fencing by producer epoch, deletion,
 * and pending offsets kept across a kill.
 */
class TxnOffsetCommitTest {
    private static final TopicPartition TP = new TopicPartition("in", 0);
    private static final TopicPartition TP1 = new TopicPartition("in", 1);
    private static final long PID = 4000;

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

    private static Map<TopicPartition, OffsetStore.Committed> at(long offset) {
        return Map.of(TP, new OffsetStore.Committed(offset, 0, "txn"));
    }

    private static JoinRequest join(String memberId, String instance) {
        return new JoinRequest(
                "g",
                memberId,
                instance,
                "client",
                "/127.0.0.1",
                10_000,
                10_000,
                "consumer",
                List.of(new GroupCoordinator.Protocol("range", new byte[] {1})),
                false,
                true);
    }

    private Errors txn(String group, String member, int generation, String instance)
            throws Exception {
        Map<TopicPartition, Errors> r =
                c.txnCommitOffsets(group, PID, (short) 0, member, generation, instance, at(5));
        assertThat(r).containsOnlyKeys(TP);
        return r.get(TP);
    }

    @Test
    void membersAreCheckedAsKafkaChecksTransactionalCommits() throws Exception {
        JoinResult a = c.join(join("", null)).get();
        c.sync("g", 1, a.memberId(), Map.of(a.memberId(), new byte[0])).get();
        assertThat(txn("g", a.memberId(), 1, null)).isEqualTo(Errors.NONE);
        assertThat(txn("g", a.memberId(), 0, null)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(txn("g", "stranger", 1, null)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(txn("g", "", -1, null))
                .as("TxnOffsetCommit v0-2 carry no member: accepted while the group has members")
                .isEqualTo(Errors.NONE);
        assertThat(c.checkCommit("g", -1, "")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(txn("nogroup", "m", 3, null))
                .as("an unknown group with a generation")
                .isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(txn("simple", "", -1, null)).isEqualTo(Errors.NONE);

        CompletableFuture<JoinResult> b = c.join(join("", null));
        JoinResult a2 = c.join(join(a.memberId(), null)).get();
        b.get();
        assertThat(c.checkCommit("g", a2.generation(), a.memberId()))
                .isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(txn("g", a.memberId(), a2.generation(), null))
                .as("the group's state is not enforced for transactional commits")
                .isEqualTo(Errors.NONE);
    }

    @Test
    void aStaticMemberReplacedByItsInstanceIdIsFenced() throws Exception {
        JoinResult first = c.join(join("", "i")).get();
        c.sync("g", 1, first.memberId(), "i", Map.of(first.memberId(), new byte[0])).get();
        JoinResult second = c.join(join("", "i")).get();
        assertThat(second.memberId()).isNotEqualTo(first.memberId());
        assertThat(txn("g", first.memberId(), second.generation(), "i"))
                .isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(txn("g", second.memberId(), second.generation(), "i")).isEqualTo(Errors.NONE);
    }

    @Test
    void aConsumerGroupChecksMemberEpochsAndAStaleOneIsAnIllegalGeneration() throws Exception {
        c.useConsumerGroups(
                (g, m, epoch) ->
                        g.equals("cg")
                                ? Optional.of(
                                        !m.equals("m1")
                                                ? Errors.UNKNOWN_MEMBER_ID
                                                : epoch == 7
                                                        ? Errors.NONE
                                                        : Errors.STALE_MEMBER_EPOCH)
                                : Optional.empty());
        assertThat(txn("cg", "m1", 7, null)).isEqualTo(Errors.NONE);
        assertThat(txn("cg", "m1", 6, null)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(txn("cg", "m2", 7, null)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(c.hasPendingTxnOffsets("cg", TP)).isTrue();
    }

    @Test
    void offsetsArePendingUntilTheMarkerThenCommittedOrDropped() throws Exception {
        c.commit("g", at(1));
        assertThat(txn("g", "", -1, null)).isEqualTo(Errors.NONE);
        assertThat(c.hasPendingTxnOffsets("g", TP)).isTrue();
        assertThat(c.hasPendingTxnOffsets("g", TP1)).isFalse();
        assertThat(c.committed("g", TP).orElseThrow().offset())
                .as("pending offsets are not visible as committed")
                .isEqualTo(1);
        c.completeTransaction("g", PID, (short) 1, false).get();
        assertThat(c.hasPendingTxnOffsets("g", TP)).isFalse();
        assertThat(c.committed("g", TP).orElseThrow().offset()).isEqualTo(1);

        c.txnCommitOffsets("g", PID, (short) 1, "", -1, null, at(9));
        c.completeTransaction("g", PID, (short) 2, true).get();
        assertThat(c.committed("g", TP).orElseThrow().offset()).isEqualTo(9);
        assertThat(c.hasPendingTxnOffsets("g", TP)).isFalse();
        c.completeTransaction("g", PID, (short) 2, true).get(); // a re-sent marker: nothing
        assertThat(c.committed("g", TP).orElseThrow().offset()).isEqualTo(9);
    }

    @Test
    void aPlainCommitAfterTheTransactionalOneWinsAtTheTransactionsCommit() throws Exception {
        c.txnCommitOffsets("g", PID, (short) 0, "", -1, null, at(5));
        c.commit("g", at(7));
        c.completeTransaction("g", PID, (short) 0, true).get();
        assertThat(c.committed("g", TP).orElseThrow().offset()).isEqualTo(7);
    }

    @Test
    void aFencedProducersCommitAndAStaleMarkerChangeNothing() throws Exception {
        c.txnCommitOffsets("g", PID, (short) 3, "", -1, null, at(5));
        assertThat(c.txnCommitOffsets("g", PID, (short) 2, "", -1, null, at(6)))
                .containsEntry(TP, Errors.INVALID_PRODUCER_EPOCH);
        assertThat(c.completeTransaction("g", PID, (short) 2, true))
                .failsWithin(java.time.Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(InvalidProducerEpochException.class);
        assertThat(c.hasPendingTxnOffsets("g", TP)).isTrue();
        assertThat(c.committed("g", TP)).isEmpty();
        c.completeTransaction("g", PID, (short) 3, true).get();
        assertThat(c.committed("g", TP).orElseThrow().offset()).isEqualTo(5);
    }

    @Test
    void deletingTheGroupOrThePartitionDropsPendingOffsetsAsKafkaDoes() throws Exception {
        c.txnCommitOffsets("only-pending", PID, (short) 0, "", -1, null, at(5));
        assertThat(c.listGroups())
                .extracting(GroupCoordinator.GroupListing::groupId)
                .contains("only-pending");
        assertThat(c.deleteGroup("only-pending")).isEqualTo(Errors.NONE);
        assertThat(c.hasPendingTxnOffsets("only-pending", TP)).isFalse();
        c.completeTransaction("only-pending", PID, (short) 0, true).get();
        assertThat(c.committed("only-pending", TP)).isEmpty();

        c.txnCommitOffsets(
                "g",
                PID,
                (short) 0,
                "",
                -1,
                null,
                Map.of(
                        TP,
                        new OffsetStore.Committed(5, 0, ""),
                        TP1,
                        new OffsetStore.Committed(6, 0, "")));
        assertThat(c.deleteOffsets("g", List.of(TP)).partitions()).containsEntry(TP, Errors.NONE);
        assertThat(c.hasPendingTxnOffsets("g", TP)).isFalse();
        assertThat(c.hasPendingTxnOffsets("g", TP1)).isTrue();
        c.completeTransaction("g", PID, (short) 0, true).get();
        assertThat(c.committed("g")).containsOnlyKeys(TP1);
    }

    @Test
    void pendingOffsetsStayPendingAfterAKillUntilTheMarkerCompletesThem() throws Exception {
        c.commit("g", at(1));
        c.txnCommitOffsets("g", PID, (short) 4, "", -1, null, at(5));
        c.txnCommitOffsets("g", PID + 1, (short) 0, "", -1, null, at(6));
        // kill -9: the coordinator is not closed; a new one reads the same files
        GroupCoordinator again = GroupCoordinator.open(dir, new ManualScheduler(time), time);
        try {
            assertThat(again.hasPendingTxnOffsets("g", TP)).isTrue();
            assertThat(again.committed("g", TP).orElseThrow().offset()).isEqualTo(1);
            assertThat(again.txnCommitOffsets("g", PID, (short) 3, "", -1, null, at(7)))
                    .as("the epoch is recovered too")
                    .containsEntry(TP, Errors.INVALID_PRODUCER_EPOCH);
            again.completeTransaction("g", PID + 1, (short) 1, false).get();
            assertThat(again.hasPendingTxnOffsets("g", TP)).isTrue();
            again.completeTransaction("g", PID, (short) 5, true).get();
            assertThat(again.hasPendingTxnOffsets("g", TP)).isFalse();
            assertThat(again.committed("g", TP).orElseThrow().offset()).isEqualTo(5);
        } finally {
            again.close();
        }
        GroupCoordinator third = GroupCoordinator.open(dir, new ManualScheduler(time), time);
        try {
            assertThat(third.hasPendingTxnOffsets("g", TP)).isFalse();
            assertThat(third.committed("g", TP).orElseThrow().offset()).isEqualTo(5);
        } finally {
            third.close();
        }
    }
}

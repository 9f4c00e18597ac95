package io.tierlog.server.txn.coordinator;

import static io.tierlog.server.txn.coordinator.TxnTestKit.A0;
import static io.tierlog.server.txn.coordinator.TxnTestKit.A1;
import static io.tierlog.server.txn.coordinator.TxnTestKit.B0;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.txn.coordinator.TransactionCoordinator.EndTxnResult;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.InitPidResult;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.ListFilter;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.TxnDescription;
import io.tierlog.server.txn.coordinator.TxnTestKit.Marker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator on a manual clock: zombie fencing, KIP-360, timeouts, EndTxn retries, epoch
 * exhaustion, markers and their retries, list/describe, id expiry.
 */
class TransactionCoordinatorTest {
    @TempDir Path dir;

    @Test
    void aSecondProducerFencesTheFirstAbortingItsOpenTransactionAtTheBumpedEpoch()
            throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 1)) {
            InitPidResult first = k.init("t");
            assertThat(
                            k.c.addPartitions(
                                            "t",
                                            first.producerId(),
                                            first.producerEpoch(),
                                            List.of(A0, B0),
                                            1)
                                    .get()
                                    .partitions())
                    .containsOnlyKeys(A0, B0)
                    .containsValues(Errors.NONE);

            InitPidResult blocked = k.init("t");
            assertThat(blocked.error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
            short fenced = (short) (first.producerEpoch() + 1);
            assertThat(k.markers.calls)
                    .containsExactlyInAnyOrder(
                            new Marker(A0, first.producerId(), fenced, 0, false, 1),
                            new Marker(B0, first.producerId(), fenced, 0, false, 1));

            InitPidResult second = k.init("t");
            assertThat(second.error()).isEqualTo(Errors.NONE);
            assertThat(second.producerId()).isEqualTo(first.producerId());
            assertThat(second.producerEpoch()).isEqualTo((short) (fenced + 1));

            // the zombie is fenced everywhere
            assertThat(
                            k.c.addPartitions(
                                            "t",
                                            first.producerId(),
                                            first.producerEpoch(),
                                            List.of(A1),
                                            1)
                                    .get()
                                    .partitions())
                    .containsEntry(A1, Errors.PRODUCER_FENCED);
            assertThat(
                            k.c.endTxn("t", first.producerId(), first.producerEpoch(), true, 1)
                                    .get()
                                    .error())
                    .isEqualTo(Errors.PRODUCER_FENCED);
            assertThat(
                            k.c.verifyPartitions(
                                            "t",
                                            first.producerId(),
                                            first.producerEpoch(),
                                            List.of(A0))
                                    .get()
                                    .partitions())
                    .containsEntry(A0, Errors.PRODUCER_FENCED);
        }
    }

    @Test
    void kip360RetryKeepsTheEpochAndAStaleExpectationIsFenced() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            InitPidResult a = k.init("t");
            InitPidResult bumped =
                    k.c.initProducerId("t", 60_000, a.producerId(), a.producerEpoch()).get();
            assertThat(bumped.error()).isEqualTo(Errors.NONE);
            assertThat(bumped.producerEpoch()).isEqualTo((short) (a.producerEpoch() + 1));
            // the response was lost: the same request again answers the same epoch
            InitPidResult again =
                    k.c.initProducerId("t", 60_000, a.producerId(), a.producerEpoch()).get();
            assertThat(again).isEqualTo(bumped);
            // a new producer bumps and clears the last epoch: the old expectation is stale now
            InitPidResult other = k.init("t");
            assertThat(other.producerEpoch()).isEqualTo((short) (bumped.producerEpoch() + 1));
            assertThat(
                            k.c.initProducerId("t", 60_000, a.producerId(), a.producerEpoch())
                                    .get()
                                    .error())
                    .isEqualTo(Errors.PRODUCER_FENCED);
            assertThat(k.c.initProducerId("t", 60_000, 424242, (short) 3).get().error())
                    .isEqualTo(Errors.PRODUCER_FENCED);
            assertThat(k.c.initProducerId("t", 60_000, 424242, (short) -1).get().error())
                    .isEqualTo(Errors.INVALID_REQUEST);
        }
    }

    @Test
    void aTimeoutAboveTheMaximumOrAnEmptyIdIsRefused() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            assertThat(k.c.initProducerId("t", 900_001, -1, (short) -1).get().error())
                    .isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
            assertThat(k.c.initProducerId("t", 0, -1, (short) -1).get().error())
                    .isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
            assertThat(k.c.initProducerId("t", 900_000, -1, (short) -1).get().error())
                    .isEqualTo(Errors.NONE);
            assertThat(k.c.initProducerId("", 1000, -1, (short) -1).get().error())
                    .isEqualTo(Errors.INVALID_REQUEST);
            assertThat(k.c.endTxn("nobody", 1, (short) 0, true, 2).get().error())
                    .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
    }

    @Test
    void anOpenTransactionAbortsAtTheFirstCheckPastItsTimeoutAndItsProducerIsFenced()
            throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            InitPidResult p = k.c.initProducerId("t", 15_000, -1, (short) -1).get();
            k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0), 2).get();
            k.timer.advance(10_000); // first check: 10 s open, timeout 15 s
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.ONGOING);
            assertThat(k.markers.calls).isEmpty();
            k.timer.advance(10_000); // second check: 20 s open
            TxnTransit s = k.c.stateOf("t");
            assertThat(s.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
            // Kafka 4.4's TV2 end drops the fence's bump and applies only the abort's (+1):
            // the markers carry it, above the partition's epoch
            assertThat(k.markers.calls)
                    .containsExactly(
                            new Marker(
                                    A0,
                                    p.producerId(),
                                    (short) (p.producerEpoch() + 1),
                                    0,
                                    false,
                                    2));
            assertThat(s.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));
            // the zombie's produce-side checks are fenced at its old epoch
            assertThat(
                            k.c.verifyPartitions(
                                            "t", p.producerId(), p.producerEpoch(), List.of(A0))
                                    .get()
                                    .partitions())
                    .containsEntry(A0, Errors.PRODUCER_FENCED);
        }
    }

    /**
     * The client's commit after its transaction was aborted on its timeout, as Kafka 4.4 answers
     * it. TV2: the stored epoch is the client's + 1 (one bump: Kafka's TV2 end does not apply the
     * fence's), so CompleteAbort takes the commit as a retry by epoch and answers INVALID_TXN_STATE
     * (InvalidTxnStateException in the client). TV1: the fence's bump is applied, the abort keeps
     * it, and the client's epoch is stale: PRODUCER_FENCED. A new InitProducerId then bumps once
     * more, from the stored epoch.
     */
    @Test
    void aCommitAfterTheTimeoutAbortIsInvalidTxnStateAtTv2AndFencedAtTv1() throws Exception {
        for (int tv = 1; tv <= 2; tv++) {
            try (TxnTestKit k = new TxnTestKit(dir.resolve("tv" + tv), tv)) {
                InitPidResult p = k.c.initProducerId("t", 15_000, -1, (short) -1).get();
                k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0), tv).get();
                k.timer.advance(10_000);
                k.timer.advance(10_000);
                TxnTransit s = k.c.stateOf("t");
                assertThat(s.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
                short aborted = (short) (p.producerEpoch() + 1);
                assertThat(s.producerEpoch()).as("TV%d", tv).isEqualTo(aborted);
                assertThat(k.markers.calls)
                        .containsExactly(new Marker(A0, p.producerId(), aborted, 0, false, tv));
                assertThat(
                                k.c.endTxn("t", p.producerId(), p.producerEpoch(), true, tv)
                                        .get()
                                        .error())
                        .as("TV%d", tv)
                        .isEqualTo(tv == 2 ? Errors.INVALID_TXN_STATE : Errors.PRODUCER_FENCED);
                InitPidResult next = k.init("t");
                assertThat(next.error()).isEqualTo(Errors.NONE);
                assertThat(next.producerEpoch()).isEqualTo((short) (aborted + 1));
            }
        }
    }

    @Test
    void endTxnRetriesAreAnsweredAsDoneUnderBothVersions() throws Exception {
        for (int tv = 1; tv <= 2; tv++) {
            try (TxnTestKit k = new TxnTestKit(dir.resolve("tv" + tv), tv)) {
                InitPidResult p = k.init("t");
                k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0), tv).get();
                EndTxnResult first =
                        k.c.endTxn("t", p.producerId(), p.producerEpoch(), true, tv).get();
                EndTxnResult retry =
                        k.c.endTxn("t", p.producerId(), p.producerEpoch(), true, tv).get();
                assertThat(first.error()).isEqualTo(Errors.NONE);
                assertThat(retry.error()).isEqualTo(Errors.NONE);
                assertThat(k.markers.calls).hasSize(1);
                if (tv == 2) {
                    assertThat(first.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));
                    assertThat(retry.producerId()).isEqualTo(first.producerId());
                    assertThat(retry.producerEpoch()).isEqualTo(first.producerEpoch());
                    assertThat(k.markers.calls.get(0).epoch()).isEqualTo(first.producerEpoch());
                } else {
                    assertThat(first.producerId()).isEqualTo(-1);
                    assertThat(k.markers.calls.get(0).epoch()).isEqualTo(p.producerEpoch());
                }
            }
        }
    }

    /**
     * Writes an Ongoing transaction at {@code epoch} into the journal before the coordinator opens.
     */
    private static void seed(Path dir, TransactionState state, short epoch, Set<?> parts)
            throws Exception {
        try (TxnStateStore s = TxnStateStore.open(dir, false, 1 << 20, TxnFiles.REAL)) {
            @SuppressWarnings("unchecked")
            Set<org.apache.kafka.common.TopicPartition> p =
                    (Set<org.apache.kafka.common.TopicPartition>) parts;
            s.write(
                    new TxnTransit(
                            "t",
                            7,
                            7,
                            -1,
                            epoch,
                            (short) (epoch - 1),
                            60_000,
                            state,
                            p,
                            Set.of(),
                            state == TransactionState.ONGOING ? 1_700_000_000_000L : -1,
                            1_700_000_000_000L,
                            (short) 2));
        }
    }

    @Test
    void tv2EndAtAnExhaustedEpochMovesTheProducerToANewIdAndARetryIsRecognised() throws Exception {
        short exhausted = Short.MAX_VALUE - 1;
        seed(dir, TransactionState.ONGOING, exhausted, Set.of(A0));
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            EndTxnResult end = k.c.endTxn("t", 7, exhausted, true, 2).get();
            assertThat(end.error()).isEqualTo(Errors.NONE);
            assertThat(end.producerId()).isEqualTo(1000); // the first id the kit hands out
            assertThat(end.producerEpoch()).isEqualTo((short) 0);
            assertThat(k.markers.calls)
                    .containsExactly(new Marker(A0, 7, Short.MAX_VALUE, 1, true, 2));
            TxnTransit s = k.c.stateOf("t");
            assertThat(s.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
            assertThat(s.producerId()).isEqualTo(1000);
            assertThat(s.prevProducerId()).isEqualTo(7);
            EndTxnResult retry = k.c.endTxn("t", 7, exhausted, true, 2).get();
            assertThat(retry).isEqualTo(end);
            assertThat(k.c.isTransactionalProducerId(1000)).isTrue();
            assertThat(k.c.isTransactionalProducerId(7)).isTrue();
            assertThat(k.c.isTransactionalProducerId(8)).isFalse();
        }
    }

    @Test
    void initProducerIdAtAnExhaustedEpochHandsOutANewProducerId() throws Exception {
        seed(dir, TransactionState.COMPLETE_ABORT, (short) (Short.MAX_VALUE - 1), Set.of());
        try (TxnTestKit k = new TxnTestKit(dir, 1)) {
            InitPidResult r = k.init("t");
            assertThat(r).isEqualTo(new InitPidResult(Errors.NONE, 1000, (short) 0));
        }
    }

    @Test
    void aMarkerFailingWithAStorageErrorIsRetriedAfterTheBackoffAndAGonePartitionIsDropped()
            throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            int[] failures = {0};
            k.markers.answer =
                    m -> {
                        if (m.tp().equals(B0)) {
                            return CompletableFuture.failedFuture(
                                    new UnknownTopicOrPartitionException("deleted"));
                        }
                        if (m.tp().equals(A0) && failures[0]++ < 2) {
                            return CompletableFuture.failedFuture(
                                    new KafkaStorageException("disk"));
                        }
                        return CompletableFuture.completedFuture(null);
                    };
            InitPidResult p = k.init("t");
            k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0, B0), 2).get();
            k.c.addOffsets("t", p.producerId(), p.producerEpoch(), "g", 2).get();
            assertThat(k.c.endTxn("t", p.producerId(), p.producerEpoch(), true, 2).get().error())
                    .isEqualTo(Errors.NONE);
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.PREPARE_COMMIT);
            TxnDescription d = k.c.describeTransactions(List.of("t")).get().get(0);
            assertThat(d.state()).isEqualTo("PrepareCommit");
            assertThat(d.partitions()).containsExactly(A0);
            k.timer.advance(99);
            assertThat(k.markers.calls.stream().filter(m -> m.tp().equals(A0))).hasSize(1);
            k.timer.advance(1);
            assertThat(k.markers.calls.stream().filter(m -> m.tp().equals(A0))).hasSize(2);
            k.timer.advance(100);
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
            assertThat(k.groups.calls)
                    .containsExactly(
                            new TxnTestKit.GroupEnd(
                                    "g", p.producerId(), (short) (p.producerEpoch() + 1), true));
        }
    }

    @Test
    void verificationAnswersPerPartitionWithoutWriting() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 1)) {
            InitPidResult p = k.init("t");
            k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0), 1).get();
            Map<org.apache.kafka.common.TopicPartition, Errors> v =
                    k.c.verifyPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0, A1))
                            .get()
                            .partitions();
            assertThat(v)
                    .containsEntry(A0, Errors.NONE)
                    .containsEntry(A1, Errors.TRANSACTION_ABORTABLE);
            assertThat(
                            k.c.verifyPartitions(
                                            "t", p.producerId() + 1, p.producerEpoch(), List.of(A0))
                                    .get()
                                    .partitions())
                    .containsEntry(A0, Errors.INVALID_PRODUCER_ID_MAPPING);
            assertThat(k.c.verifyOffsets("t", p.producerId(), p.producerEpoch(), "g").get())
                    .isEqualTo(Errors.TRANSACTION_ABORTABLE);
            k.c.addOffsets("t", p.producerId(), p.producerEpoch(), "g", 1).get();
            assertThat(k.c.verifyOffsets("t", p.producerId(), p.producerEpoch(), "g").get())
                    .isEqualTo(Errors.NONE);
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.ONGOING);
        }
    }

    @Test
    void listFiltersByStateProducerDurationAndPatternAsKafka() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            InitPidResult a = k.init("app-1");
            k.init("app-2");
            k.init("other");
            k.c.addPartitions("app-1", a.producerId(), a.producerEpoch(), List.of(A0), 2).get();
            k.time.advance(5_000);
            assertThat(k.c.listTransactions(ListFilter.all()).get().listings())
                    .extracting(TransactionCoordinator.TxnListing::transactionalId)
                    .containsExactly("app-1", "app-2", "other");
            TransactionCoordinator.ListResult ongoing =
                    k.c.listTransactions(
                                    new ListFilter(Set.of("Ongoing", "Bogus"), Set.of(), -1, null))
                            .get();
            assertThat(ongoing.listings())
                    .containsExactly(
                            new TransactionCoordinator.TxnListing(
                                    "app-1", a.producerId(), "Ongoing"));
            assertThat(ongoing.unknownStates()).containsExactly("Bogus");
            assertThat(
                            k.c.listTransactions(new ListFilter(Set.of(), Set.of(), 4_000, null))
                                    .get()
                                    .listings())
                    .extracting(TransactionCoordinator.TxnListing::transactionalId)
                    .contains("app-1");
            assertThat(
                            k.c.listTransactions(
                                            new ListFilter(
                                                    Set.of("Ongoing"), Set.of(), 6_000, null))
                                    .get()
                                    .listings())
                    .isEmpty();
            assertThat(
                            k.c.listTransactions(new ListFilter(Set.of(), Set.of(), -1, "app-.*"))
                                    .get()
                                    .listings())
                    .hasSize(2);
            assertThat(
                            k.c.listTransactions(
                                            new ListFilter(
                                                    Set.of(), Set.of(a.producerId()), -1, null))
                                    .get()
                                    .listings())
                    .hasSize(1);
            assertThat(
                            k.c.listTransactions(new ListFilter(Set.of(), Set.of(), -1, "("))
                                    .get()
                                    .error())
                    .isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
            List<TxnDescription> d = k.c.describeTransactions(List.of("app-1", "nope")).get();
            assertThat(d.get(0).error()).isEqualTo(Errors.NONE);
            assertThat(d.get(0).startMs()).isEqualTo(k.time.milliseconds() - 5_000);
            assertThat(d.get(0).partitions()).containsExactly(A0);
            assertThat(d.get(1).error()).isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND);
        }
    }

    @Test
    void anIdleTransactionalIdExpiresAndStaysForgottenAfterARestart() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            k.config =
                    new TransactionConfig(
                            900_000, 10_000, 7_200_000L, 3_600_000L, 2, false, 100, 1 << 20);
            k.c.close();
            k.open();
            InitPidResult p = k.init("t");
            k.init("busy");
            k.timer.advance(3_600_000);
            InitPidResult busy = k.init("busy"); // touched: its idle time restarts
            k.timer.advance(3_600_000);
            assertThat(k.c.describeTransactions(List.of("t")).get().get(0).error())
                    .isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND);
            assertThat(k.c.describeTransactions(List.of("busy")).get().get(0).error())
                    .isEqualTo(Errors.NONE);
            k.c.close();
            k.open();
            assertThat(k.c.describeTransactions(List.of("t")).get().get(0).error())
                    .isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND);
            assertThat(k.c.stateOf("busy").producerEpoch()).isEqualTo(busy.producerEpoch());
            assertThat(k.c.isTransactionalProducerId(p.producerId())).isFalse();
        }
    }

    @Test
    void adminMarkersReportKafkasErrorPerPartition() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            k.markers.answer =
                    m ->
                            m.tp().equals(B0)
                                    ? CompletableFuture.failedFuture(
                                            new UnknownTopicOrPartitionException("x"))
                                    : CompletableFuture.completedFuture(null);
            Map<org.apache.kafka.common.TopicPartition, Errors> r =
                    k.c.writeMarkersForAdmin(55, (short) 3, 9, false, List.of(A0, B0), 1).get();
            assertThat(r)
                    .containsEntry(A0, Errors.NONE)
                    .containsEntry(B0, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            assertThat(k.markers.calls).contains(new Marker(A0, 55, (short) 3, 9, false, 1));
        }
    }

    @Test
    void anImplicitAddOfPartitionsAlreadyInTheTransactionIsAnsweredWithoutIo() throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            InitPidResult p = k.init("t");
            k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0, A1), 2).get();
            k.io.hold = true;
            CompletableFuture<TransactionCoordinator.AddPartitionsResult> again =
                    k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A1), 2);
            assertThat(again).isCompleted();
            assertThat(again.get().partitions()).containsEntry(A1, Errors.NONE);
            assertThat(k.io.queue).isEmpty();
            CompletableFuture<TransactionCoordinator.AddPartitionsResult> added =
                    k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(B0), 2);
            assertThat(added).isNotCompleted(); // a new partition waits for its journal write
            assertThat(k.io.queue).hasSize(1);
            // meanwhile another add is refused retriably (one transition at a time)
            assertThat(
                            k.c.addPartitions(
                                            "t", p.producerId(), p.producerEpoch(), List.of(A0), 2)
                                    .get()
                                    .partitions())
                    .containsEntry(A0, Errors.CONCURRENT_TRANSACTIONS);
            k.io.runAll();
            assertThat(added.get().partitions()).containsEntry(B0, Errors.NONE);
        }
    }
}

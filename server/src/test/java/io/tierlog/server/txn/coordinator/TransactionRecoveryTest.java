package io.tierlog.server.txn.coordinator;

import static io.tierlog.server.txn.coordinator.TxnTestKit.A0;
import static io.tierlog.server.txn.coordinator.TxnTestKit.A1;
import static io.tierlog.server.txn.coordinator.TxnTestKit.B0;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.txn.coordinator.TransactionCoordinator.EndTxnResult;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.InitPidResult;
import io.tierlog.server.txn.coordinator.TxnTestKit.Marker;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A kill -9 at each point of a commit: after PrepareCommit is journaled but before any marker,
 * after some markers, after every marker but before CompleteCommit; and with a transaction open.
 * The reopened coordinator (one epoch higher) writes every marker of a prepared transaction again
 * (a duplicate is harmless), then completes it; an open one aborts at its timeout.
 */
class TransactionRecoveryTest {
    @TempDir Path dir;

    private static final List<TopicPartition> PARTS = List.of(A0, A1, B0);

    /** A transaction over three partitions and group "g", committed: returns the EndTxn answer. */
    private static long[] commitWithHeldMarkers(TxnTestKit k, int tv) throws Exception {
        InitPidResult p = k.init("t");
        k.c.addPartitions("t", p.producerId(), p.producerEpoch(), PARTS, tv).get();
        k.c.addOffsets("t", p.producerId(), p.producerEpoch(), "g", tv).get();
        k.markers.hold();
        EndTxnResult end = k.c.endTxn("t", p.producerId(), p.producerEpoch(), true, tv).get();
        assertThat(end.error()).isEqualTo(Errors.NONE);
        assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(k.markers.calls).hasSize(3);
        short markerEpoch = (short) (tv >= 2 ? p.producerEpoch() + 1 : p.producerEpoch());
        return new long[] {p.producerId(), markerEpoch, p.producerEpoch()};
    }

    private static void assertCompletedAfterRestart(TxnTestKit k, long pid, short epoch, int tv)
            throws Exception {
        assertThat(k.c.coordinatorEpoch()).isEqualTo(1);
        assertThat(k.markers.calls)
                .containsExactlyInAnyOrder(
                        new Marker(A0, pid, epoch, 1, true, tv),
                        new Marker(A1, pid, epoch, 1, true, tv),
                        new Marker(B0, pid, epoch, 1, true, tv));
        assertThat(k.groups.calls).contains(new TxnTestKit.GroupEnd("g", pid, epoch, true));
        TxnTransit s = k.c.stateOf("t");
        assertThat(s.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(s.partitions()).isEmpty();
        assertThat(k.c.describeTransactions(List.of("t")).get().get(0).state())
                .isEqualTo("CompleteCommit");
    }

    private static void answerMarkersNow(TxnTestKit k) {
        k.markers.calls.clear();
        k.groups.calls.clear();
        k.markers.answer = m -> CompletableFuture.completedFuture(null);
    }

    @ParameterizedTest(name = "TV{0}")
    @ValueSource(ints = {1, 2})
    void crashAfterPrepareCommitBeforeAnyMarker(int tv) throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, tv)) {
            long[] p = commitWithHeldMarkers(k, tv);
            answerMarkersNow(k);
            k.crashAndReopen();
            assertCompletedAfterRestart(k, p[0], (short) p[1], tv);
            // the producer's retry of its EndTxn is answered as done
            short retryEpoch = (short) p[2];
            assertThat(k.c.endTxn("t", p[0], retryEpoch, true, tv).get().error())
                    .isEqualTo(Errors.NONE);
        }
    }

    @ParameterizedTest(name = "TV{0}")
    @ValueSource(ints = {1, 2})
    void crashAfterSomeMarkers(int tv) throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, tv)) {
            long[] p = commitWithHeldMarkers(k, tv);
            k.markers.held.get(0).complete(null);
            k.markers.held.get(2).complete(null);
            assertThat(k.c.describeTransactions(List.of("t")).get().get(0).partitions()).hasSize(1);
            answerMarkersNow(k);
            k.crashAndReopen();
            assertCompletedAfterRestart(k, p[0], (short) p[1], tv);
        }
    }

    @ParameterizedTest(name = "TV{0}")
    @ValueSource(ints = {1, 2})
    void crashAfterEveryMarkerBeforeCompleteCommitIsJournaled(int tv) throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, tv)) {
            long[] p = commitWithHeldMarkers(k, tv);
            k.io.hold = true; // the CompleteCommit write waits in the queue: the crash drops it
            for (CompletableFuture<Void> f : k.markers.held) {
                f.complete(null);
            }
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.PREPARE_COMMIT);
            assertThat(k.io.queue).isNotEmpty();
            answerMarkersNow(k);
            k.crashAndReopen();
            assertCompletedAfterRestart(k, p[0], (short) p[1], tv);
        }
    }

    @ParameterizedTest(name = "TV{0}")
    @ValueSource(ints = {1, 2})
    void aTransactionOpenAtTheCrashAbortsAtItsTimeoutAfterTheRestart(int tv) throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, tv)) {
            InitPidResult p = k.c.initProducerId("t", 30_000, -1, (short) -1).get();
            k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0, B0), tv).get();
            k.crashAndReopen();
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.ONGOING);
            assertThat(k.c.stateOf("t").partitions()).containsExactlyInAnyOrder(A0, B0);
            k.timer.advance(30_000);
            assertThat(k.markers.calls).isEmpty();
            k.timer.advance(10_000);
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.COMPLETE_ABORT);
            assertThat(k.markers.calls)
                    .extracting(Marker::tp, Marker::commit, Marker::coordinatorEpoch)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(A0, false, 1),
                            org.assertj.core.groups.Tuple.tuple(B0, false, 1));
            // as Kafka 4.4: TV2 bumps once (the abort's), so the commit is a retry by epoch on
            // CompleteAbort; TV1 keeps the fence's bump and the client's epoch is stale
            assertThat(k.c.endTxn("t", p.producerId(), p.producerEpoch(), true, tv).get().error())
                    .isEqualTo(tv == 2 ? Errors.INVALID_TXN_STATE : Errors.PRODUCER_FENCED);
        }
    }
}

package io.tierlog.hot;

import static io.tierlog.hot.TxnTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.hot.ProducerStateException.Kind;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions in one partition log: verification guards, markers, the LSO, the txn index, and the
 * state after a reopen.
 */
class TransactionsLogTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    static final long A = 4000;
    static final long B = 5000;

    PartitionLog open() throws Exception {
        return PartitionLog.open(tmp.resolve("t-0"), LogConfig.defaults(), time);
    }

    long now() {
        return time.milliseconds();
    }

    @Test
    void openTransactionHoldsTheLsoUntilItsMarker() throws Exception {
        try (PartitionLog log = open()) {
            log.append(
                    RandomBatches.batch(
                            CompressionType.NONE,
                            List.of(new SimpleRecord(now(), null, "x".getBytes()))));
            appendTxn(log, A, (short) 0, 0, 3, now()); // offsets 1..3
            assertThat(log.highWatermark()).isEqualTo(4);
            assertThat(log.lastStableOffset()).isEqualTo(1);
            assertThat(log.ongoingTransactions())
                    .containsExactly(new OngoingTxn(A, (short) 0, 1, now()));
            AppendResult m = log.appendEndTxnMarker(A, (short) 0, 0, true, 1);
            assertThat(m.firstOffset()).isEqualTo(4);
            assertThat(log.lastStableOffset()).isEqualTo(5);
            assertThat(log.ongoingTransactions()).isEmpty();
            RecordBatch marker = batches(log).get(2);
            assertThat(marker.isControlBatch()).isTrue();
            assertThat(marker.isTransactional()).isTrue();
            assertThat(marker.producerId()).isEqualTo(A);
            assertThat(markerOf(marker).commit()).isTrue();
            assertThat(log.abortedTransactions(0, 5)).isEmpty();
        }
    }

    @Test
    void transactionalBatchWithoutItsGuardIsInvalidTxnState() throws Exception {
        try (PartitionLog log = open()) {
            assertThatThrownBy(() -> log.append(txnBatch(A, (short) 0, 0, 1, now(), "k")))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_TXN_STATE));
            VerificationGuard stale = log.maybeStartTxnVerification(A, 0, (short) 0, true);
            // a marker (the coordinator aborted meanwhile) clears the verification
            log.appendEndTxnMarker(A, (short) 0, 0, false, 1);
            assertThatThrownBy(
                            () ->
                                    log.append(
                                            txnBatch(A, (short) 0, 0, 1, now(), "k"),
                                            PartitionLog.NO_PARTITION_LEADER_EPOCH,
                                            stale))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_TXN_STATE));
            assertThat(log.logEndOffset()).isEqualTo(1); // only the marker
        }
    }

    @Test
    void verificationOfAnOpenTransactionNeedsNoGuardAndSequenceAboveTheGuardIsRefused()
            throws Exception {
        try (PartitionLog log = open()) {
            VerificationGuard g = log.maybeStartTxnVerification(A, 0, (short) 0, true);
            assertThat(g).isNotSameAs(VerificationGuard.SENTINEL);
            assertThatThrownBy(
                            () ->
                                    log.append(
                                            txnBatch(A, (short) 0, 5, 1, now(), "k"),
                                            PartitionLog.NO_PARTITION_LEADER_EPOCH,
                                            g))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.OUT_OF_ORDER_SEQUENCE));
            log.append(txnBatch(A, (short) 0, 0, 2, now(), "k"), -1, g);
            assertThat(log.maybeStartTxnVerification(A, 2, (short) 0, true))
                    .isSameAs(VerificationGuard.SENTINEL);
            assertThat(log.maybeStartTxnVerificationWithoutBlocking(A, 2, (short) 0, true))
                    .isSameAs(VerificationGuard.SENTINEL);
            log.append(txnBatch(A, (short) 0, 2, 2, now(), "k"), -1, VerificationGuard.SENTINEL);
            assertThat(log.logEndOffset()).isEqualTo(4);
        }
    }

    @Test
    void nonTransactionalBatchDuringTheProducersTransactionIsInvalidTxnState() throws Exception {
        try (PartitionLog log = open()) {
            appendTxn(log, A, (short) 0, 0, 1, now());
            assertThatThrownBy(
                            () ->
                                    log.append(
                                            RandomBatches.idempotentBatch(
                                                    CompressionType.NONE,
                                                    List.of(
                                                            new SimpleRecord(
                                                                    now(), null, "v".getBytes())),
                                                    A,
                                                    (short) 0,
                                                    1)))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_TXN_STATE));
        }
    }

    @Test
    void markerEpochAndCoordinatorEpochRulesPerTransactionVersion() throws Exception {
        try (PartitionLog log = open()) {
            appendTxn(log, A, (short) 3, 0, 1, now());
            // TV1: an older epoch is refused, an equal one accepted
            assertThatThrownBy(() -> log.appendEndTxnMarker(A, (short) 2, 5, true, 1))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_PRODUCER_EPOCH));
            log.appendEndTxnMarker(A, (short) 3, 5, true, 1);
            // a coordinator older than the last one is fenced
            assertThatThrownBy(() -> log.appendEndTxnMarker(A, (short) 3, 4, true, 1))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e ->
                                    assertThat(e.kind())
                                            .isEqualTo(Kind.TRANSACTION_COORDINATOR_FENCED));
            // TV2: the marker carries the bumped epoch; an equal epoch with the txn open is stale
            appendTxn(log, B, (short) 7, 0, 1, now());
            assertThatThrownBy(() -> log.appendEndTxnMarker(B, (short) 7, 0, false, 2))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_PRODUCER_EPOCH));
            log.appendEndTxnMarker(B, (short) 8, 0, false, 2);
            // the retry of a marker that landed (same epoch, nothing open) is accepted
            log.appendEndTxnMarker(B, (short) 8, 0, false, 2);
            ProducerEntry b = log.producerState(B).orElseThrow();
            assertThat(b.producerEpoch()).isEqualTo((short) 8);
            assertThat(b.batches()).isEmpty();
            // after the TV2 bump the next transaction must start at sequence 0
            VerificationGuard g = log.maybeStartTxnVerification(B, 1, (short) 8, true);
            assertThatThrownBy(() -> log.append(txnBatch(B, (short) 8, 1, 1, now(), "k"), -1, g))
                    .isInstanceOfSatisfying(
                            ProducerStateException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.OUT_OF_ORDER_SEQUENCE));
        }
    }

    @Test
    void abortedTransactionsAreIndexedAsKafkaCollectsThem() throws Exception {
        try (PartitionLog log = open()) {
            appendTxn(log, A, (short) 0, 0, 2, now()); // 0..1
            appendTxn(log, B, (short) 0, 0, 2, now()); // 2..3
            log.appendEndTxnMarker(A, (short) 0, 0, false, 1); // 4: LSO then 2 (B open)
            assertThat(log.lastStableOffset()).isEqualTo(2);
            log.appendEndTxnMarker(B, (short) 0, 0, false, 1); // 5
            assertThat(log.lastStableOffset()).isEqualTo(6);
            assertThat(log.abortedTransactions(0, 6))
                    .containsExactly(new AbortedTxn(A, 0, 4, 2), new AbortedTxn(B, 2, 5, 6));
            // an entry whose LSO reaches upTo ends the search: A's LSO 2 does not reach 3
            assertThat(log.abortedTransactions(0, 2)).containsExactly(new AbortedTxn(A, 0, 4, 2));
            assertThat(log.abortedTransactions(5, 6)).containsExactly(new AbortedTxn(B, 2, 5, 6));
            assertThat(Files.size(tmp.resolve("t-0").resolve(LogSegment.fileName(0) + ".txnindex")))
                    .isEqualTo(2 * 34);
            assertThat(readCommitted(log)).isEmpty();
        }
    }

    @Test
    void reopenRestoresOpenTransactionsCoordinatorEpochAndIndex() throws Exception {
        try (PartitionLog log = open()) {
            appendTxn(log, A, (short) 1, 0, 2, now());
            log.appendEndTxnMarker(A, (short) 1, 9, false, 1);
            appendTxn(log, B, (short) 0, 0, 1, now());
        }
        try (PartitionLog log = open()) { // clean snapshot path
            assertThat(log.lastStableOffset()).isEqualTo(3);
            assertThat(log.ongoingTransactions())
                    .extracting(OngoingTxn::producerId)
                    .containsExactly(B);
            assertThat(log.producerState(A).orElseThrow().coordinatorEpoch()).isEqualTo(9);
            assertThat(log.abortedTransactions(0, 4)).containsExactly(new AbortedTxn(A, 0, 2, 3));
            assertThatThrownBy(() -> log.appendEndTxnMarker(A, (short) 1, 8, true, 1))
                    .isInstanceOf(ProducerStateException.class);
        }
        // without snapshots and txn index: a full replay of the log finds the same
        try (var files = Files.list(tmp.resolve("t-0"))) {
            for (Path f : files.toList()) {
                String n = f.getFileName().toString();
                if (n.endsWith(".producers") || n.endsWith(".txnindex")) {
                    Files.delete(f);
                }
            }
        }
        try (PartitionLog log = open()) {
            assertThat(log.lastStableOffset()).isEqualTo(3);
            assertThat(log.producerState(A).orElseThrow().coordinatorEpoch()).isEqualTo(9);
            assertThat(log.abortedTransactions(0, 4)).containsExactly(new AbortedTxn(A, 0, 2, 3));
        }
    }

    @Test
    void retentionAndLogStartStopAtTheLso() throws Exception {
        LogConfig cfg =
                LogConfig.from(
                        Map.of(
                                "segment.bytes",
                                "300",
                                "local.retention.bytes",
                                "1",
                                "file.delete.delay.ms",
                                "0"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("t-0"), cfg, time)) {
            appendTxn(log, A, (short) 0, 0, 1, now()); // offset 0, open
            for (int i = 0; i < 20; i++) {
                log.append(
                        RandomBatches.batch(
                                CompressionType.NONE,
                                List.of(new SimpleRecord(now(), null, new byte[100]))));
            }
            assertThat(log.segments().size()).isGreaterThan(3);
            log.maybeDeleteSegments(Long.MAX_VALUE);
            assertThat(log.logStartOffset()).isEqualTo(0);
            assertThat(log.advanceLogStartOffset(10)).isEqualTo(0);
            log.appendEndTxnMarker(A, (short) 0, 0, true, 1);
            log.maybeDeleteSegments(Long.MAX_VALUE);
            assertThat(log.logStartOffset()).isGreaterThan(0);
        }
    }

    @Test
    void producerWithOnlyAMarkerExpiresButNotOneWithAnOpenTransaction() throws Exception {
        try (PartitionLog log = open()) {
            appendTxn(log, A, (short) 0, 0, 1, now());
            appendTxn(log, B, (short) 0, 0, 1, now());
            log.appendEndTxnMarker(B, (short) 1, 0, true, 2); // B: no batches left
            time.advance(log.config().producerIdExpiration().toMillis() + 1);
            assertThat(log.maybeExpireProducers()).isEqualTo(1);
            assertThat(log.producerState(B)).isEmpty();
            assertThat(log.producerState(A)).isPresent();
        }
    }

    @Test
    void fsyncModeKeepsTheLsoBelowAMarkerUntilItIsDurable() throws Exception {
        LogConfig cfg = LogConfig.from(Map.of("log.durability", "fsync"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("t-0"), cfg, time)) {
            appendTxn(log, A, (short) 0, 0, 2, now());
            log.appendEndTxnMarker(A, (short) 0, 0, true, 1);
            assertThat(log.highWatermark()).isEqualTo(3);
            assertThat(log.lastStableOffset()).isEqualTo(3);
        }
    }
}

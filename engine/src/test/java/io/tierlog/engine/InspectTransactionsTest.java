package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.hot.ReadOnlyLogDir;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog inspect} shows the last stable offset and each open transaction (producer, epoch,
 * first offset, last write), read from the segment files only (as the CLI does while a server
 * runs), over several segments; and the verifier's invariant 10 flags a cold object that reaches
 * the last stable offset and accepts one below it.
 */
class InspectTransactionsTest {
    private static final TopicPartition TP = new TopicPartition("txn", 0);

    @TempDir Path dir;

    @Test
    void inspectShowsTheLastStableOffsetAndTheOpenTransactionsOldestFirst() throws Exception {
        try (TieredLog log =
                TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of("segment.bytes", "700")))) {
            log.createTopic(TP.topic(), 1, Map.of());
            Transactions txns = log.transactions();
            log.append(TP, ReadCommittedModelTest.plainBatch("before"));
            // producer 5: a committed transaction, then an open one
            append(log, 5, (short) 3, 0, "c");
            txns.appendMarker(TP, 5, (short) 3, 0, true, 1);
            long open5 = append(log, 5, (short) 3, 1, "o5");
            for (int i = 0; i < 10; i++) { // several segments between the two open transactions
                log.append(
                        TP,
                        ReadCommittedModelTest.plainBatch("filler-" + i + "-" + "x".repeat(80)));
            }
            long open9 = append(log, 9, (short) 0, 0, "o9");
            append(log, 5, (short) 3, 2, "o5b"); // later batch of the older transaction
            // producer 11: aborted, so not open
            append(log, 11, (short) 1, 0, "a");
            txns.appendMarker(TP, 11, (short) 1, 0, false, 1);

            PartitionReport r = log.inspect(Optional.of(TP.topic())).get(0);
            assertThat(r.hotSegments()).isGreaterThan(2);
            assertThat(r.lastStableOffset()).isEqualTo(open5).isEqualTo(txns.lastStableOffset(TP));
            assertThat(r.openTransactions())
                    .containsExactly(
                            new OpenTransaction(5, (short) 3, open5, 1000),
                            new OpenTransaction(9, (short) 0, open9, 1000));
            assertThat(r.format(61_000))
                    .contains("lso " + open5)
                    .contains(
                            "open transaction: producer 5 epoch 3 since offset "
                                    + open5
                                    + ", last write 60 s ago")
                    .contains("open transaction: producer 9 epoch 0 since offset " + open9);

            txns.appendMarker(TP, 5, (short) 3, 0, true, 1);
            txns.appendMarker(TP, 9, (short) 0, 0, false, 1);
            PartitionReport done = log.inspect(Optional.of(TP.topic())).get(0);
            assertThat(done.openTransactions()).isEmpty();
            assertThat(done.lastStableOffset()).isEqualTo(done.highWatermark());
            assertThat(done.format()).doesNotContain("open transaction");
        }
    }

    @Test
    void aColdObjectReachingTheLastStableOffsetIsAViolation() throws Exception {
        long open;
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            log.createTopic(TP.topic(), 1, Map.of());
            for (int i = 0; i < 5; i++) {
                log.append(TP, ReadCommittedModelTest.plainBatch("p" + i));
            }
            open = append(log, 5, (short) 0, 0, "open");
            log.append(TP, ReadCommittedModelTest.plainBatch("after"));
        }
        try (ReadOnlyLogDir hot = ReadOnlyLogDir.open(dir.resolve("data/log"))) {
            List<Violation> below = new ArrayList<>();
            TxnInvariant.checkColdBelowLastStableOffset(
                    hot, TP, hot.segments(TP), List.of(object(0, open - 1)), below);
            assertThat(below).as("an object ending below the LSO").isEmpty();

            List<Violation> reaching = new ArrayList<>();
            TxnInvariant.checkColdBelowLastStableOffset(
                    hot, TP, hot.segments(TP), List.of(object(0, open)), reaching);
            assertThat(reaching)
                    .singleElement()
                    .satisfies(
                            v -> {
                                assertThat(v.kind())
                                        .isEqualTo(Violation.Kind.OPEN_TRANSACTION_IN_COLD);
                                assertThat(v.message()).contains("last stable offset " + open);
                            });
        }
    }

    private static ColdObject object(long first, long last) {
        return new ColdObject(
                TP.topic(),
                TP.partition(),
                first,
                last,
                1000,
                1000,
                last - first + 1,
                100,
                "txn/0/" + first + ".parquet",
                Instant.EPOCH);
    }

    private static long append(TieredLog log, long pid, short epoch, int seq, String prefix)
            throws Exception {
        TxnVerification t = log.transactions().startVerification(TP, pid, seq, epoch, false);
        return log.append(TP, ReadCommittedModelTest.txnBatch(pid, epoch, seq, 1, prefix), t)
                .firstOffset();
    }
}

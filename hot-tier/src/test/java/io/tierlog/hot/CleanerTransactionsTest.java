package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static io.tierlog.hot.TxnTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cleaner's transaction rules (Kafka's): aborted data goes (and never hides a committed value),
 * nothing at or above the LSO is cleaned, an abort marker stays while its data does and then until
 * its delete horizon, and cleaned segments carry the right {@code .txnindex}.
 */
class CleanerTransactionsTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("t", 0);
    LogManager manager;

    static final long A = 7000;
    static final long B = 8000;
    static final long C = 9000;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
    }

    PartitionLog txnBatchOf(PartitionLog log, long pid, int seq, String key) throws Exception {
        VerificationGuard g = log.maybeStartTxnVerification(pid, seq, (short) 0, true);
        log.append(txnBatch(pid, (short) 0, seq, 1, time.milliseconds(), key), -1, g);
        return log;
    }

    @Test
    void abortedDataGoesMarkersWaitForTheirHorizonAndOpenTransactionsStayUncleaned()
            throws Exception {
        manager = LogManager.open(tmp.resolve("logs"), t -> compactConfig(Map.of()), time, null);
        PartitionLog log = manager.getOrCreate(tp);
        txnBatchOf(log, A, 0, "a"); // key a-0 = committed value
        log.appendEndTxnMarker(A, (short) 0, 0, true, 1);
        txnBatchOf(log, B, 0, "a"); // key a-0 again, aborted: must not hide A's value
        txnBatchOf(log, B, 1, "x");
        // TV2: the marker bumps B's epoch, so B keeps no data batch for its sequence (a TV1
        // producer's last batch would stay, emptied, and with it the marker, as in Kafka)
        long abortMarker = log.appendEndTxnMarker(B, (short) 1, 0, false, 2).firstOffset();
        LogCleanerTest.appendUpdates(log, time, 60, 5);
        long openFirst = log.logEndOffset();
        txnBatchOf(log, C, 0, "c"); // open: holds the LSO
        LogCleanerTest.appendUpdates(log, time, 60, 5, "late");
        assertThat(log.lastStableOffset()).isEqualTo(openFirst);
        List<String> committedBefore = readCommitted(log);

        LogCleaner cleaner = manager.startCleaner(cleanerConfig(1 << 20), TombstoneGate.ALWAYS);
        assertThat(cleaner.cleanAllOnce()).isEqualTo(1);

        List<RecordBatch> after = batches(log);
        assertThat(after)
                .filteredOn(b -> !b.isControlBatch() && b.producerId() == B)
                .allSatisfy(b -> assertThat(b.countOrNull()).isZero());
        assertThat(readCommitted(log)).contains(firstRecordOf(committedBefore, "v" + A + "-0-0"));
        assertThat(readCommitted(log)).noneMatch(r -> r.contains("v" + B));
        // the abort marker stays (its data was still there in this pass), and so does its entry
        assertThat(after).anyMatch(b -> b.isControlBatch() && b.baseOffset() == abortMarker);
        assertThat(log.abortedTransactions(0, log.lastStableOffset()))
                .extracting(AbortedTxn::producerId)
                .containsExactly(B);
        // everything at or above the LSO is as written
        assertThat(after).filteredOn(b -> b.baseOffset() >= openFirst).hasSize(61);
        assertThat(dirtyUpTo(cleaner)).isLessThanOrEqualTo(openFirst);

        // no further cleaning while C holds the LSO
        LogCleanerTest.appendUpdates(log, time, 60, 5);
        assertThat(cleaner.cleanAllOnce()).isZero();
        // second pass once C committed: B has no data left, its marker gets a delete horizon
        log.appendEndTxnMarker(C, (short) 0, 0, true, 1);
        LogCleanerTest.appendUpdates(log, time, 60, 5);
        assertThat(cleaner.cleanAllOnce()).isEqualTo(1);
        assertThat(batches(log)).anyMatch(b -> b.isControlBatch() && b.baseOffset() == abortMarker);
        assertThat(batches(log))
                .filteredOn(b -> b.baseOffset() == abortMarker)
                .allSatisfy(b -> assertThat(b.deleteHorizonMs()).isPresent());
        time.advance(log.config().deleteRetentionMs() + 1);
        LogCleanerTest.appendUpdates(log, time, 60, 5);
        assertThat(cleaner.cleanAllOnce()).isEqualTo(1);
        // the marker's record is gone; its batch stays empty, as B's last (it holds B's epoch)
        assertThat(batches(log))
                .noneMatch(b -> b.isControlBatch() && b.producerId() == B && b.countOrNull() > 0);
        assertThat(log.abortedTransactions(0, log.lastStableOffset())).isEmpty();
        assertThat(readCommitted(log)).noneMatch(r -> r.contains("v" + B));

        // a reopen reads the cleaned segments' txn indexes (and rebuilds nothing wrong)
        manager.close();
        manager = LogManager.open(tmp.resolve("logs"), t -> compactConfig(Map.of()), time, null);
        PartitionLog reopened = manager.getOrCreate(tp);
        assertThat(reopened.lastStableOffset()).isEqualTo(reopened.highWatermark());
        assertThat(reopened.ongoingTransactions()).isEmpty();
        assertThat(readCommitted(reopened)).noneMatch(r -> r.contains("v" + B));
        assertThat(readCommitted(reopened)).anyMatch(r -> r.endsWith(":v" + A + "-0-0"));
        try (var files = Files.list(reopened.dir())) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .noneMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap"));
        }
    }

    private static String firstRecordOf(List<String> records, String value) {
        return records.stream().filter(r -> r.endsWith(":" + value)).findFirst().orElseThrow();
    }

    private long dirtyUpTo(LogCleaner cleaner) {
        return cleaner.checkpoint(tp).orElse(0L);
    }
}

package io.tierlog.hot;

import static io.tierlog.hot.TxnTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log dir read by another process ({@link ReadOnlyLogDir}) answers the LSO and the aborted
 * transactions as the owning log does; the dump tool prints markers and txn index entries in
 * Kafka's words.
 */
class ReadOnlyTransactionsTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("events", 0);
    static final long A = 11;
    static final long B = 12;

    @Test
    void readOnlyDirAnswersLikeTheLogAndDumpShowsMarkers() throws Exception {
        Path logs = tmp.resolve("logs");
        long lso;
        List<AbortedTxn> aborted;
        try (LogManager m =
                LogManager.open(
                        logs, t -> LogConfig.from(Map.of("segment.bytes", "400")), time, null)) {
            PartitionLog log = m.getOrCreate(tp);
            for (int i = 0; i < 4; i++) {
                appendTxn(log, A, (short) 0, i * 2, 2, time.milliseconds());
                log.appendEndTxnMarker(A, (short) 0, 3, i % 2 == 0, 1);
            }
            appendTxn(log, B, (short) 0, 0, 1, time.milliseconds());
            appendTxn(log, A, (short) 0, 8, 1, time.milliseconds());
            log.appendEndTxnMarker(A, (short) 0, 3, false, 1); // LSO of its entry: B's start
            lso = log.lastStableOffset();
            aborted = log.abortedTransactions(0, log.logEndOffset());
            assertThat(log.segments().size()).isGreaterThan(1);
        }
        assertThat(aborted).hasSize(3);
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(logs)) {
            assertThat(ro.lastStableOffset(tp, 0)).isEqualTo(lso);
            assertThat(ro.abortedTransactions(tp, 0, Long.MAX_VALUE)).isEqualTo(aborted);
            assertThat(ro.abortedTransactions(tp, aborted.get(2).lastOffset(), Long.MAX_VALUE))
                    .containsExactly(aborted.get(2));

            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            for (SegmentInfo s : ro.segments(tp)) {
                SegmentDump.dump(s.logFile(), out, true);
                Path txn =
                        s.logFile()
                                .resolveSibling(
                                        LogSegment.fileName(s.baseOffset())
                                                + LogSegment.TXN_INDEX_SUFFIX);
                if (java.nio.file.Files.exists(txn)) {
                    SegmentDump.dump(txn, out, false);
                }
            }
            String text = bytes.toString(StandardCharsets.UTF_8);
            assertThat(text).contains("endTxnMarker: ABORT coordinatorEpoch: 3");
            assertThat(text).contains("endTxnMarker: COMMIT coordinatorEpoch: 3");
            AbortedTxn last = aborted.get(2);
            assertThat(text)
                    .contains(
                            "version: 0 producerId: "
                                    + A
                                    + " firstOffset: "
                                    + last.firstOffset()
                                    + " lastOffset: "
                                    + last.lastOffset()
                                    + " lastStableOffset: "
                                    + last.lastStableOffset());
        }
    }
}

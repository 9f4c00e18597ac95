package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static io.tierlog.hot.TxnTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A crash at each step of the swap of a cleaning with transactions (the log abandoned, as kill -9
 * leaves it): reopened, a read_committed reader sees the same latest committed value of every key,
 * never an aborted record, and the txn indexes still name every aborted transaction with data.
 */
class CleanerTxnCrashTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    static final long COMMITS = 1;
    static final long ABORTS = 2;

    @ParameterizedTest(name = "crash at {0}")
    @ValueSource(strings = {"cleaned", "swap", "deleted-0", "deleted-1", "final"})
    void crashDuringTheSwapKeepsCommittedAndAbortedApart(String step) throws Exception {
        Path dir = tmp.resolve("t-0");
        LogConfig config = compactConfig(Map.of("segment.bytes", "65536", "segment.ms", "10"));
        PartitionLog log = PartitionLog.open(dir, config, time);
        int commitSeq = 0;
        int abortSeq = 0;
        for (int i = 0; i < 40; i++) {
            appendTxn(log, COMMITS, (short) 0, commitSeq, 2, time.milliseconds());
            commitSeq += 2;
            appendTxn(log, ABORTS, (short) 0, abortSeq, 2, time.milliseconds());
            abortSeq += 2;
            log.appendEndTxnMarker(COMMITS, (short) 0, 0, true, 1);
            log.appendEndTxnMarker(ABORTS, (short) 0, 0, false, 1);
            time.advance(11);
            if (i % 8 == 7) {
                log.maybeRoll();
            }
        }
        Map<String, String> before = latestByKey(readCommitted(log));
        long end = log.logEndOffset();
        boolean[] crashed = {false};
        log.swapSteps(
                s -> {
                    if (s.equals(step)) {
                        crashed[0] = true;
                        throw new CleanerCrashTest.Crash(s);
                    }
                });
        new LogCleaner(tmp, () -> List.of(log), cleanerConfig(1 << 20), TombstoneGate.ALWAYS, time)
                .cleanAllOnce();
        assertThat(crashed[0]).as("step reached").isTrue();

        PartitionLog reopened = PartitionLog.open(dir, config, time);
        try {
            assertThat(reopened.logEndOffset()).isEqualTo(end);
            List<String> committed = readCommitted(reopened);
            assertThat(committed).noneMatch(r -> r.contains(":v" + ABORTS + "-"));
            assertThat(latestByKey(committed)).isEqualTo(before);
            assertThat(reopened.lastStableOffset()).isEqualTo(end);
        } finally {
            reopened.close();
            for (LogSegment s : log.segmentArray()) {
                s.closeQuietly();
            }
        }
    }

    /** Records "offset:value" by key: the value's last two parts name the key (k-i). */
    private static Map<String, String> latestByKey(List<String> records) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String r : records) {
            String value = r.substring(r.indexOf(':') + 1);
            out.put("k-" + value.substring(value.lastIndexOf('-') + 1), value);
        }
        return out;
    }
}

package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A crash at each step of a cleaning's swap (fault injected in process, the log abandoned without
 * closing, as a kill -9 leaves it) leaves either the old or the new segments: reopened and
 * recovered, the log is valid, ends where it ended, holds the latest value of every key at its
 * offset, and no {@code .cleaned} or {@code .swap} file stays.
 */
class CleanerCrashTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);

    /** A simulated crash: nothing after it runs. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(String step) {
            super("crash at " + step);
        }
    }

    @ParameterizedTest(name = "crash at {0}")
    @ValueSource(strings = {"cleaned", "swap", "deleted-0", "deleted-1", "deleted-2", "final"})
    void crashDuringTheSwapLeavesAValidLogWithEveryLatestValue(String step) throws Exception {
        Path dir = tmp.resolve("t-0");
        LogConfig config = compactConfig(Map.of("segment.bytes", "65536", "segment.ms", "10"));
        PartitionLog log = PartitionLog.open(dir, config, time);
        Map<String, Read> model = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            String key = "k" + (i % 7);
            String value = i % 11 == 0 ? null : "v" + i;
            log.append(batch(Compression.NONE, List.of(new Rec(key, value, time.milliseconds()))));
            model.put(key, new Read(i, key, value, time.milliseconds(), "hdr-" + value));
            time.advance(1);
            if (i % 25 == 24) {
                time.advance(10);
                log.maybeRoll(); // small segments, so a group holds several
            }
        }
        long end = log.logEndOffset();
        // the group of all closed segments fits 64 KiB: its swap renames every one of them
        boolean[] crashed = {false};
        log.swapSteps(
                s -> {
                    if (s.equals(step)) {
                        crashed[0] = true;
                        throw new Crash(s);
                    }
                });
        LogCleaner cleaner =
                new LogCleaner(
                        tmp,
                        () -> List.of(log),
                        cleanerConfig(1 << 20),
                        TombstoneGate.ALWAYS,
                        time);
        cleaner.cleanAllOnce();
        assertThat(crashed[0]).as("step reached").isTrue();

        // kill -9: the process is gone, its files stay as they are
        PartitionLog reopened = PartitionLog.open(dir, config, time);
        try {
            assertThat(reopened.logEndOffset()).isEqualTo(end);
            Map<String, Read> seen = latest(readAll(reopened));
            for (Read expected : model.values()) {
                if (expected.value() != null) {
                    assertThat(seen.get(expected.key())).isEqualTo(expected);
                } else if (seen.containsKey(expected.key())) {
                    assertThat(seen.get(expected.key()).offset()).isEqualTo(expected.offset());
                }
            }
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .noneMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap"));
            }
            // and the recovered log cleans again
            List<PartitionLog> logs = new ArrayList<>(List.of(reopened));
            new LogCleaner(tmp, () -> logs, cleanerConfig(1 << 20), TombstoneGate.ALWAYS, time)
                    .cleanAllOnce();
            assertThat(latest(readAll(reopened)).values().stream().filter(r -> r.value() != null))
                    .containsExactlyInAnyOrderElementsOf(
                            model.values().stream().filter(r -> r.value() != null).toList());
        } finally {
            reopened.close();
            closeAbandoned(log);
        }
    }

    private static void closeAbandoned(PartitionLog log) {
        for (LogSegment s : log.segmentArray()) {
            s.closeQuietly();
        }
    }

    static void ignore(IOException e) {}
}

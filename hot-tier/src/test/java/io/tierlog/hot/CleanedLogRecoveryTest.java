package io.tierlog.hot;

import static io.tierlog.hot.CompactionKit.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery after an unclean stop of logs with offset gaps: a cleaned log keeps every record at its
 * offset even once its topic is no longer compacted, while a log that was never cleaned still
 * truncates at a batch whose base offset (outside the CRC) does not continue the previous one.
 */
class CleanedLogRecoveryTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("t", 0);
    final List<LogManager> managers = new ArrayList<>();

    @AfterEach
    void close() {
        for (LogManager m : managers) {
            m.close();
        }
    }

    static LogConfig deleteConfig() {
        Map<String, String> m = new HashMap<>();
        m.put("cleanup.policy", "delete");
        m.put("segment.bytes", "2048");
        m.put("file.delete.delay.ms", "0");
        m.put("index.interval.bytes", "256");
        return LogConfig.from(m);
    }

    LogManager open(AtomicReference<LogConfig> config) throws Exception {
        LogManager m = LogManager.open(tmp.resolve("logs"), t -> config.get(), time, null);
        managers.add(m);
        return m;
    }

    /** As a kill -9 leaves the dir: no clean-shutdown marker, the recovery point at the start. */
    void crash(LogManager m) throws Exception {
        managers.remove(m);
        m.releaseLockAsCrashWould();
        Path logs = tmp.resolve("logs");
        assertThat(logs.resolve(RecoveryPointCheckpoint.CLEAN_SHUTDOWN_FILE)).doesNotExist();
        new RecoveryPointCheckpoint(logs).write(Map.of(tp, 0L));
    }

    @Test
    void compactedTopicSwitchedToDeleteAfterCleaningKeepsEveryRecordAcrossAnUncleanRestart()
            throws Exception {
        AtomicReference<LogConfig> config = new AtomicReference<>(compactConfig(Map.of()));
        LogManager m = open(config);
        PartitionLog log = m.getOrCreate(tp);
        LogCleanerTest.appendUpdates(log, time, 300, 10);
        assertThat(m.startCleaner(cleanerConfig(1 << 20), TombstoneGate.ALWAYS).cleanAllOnce())
                .isEqualTo(1);
        List<Read> cleaned = readAll(log);
        assertThat(cleaned.size()).as("the cleaning left offset gaps").isLessThan(300);

        // AlterConfigs cleanup.policy=delete; later appends land after the cleaned segments
        config.set(deleteConfig());
        m.reconfigure("t");
        assertThat(log.config().compact()).isFalse();
        assertThat(log.mayHaveOffsetGaps()).as("the flag survives the reconfigure").isTrue();
        LogCleanerTest.appendUpdates(log, time, 40, 1000, "after");
        List<Read> acknowledged = readAll(log);
        long end = log.logEndOffset();
        crash(m);

        LogManager reopened = open(config);
        PartitionLog back = reopened.partition(tp).orElseThrow();
        assertThat(back.config().compact()).isFalse();
        assertThat(readAll(back)).containsExactlyElementsOf(acknowledged);
        assertThat(back.logEndOffset()).isEqualTo(end);
        assertThat(back.segments())
                .as("no segment was truncated by recovery")
                .allSatisfy(s -> assertThat(s.sizeInBytes()).isPositive());

        // and a second unclean restart, the cleaner not even started, still keeps them
        crash(reopened);
        PartitionLog again = open(config).partition(tp).orElseThrow();
        assertThat(readAll(again)).containsExactlyElementsOf(acknowledged);
    }

    @Test
    void crashRightAfterTheFirstSwapThenPolicyDeleteStillKeepsTheCleanedSegment() throws Exception {
        AtomicReference<LogConfig> config = new AtomicReference<>(compactConfig(Map.of()));
        LogManager m = open(config);
        PartitionLog log = m.getOrCreate(tp);
        // offsets 0..8 are superseded by 9..11; the rest are keys written once
        LogCleanerTest.appendUpdates(log, time, 12, 3, "d");
        LogCleanerTest.appendUpdates(log, time, 88, 1000, "u");
        List<Read> before = readAll(log);
        // killed once the first cleaned segment took its final name, before the cleaning ended
        log.swapSteps(
                step -> {
                    if (step.equals("final")) {
                        throw new CleanerCrashTest.Crash(step);
                    }
                });
        m.startCleaner(cleanerConfig(1 << 20), TombstoneGate.ALWAYS).cleanAllOnce();
        assertThat(LogCleaner.readCheckpoint(tmp.resolve("logs")))
                .as("named before the swap")
                .containsKey(tp);
        crash(m);
        // the topic became cleanup.policy=delete while the broker was down
        config.set(deleteConfig());
        PartitionLog back = open(config).partition(tp).orElseThrow();
        assertThat(readAll(back))
                .containsExactlyElementsOf(before.stream().filter(r -> r.offset() >= 9).toList());
    }

    @Test
    void neverCleanedLogStillTruncatesAtADamagedBaseOffset() throws Exception {
        AtomicReference<LogConfig> config = new AtomicReference<>(deleteConfig());
        LogManager m = open(config);
        PartitionLog log = m.getOrCreate(tp);
        LogCleanerTest.appendUpdates(log, time, 100, 1000);
        List<Read> acknowledged = readAll(log);
        assertThat(log.mayHaveOffsetGaps()).isFalse();
        Path first = log.segments().get(0).logFile();
        crash(m);
        // the third batch's base offset jumps by 5: its CRC still matches
        long third = batchPosition(first, 2);
        try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(8).putLong(0, 2 + 5);
            ch.write(b, third);
        }

        PartitionLog back = open(config).partition(tp).orElseThrow();
        List<Read> read = readAll(back);
        // no record is ever served at an offset it was not written at
        assertThat(acknowledged).containsAll(read);
        assertThat(read).noneMatch(r -> r.value().equals("v2"));
        assertThat(Files.size(first)).isEqualTo(third);
    }

    @Test
    void kafkaCompactedLogDirIsRecoveredAndCheckedWholeWhenItsCleanerCheckpointNamesIt()
            throws Exception {
        // a Kafka broker's dir: a cleaned segment (gaps before, between and after batches) and
        // the broker's cleaner-offset-checkpoint naming the partition; no indexes
        Path logDir = tmp.resolve("kafka");
        Path dir = logDir.resolve("orders-0");
        Files.createDirectories(dir);
        long[] bases = {3, 7, 12, 17};
        List<Read> written = new ArrayList<>();
        ByteBuffer all = ByteBuffer.allocate(1 << 16);
        for (long base : bases) {
            ByteBuffer b =
                    batch(
                            Compression.NONE,
                            List.of(
                                    new Rec("k" + base, "v" + base, 1000 + base),
                                    new Rec("j" + base, "w" + base, 1000 + base)));
            b.putLong(0, base); // outside the CRC, as Kafka's cleaner keeps original offsets
            all.put(b);
            written.add(new Read(base, "k" + base, "v" + base, 1000 + base, "hdr-v" + base));
            written.add(new Read(base + 1, "j" + base, "w" + base, 1000 + base, "hdr-w" + base));
        }
        Files.write(
                dir.resolve(LogSegment.fileName(0) + LogSegment.LOG_SUFFIX),
                java.util.Arrays.copyOf(all.array(), all.position()));
        Path checkpoint = logDir.resolve(LogCleaner.CHECKPOINT_FILE);
        Files.writeString(checkpoint, "0\n1\norders 0 19\n");

        TopicPartition orders = new TopicPartition("orders", 0);
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(logDir)) {
            SegmentInfo only = ro.segments(orders).get(0);
            assertThat(only.nextOffset()).isEqualTo(19);
            assertThat(ro.findCorruption(only)).isEmpty();
            // without the entry the first gap is a corruption, as in any log never cleaned
            Files.delete(checkpoint);
            Optional<SegmentCorruption> c = ro.findCorruption(only);
            assertThat(c).isPresent();
            assertThat(c.get().position()).isEqualTo(0);
            Files.writeString(checkpoint, "0\n1\norders 0 19\n");
            assertThat(ro.findCorruption(only)).isEmpty();
        }

        // recovered (every segment, no indexes) under a delete policy: read whole at its offsets
        try (PartitionLog log = PartitionLog.open(dir, deleteConfig(), time)) {
            assertThat(log.mayHaveOffsetGaps()).isTrue();
            assertThat(readAll(log)).containsExactlyElementsOf(written);
            assertThat(log.logEndOffset()).isEqualTo(19);
        }
    }

    /** File position of batch {@code index} (0-based) of a segment. */
    static long batchPosition(Path log, int index) throws Exception {
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ)) {
            LogScanner sc = new LogScanner(ch, 0, ch.size(), -1, false, false);
            for (int i = 0; i <= index; i++) {
                assertThat(sc.next()).isTrue();
            }
            return sc.position;
        }
    }
}

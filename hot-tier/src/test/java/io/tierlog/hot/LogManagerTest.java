package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Log dir lifecycle: create, reopen clean and unclean, checkpoint, delete, housekeeping. */
class LogManagerTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("orders", 3);

    LogManager open(Map<String, String> cfg) throws Exception {
        return LogManager.open(tmp.resolve("log"), t -> LogConfig.from(cfg), time, null);
    }

    /** A manager without a scheduler whose retention may delete below {@code bound}. */
    LogManager openWithBound(
            Map<String, String> cfg, java.util.function.ToLongFunction<PartitionLog> bound)
            throws Exception {
        return LogManager.open(
                tmp.resolve("log"), t -> LogConfig.from(cfg), time, null, 0, t -> 0L, bound);
    }

    @Test
    void cleanCloseWritesMarkerAndCheckpointAndReopenKeepsData() throws Exception {
        List<ByteBuffer> sent = new ArrayList<>();
        try (LogManager m = open(Map.of("segment.bytes", "4000"))) {
            PartitionLog log = m.getOrCreate(tp);
            assertThat(m.getOrCreate(tp)).isSameAs(log);
            assertThat(log.dir()).isEqualTo(tmp.resolve("log/orders-3"));
            RandomBatches gen = new RandomBatches(5);
            for (int i = 0; i < 30; i++) {
                ByteBuffer b = gen.batch();
                sent.add(LogTestSupport.copy(b));
                log.append(b);
            }
        }
        Path logDir = tmp.resolve("log");
        assertThat(logDir.resolve(".kafka_cleanshutdown")).exists();
        List<String> cp = Files.readAllLines(logDir.resolve("recovery-point-offset-checkpoint"));
        assertThat(cp.get(0)).isEqualTo("0");
        assertThat(cp.get(1)).isEqualTo("1");
        assertThat(cp.get(2)).startsWith("orders 3 ");
        try (LogManager m = open(Map.of("segment.bytes", "4000"))) {
            assertThat(logDir.resolve(".kafka_cleanshutdown")).doesNotExist();
            PartitionLog log = m.partition(tp).orElseThrow();
            PartitionLogTest.assertSame(sent, LogTestSupport.readAll(log, 10_000));
        }
    }

    @Test
    void uncleanStopRecoversFromPreallocatedIndexesAndTornTail() throws Exception {
        Path logDir = tmp.resolve("log");
        LogManager crashed = open(Map.of("segment.bytes", "4000", "index.interval.bytes", "100"));
        PartitionLog log = crashed.getOrCreate(tp);
        RandomBatches gen = new RandomBatches(9);
        List<ByteBuffer> sent = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            ByteBuffer b = gen.batch();
            sent.add(LogTestSupport.copy(b));
            log.append(b);
        }
        // simulate a crash: no close; a torn half batch at the tail of the active segment
        Path active = log.segments().get(log.segments().size() - 1).logFile();
        Files.write(
                active,
                new byte[] {0, 0, 0, 0, 0, 0, 0, 99, 0, 0, 1, 0, 0},
                java.nio.file.StandardOpenOption.APPEND);
        assertThat(logDir.resolve(".kafka_cleanshutdown")).doesNotExist();
        crashed.releaseLockAsCrashWould();
        try (LogManager m = open(Map.of("segment.bytes", "4000", "index.interval.bytes", "100"))) {
            PartitionLog reopened = m.partition(tp).orElseThrow();
            List<RecordBatch> read = LogTestSupport.readAll(reopened, 500);
            PartitionLogTest.assertSame(sent, read);
            for (long o = 0; o < reopened.logEndOffset(); o += 7) {
                FileSlice s = reopened.read(o, 1);
                assertThat(s.firstOffset()).isLessThanOrEqualTo(o);
                assertThat(s.nextOffset()).isGreaterThan(o);
            }
        }
    }

    @Test
    void corruptIndexIsRebuiltOnOpen() throws Exception {
        Map<String, String> cfg = Map.of("segment.bytes", "3000", "index.interval.bytes", "100");
        try (LogManager m = open(cfg)) {
            RandomBatches gen = new RandomBatches(3);
            for (int i = 0; i < 20; i++) {
                m.getOrCreate(tp).append(gen.batch());
            }
        }
        Path dir = tmp.resolve("log/orders-3");
        Path index = dir.resolve(String.format("%020d.index", 0));
        byte[] garbage = Files.readAllBytes(index);
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = (byte) (garbage.length - i);
        }
        Files.write(index, garbage);
        Files.delete(dir.resolve(String.format("%020d.timeindex", 0)));
        try (LogManager m = open(cfg)) {
            PartitionLog log = m.partition(tp).orElseThrow();
            assertThat(LogTestSupport.readAll(log, 100)).hasSize(20);
            assertThat(dir.resolve(String.format("%020d.timeindex", 0))).exists();
        }
    }

    @Test
    void deleteRemovesTheFolder() throws Exception {
        try (LogManager m = open(Map.of())) {
            m.getOrCreate(tp).append(new RandomBatches(1).batch());
            m.delete(tp);
            assertThat(m.partition(tp)).isEmpty();
            assertThat(tmp.resolve("log/orders-3")).doesNotExist();
        }
        try (LogManager m = open(Map.of())) {
            assertThat(m.partitions()).isEmpty();
        }
    }

    @Test
    void theFirstScheduledPassSeesEveryReopenedPartitionAndTheBoundGivenAtOpen() throws Exception {
        Map<String, String> cfg =
                Map.of(
                        "segment.ms",
                        "1000",
                        "local.retention.bytes",
                        "0",
                        "file.delete.delay.ms",
                        "0");
        TopicPartition other = new TopicPartition("orders", 4);
        try (LogManager m = openWithBound(cfg, l -> 0L)) {
            RandomBatches gen = new RandomBatches(5, time.milliseconds());
            for (TopicPartition p : List.of(tp, other)) {
                PartitionLog log = m.getOrCreate(p);
                for (int i = 0; i < 3; i++) {
                    log.append(gen.batch());
                    time.advance(1000);
                    m.runHousekeeping();
                }
            }
        }
        io.tierlog.common.testing.ManualScheduler timer =
                new io.tierlog.common.testing.ManualScheduler(time);
        java.util.Set<TopicPartition> asked = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try (LogManager m =
                LogManager.open(
                        tmp.resolve("log"),
                        t -> LogConfig.from(cfg),
                        time,
                        timer,
                        0,
                        t -> 0L,
                        l -> {
                            asked.add(l.topicPartition());
                            return 0L; // nothing is safe elsewhere
                        })) {
            assertThat(timer.pending()).as("housekeeping scheduled by open").isEqualTo(1);
            timer.advance(LogManager.HOUSEKEEPING_INTERVAL_MS);
            assertThat(asked).containsExactlyInAnyOrder(tp, other);
            for (TopicPartition p : List.of(tp, other)) {
                assertThat(m.partition(p).get().segments()).hasSizeGreaterThan(2);
                assertThat(m.partition(p).get().logStartOffset())
                        .as("local.retention.bytes=0, but the bound keeps every segment")
                        .isZero();
            }
        }
        assertThat(timer.pending()).as("close cancels housekeeping").isZero();
    }

    @Test
    void housekeepingRollsFlushesAndAppliesRetentionBound() throws Exception {
        Map<String, String> cfg =
                Map.of(
                        "segment.ms",
                        "1000",
                        "local.retention.bytes",
                        "0",
                        "flush.ms",
                        "500",
                        "file.delete.delay.ms",
                        "0");
        long[] bound = {0};
        try (LogManager m = openWithBound(cfg, l -> bound[0])) {
            PartitionLog log = m.getOrCreate(tp);
            RandomBatches gen = new RandomBatches(4, time.milliseconds());
            for (int i = 0; i < 3; i++) {
                log.append(gen.batch());
                time.advance(1000);
                m.runHousekeeping();
            }
            assertThat(log.segments()).hasSize(4);
            assertThat(log.recoveryPoint()).isEqualTo(log.logEndOffset());
            assertThat(log.logStartOffset()).isZero();
            bound[0] = log.segments().get(1).nextOffset();
            m.runHousekeeping();
            assertThat(log.logStartOffset()).isEqualTo(bound[0]);
        }
    }

    @Test
    void rolledSegmentsAreFlushedInTheBackgroundAndAdvanceTheRecoveryPoint() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogManager m =
                LogManager.open(
                        tmp.resolve("log"),
                        t -> LogConfig.from(Map.of("segment.bytes", "2000")),
                        time,
                        scheduler)) {
            PartitionLog log = m.getOrCreate(tp);
            RandomBatches gen = new RandomBatches(8);
            for (int i = 0; i < 20; i++) {
                log.append(gen.batch());
            }
            scheduler.submit(() -> {}).get(); // the single scheduler thread ran every flush before
            List<SegmentInfo> segs = log.segments();
            assertThat(segs.size()).isGreaterThan(2);
            assertThat(log.recoveryPoint()).isEqualTo(segs.get(segs.size() - 1).baseOffset());
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void scheduledHousekeepingRunsOnTheInjectedScheduler() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogManager m =
                LogManager.open(tmp.resolve("log"), t -> LogConfig.defaults(), time, scheduler)) {
            m.getOrCreate(tp).append(new RandomBatches(1).batch());
        } finally {
            scheduler.shutdownNow();
        }
        assertThat(tmp.resolve("log/.kafka_cleanshutdown")).exists();
    }
}

package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.common.Time;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two real segment sources: tierlog's own LogManager, and a log dir read without writing. */
class HotTierSourcesIT {
    static final TopicPartition TP = new TopicPartition("orders", 1);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    Path logDir;
    Map<String, String> settings;

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        logDir = dir.resolve("log");
        settings =
                Map.of(
                        CompactorOptions.OFFLOAD_TMP_DIR.key(),
                        dir.resolve("tmp").toString(),
                        CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(),
                        "48KiB");
    }

    LogManager openLogManager() throws Exception {
        LogConfig config = LogConfig.from(Map.of("segment.bytes", "16384"));
        return LogManager.open(logDir, topic -> config, Time.SYSTEM, null);
    }

    static void produce(PartitionLog log, int batches) throws Exception {
        CompressionType[] codecs = {
            CompressionType.NONE, CompressionType.ZSTD, CompressionType.LZ4
        };
        for (int b = 0; b < batches; b++) {
            SimpleRecord[] records = new SimpleRecord[20];
            for (int i = 0; i < records.length; i++) {
                records[i] =
                        new SimpleRecord(
                                System.currentTimeMillis(),
                                ("key-" + i).getBytes(StandardCharsets.UTF_8),
                                ("value-" + b + "-" + i + "-" + "x".repeat(80))
                                        .getBytes(StandardCharsets.UTF_8));
            }
            log.append(
                    MemoryRecords.withRecords(
                                    0L, Compression.of(codecs[b % codecs.length]).build(), records)
                            .buffer());
        }
    }

    static List<RecordBatch> batchesOfClosedSegments(PartitionLog log) throws Exception {
        List<RecordBatch> out = new ArrayList<>();
        for (SegmentInfo s : log.segments()) {
            if (!s.closed()) {
                break;
            }
            ByteBufferHolder.read(s, out);
        }
        return out;
    }

    /** Reads a segment file's batches. */
    static final class ByteBufferHolder {
        static void read(SegmentInfo s, List<RecordBatch> out) throws Exception {
            byte[] bytes = java.nio.file.Files.readAllBytes(s.logFile());
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(bytes, 0, (int) s.sizeInBytes());
            MemoryRecords.readableRecords(buf.slice()).batches().forEach(out::add);
        }
    }

    @Test
    void ownLogManagerClosedSegmentsAreOffloadedAndTheActiveOneIsNot() throws Exception {
        try (LogManager lm = openLogManager()) {
            PartitionLog log = lm.getOrCreate(TP);
            produce(log, 60);
            assertThat(log.segments().size()).isGreaterThan(3);
            try (LogManagerSource source = new LogManagerSource(lm);
                    Compactor c =
                            cold.compactor(source, Optional.of(logDir), settings, Time.SYSTEM)) {
                c.runOnce();
                List<SegmentInfo> segments = log.segments();
                long closedEnd = segments.get(segments.size() - 2).nextOffset();
                assertThat(cold.catalog().partitionState("orders", 1).coldHighWatermark())
                        .isEqualTo(closedEnd);
                assertThat(SegmentFiles.describe(cold.readBack("orders", 1)))
                        .isEqualTo(SegmentFiles.describe(batchesOfClosedSegments(log)));
                assertThat(cold.catalog().topic("orders").orElseThrow().partitions()).isEqualTo(2);
            }
        }
    }

    @Test
    void inTheBackgroundASegmentRollWakesTheLoopLongBeforeItsInterval() throws Exception {
        Map<String, String> hourly = new java.util.HashMap<>(settings);
        hourly.put(CompactorOptions.OFFLOAD_INTERVAL_MS.key(), "1h");
        try (LogManager lm = openLogManager()) {
            PartitionLog log = lm.getOrCreate(TP);
            try (LogManagerSource source = new LogManagerSource(lm);
                    Compactor c =
                            cold.compactor(source, Optional.of(logDir), hourly, Time.SYSTEM)) {
                java.util.concurrent.CountDownLatch firstPass =
                        new java.util.concurrent.CountDownLatch(1);
                c.addListener(
                        new OffloadListener() {
                            @Override
                            public void onPassFinished(PassResult result) {
                                firstPass.countDown();
                            }
                        });
                c.start(); // the first pass finds nothing closed and registers the listener
                assertThat(firstPass.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                produce(log, 30); // rolls several 16 KiB segments
                List<SegmentInfo> segments = log.segments();
                long closedEnd = segments.get(segments.size() - 2).nextOffset();
                Await.until(
                        "offloaded to "
                                + closedEnd
                                + " after the roll, not after"
                                + " offload.interval.ms",
                        () -> cold.catalog().partitionState("orders", 1).coldHighWatermark(),
                        hw -> hw >= closedEnd,
                        java.time.Duration.ofSeconds(60));
            }
        }
    }

    @Test
    void anIdlePartitionIsOffloadedOnceSegmentMsRollsItAndOnlyThenLeavesLocalDisk()
            throws Exception {
        io.tierlog.common.MockTime time =
                new io.tierlog.common.MockTime(System.currentTimeMillis());
        LogConfig config =
                LogConfig.from(Map.of("segment.ms", "3600000", "local.retention.ms", "60000"));
        // The engine's wiring: hot segments may go only once the cold tier holds them.
        try (LogManager lm =
                LogManager.open(
                        logDir,
                        topic -> config,
                        time,
                        null,
                        0,
                        tp -> 0L,
                        l ->
                                cold.catalog().topic(l.topicPartition().topic()).isEmpty()
                                        ? 0
                                        : cold.catalog()
                                                .partitionState(
                                                        l.topicPartition().topic(),
                                                        l.topicPartition().partition())
                                                .coldHighWatermark())) {
            PartitionLog log = lm.getOrCreate(TP);
            SimpleRecord r =
                    new SimpleRecord(
                            time.milliseconds(), null, "idle".getBytes(StandardCharsets.UTF_8));
            log.append(MemoryRecords.withRecords(0L, Compression.NONE, r).buffer());
            try (LogManagerSource source = new LogManagerSource(lm);
                    Compactor c = cold.compactor(source, Optional.of(logDir), settings, time)) {
                assertThat(c.runOnce().objects()).as("the only segment is active").isZero();
                time.advance(java.time.Duration.ofHours(2).toMillis());
                lm.runHousekeeping(); // segment.ms passed: rolls; retention may not delete it yet
                assertThat(log.logStartOffset()).isZero();
                assertThat(c.runOnce().objects()).isEqualTo(1);
                assertThat(cold.catalog().partitionState("orders", 1).coldHighWatermark())
                        .isEqualTo(1);
                lm.runHousekeeping(); // now local retention may drop it
                assertThat(log.logStartOffset()).isEqualTo(1);
            }
        }
    }

    @Test
    void aLogDirIsOffloadedWithoutChangingOneByteOfIt() throws Exception {
        List<RecordBatch> expected;
        try (LogManager lm = openLogManager()) {
            PartitionLog log = lm.getOrCreate(TP);
            produce(log, 40);
            produce(lm.getOrCreate(new TopicPartition("orders", 0)), 5);
            expected = batchesOfClosedSegments(log);
        }
        Map<Path, byte[]> before = CompactorIT.snapshot(logDir);
        try (LogDirSource source = LogDirSource.open(logDir);
                Compactor c = cold.compactor(source, Optional.of(logDir), settings, Time.SYSTEM)) {
            PassResult r = c.runOnce();
            assertThat(r.failedPartitions()).isZero();
        }
        Map<Path, byte[]> after = CompactorIT.snapshot(logDir);
        assertThat(after.keySet()).isEqualTo(before.keySet());
        before.forEach((k, v) -> assertThat(after.get(k)).as(k.toString()).isEqualTo(v));
        List<ColdObject> objects = cold.catalog().objects("orders", 1);
        assertThat(objects).isNotEmpty();
        assertThat(SegmentFiles.describe(cold.readBack("orders", 1)))
                .isEqualTo(SegmentFiles.describe(expected));
    }
}

package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.PartitionState;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.common.ConfigException;
import io.tierlog.common.Time;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offload loop against a real cold tier: segment files on disk, s3proxy over HTTP, a SQLite
 * catalog file.
 */
class CompactorIT {
    static final TopicPartition TP = new TopicPartition("events", 0);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    SegmentFiles log;
    Map<String, String> settings;
    final List<ObjectReport> reports = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        log = new SegmentFiles(dir.resolve("log"), 42);
        settings = new HashMap<>();
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1MiB");
        settings.put(CompactorOptions.OFFLOAD_RETRY_BACKOFF_MS.key(), "10ms");
        settings.put(CompactorOptions.OFFLOAD_RETRY_TIMEOUT_MS.key(), "5s");
    }

    Compactor compactor() throws Exception {
        Compactor c = cold.compactor(log, Optional.of(log.dir()), settings, Time.SYSTEM);
        c.addListener(
                new OffloadListener() {
                    @Override
                    public void onObjectCommitted(ObjectReport report) {
                        reports.add(report);
                    }
                });
        return c;
    }

    static void assertContiguous(List<ColdObject> objects, long from, long to) {
        long next = from;
        for (ColdObject o : objects) {
            assertThat(o.firstOffset()).as("object %s", o.key()).isEqualTo(next);
            next = o.nextOffset();
        }
        assertThat(next).isEqualTo(to);
    }

    @Test
    void closedSegmentsGoToTheColdTierRecordForRecordAndTheActiveSegmentStays() throws Exception {
        log.append(TP, 20, 10, 100);
        log.roll(TP);
        log.append(TP, 20, 10, 100);
        log.roll(TP);
        log.append(TP, 5, 10, 100); // active
        try (Compactor c = compactor()) {
            PassResult r = c.runOnce();
            assertThat(r.failedPartitions()).isZero();
            assertThat(r.records()).isEqualTo(400);
        }
        List<ColdObject> objects = cold.catalog().objects("events", 0);
        assertContiguous(objects, 0, 400);
        assertThat(SegmentFiles.describe(cold.readBack("events", 0)))
                .isEqualTo(SegmentFiles.describe(log.allBatches(TP).subList(0, 40)));
        for (ColdObject o : objects) {
            ObjectInfo info = cold.store().head(o.key());
            assertThat(info.size()).isEqualTo(o.sizeInBytes());
        }
        assertThat(cold.catalog().topic("events").orElseThrow().partitions()).isEqualTo(1);
    }

    @Test
    void smallSegmentsMergeUpToTheTargetSizeAndLargeOnesSplitOnBatchBoundaries() throws Exception {
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "64KiB");
        for (int i = 0; i < 12; i++) { // ~12 segments of ~11 KiB
            log.append(TP, 10, 10, 100);
            log.roll(TP);
        }
        log.append(TP, 100, 10, 300); // one ~300 KiB segment
        log.roll(TP);
        try (Compactor c = compactor()) {
            c.runOnce();
        }
        List<ColdObject> objects = cold.catalog().objects("events", 0);
        assertContiguous(objects, 0, log.nextOffset(TP));
        long target = 64 * 1024;
        for (ObjectReport r : reports.subList(0, reports.size() - 1)) {
            assertThat(r.sourceBytes()).isLessThanOrEqualTo(target);
            assertThat(r.sourceBytes()).isGreaterThan(target / 2);
        }
        assertThat(objects.size()).isBetween(6, 10);
        assertThat(SegmentFiles.describe(cold.readBack("events", 0)))
                .isEqualTo(SegmentFiles.describe(log.allBatches(TP)));
    }

    @Test
    void aSecondPassOnlyOffloadsNewlyClosedSegments() throws Exception {
        log.append(TP, 10, 10, 50);
        log.roll(TP);
        try (Compactor c = compactor()) {
            assertThat(c.runOnce().objects()).isEqualTo(1);
            assertThat(c.runOnce().objects()).isZero();
            log.append(TP, 10, 10, 50);
            assertThat(c.runOnce().objects()).as("active segment waits").isZero();
            log.roll(TP);
            assertThat(c.runOnce().objects()).isEqualTo(1);
        }
        assertContiguous(cold.catalog().objects("events", 0), 0, 200);
    }

    @Test
    void aLogThatStartsLateIsOffloadedFromItsFirstOffset() throws Exception {
        log.startAt(TP, 1200);
        log.append(TP, 3, 10, 20);
        log.roll(TP);
        try (Compactor c = compactor()) {
            c.runOnce();
        }
        PartitionState s = cold.catalog().partitionState("events", 0);
        assertThat(s.coldLogStartOffset()).isEqualTo(1200);
        assertThat(s.coldHighWatermark()).isEqualTo(1230);
    }

    @Test
    void offsetsLostFromTheLogBeforeOffloadShowAsALagErrorNotAsAGap() throws Exception {
        log.append(TP, 2, 10, 20);
        log.roll(TP);
        try (Compactor c = compactor()) {
            c.runOnce();
            log.append(TP, 2, 10, 20);
            log.roll(TP);
            log.append(TP, 2, 10, 20);
            log.roll(TP);
            log.deleteOldest(TP);
            log.deleteOldest(TP); // offsets 20..39 never reached the cold tier
            PassResult r = c.runOnce();
            assertThat(r.failedPartitions()).isEqualTo(1);
            PartitionLag lag = c.lag().get(TP);
            assertThat(lag.lastError()).hasValueSatisfying(e -> assertThat(e).contains("20..39"));
        }
        assertThat(cold.catalog().partitionState("events", 0).coldHighWatermark()).isEqualTo(20);
    }

    @Test
    void lagShowsPendingBytesBeforeAPassAndNoneAfter() throws Exception {
        TopicPartition other = new TopicPartition("events", 3);
        log.append(TP, 10, 10, 100);
        log.roll(TP);
        log.append(other, 10, 10, 100);
        log.roll(other);
        log.append(other, 1, 1, 100);
        List<Long> backlogAtStart = new CopyOnWriteArrayList<>();
        try (Compactor c = compactor()) {
            c.addListener(
                    new OffloadListener() {
                        @Override
                        public void onPassStarted(long backlogBytes) {
                            backlogAtStart.add(backlogBytes);
                        }
                    });
            c.runOnce();
            long expected =
                    log.segments(TP).get(0).sizeInBytes()
                            + log.segments(other).get(0).sizeInBytes();
            assertThat(backlogAtStart).containsExactly(expected);
            assertThat(c.backlogBytes()).isZero();
            PartitionLag lag = c.lag().get(other);
            assertThat(lag.coldHighWatermark()).isEqualTo(100);
            assertThat(lag.pendingOffsets()).isZero();
            assertThat(lag.activeBytes()).isPositive();
            assertThat(lag.lastCommitMs()).isPositive();
            assertThat(lag.lastError()).isEmpty();
        }
        // Partition 3 seen first time: the catalog topic grew to 4 partitions.
        assertThat(cold.catalog().topic("events").orElseThrow().partitions()).isEqualTo(4);
    }

    @Test
    void severalThreadsOffloadSeveralPartitionsAndTheRateLimitStillLetsEverythingThrough()
            throws Exception {
        settings.put(CompactorOptions.OFFLOAD_THREADS.key(), "3");
        settings.put(CompactorOptions.OFFLOAD_UPLOAD_RATE_BYTES.key(), "50MiB");
        for (int p = 0; p < 6; p++) {
            TopicPartition tp = new TopicPartition("events", p);
            log.append(tp, 5, 10, 100);
            log.roll(tp);
        }
        try (Compactor c = compactor()) {
            assertThat(c.runOnce().objects()).isEqualTo(6);
        }
        for (int p = 0; p < 6; p++) {
            assertContiguous(cold.catalog().objects("events", p), 0, 50);
        }
    }

    @Test
    void twoCompactorsRacingOnOneCatalogNeverDuplicateAnOffset() throws Exception {
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "8KiB");
        for (int i = 0; i < 10; i++) {
            log.append(TP, 5, 10, 100);
            log.roll(TP);
        }
        try (io.tierlog.catalog.Catalog second =
                        io.tierlog.catalog.Catalog.open(cold.catalogUrl());
                Compactor a = compactor();
                Compactor b =
                        Compactor.create(
                                log,
                                Optional.of(log.dir()),
                                second,
                                cold.store(),
                                cold.config(settings),
                                Time.SYSTEM)) {
            Thread t =
                    new Thread(
                            () -> {
                                try {
                                    b.runOnce();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            });
            t.start();
            a.runOnce();
            t.join();
            a.runOnce(); // whatever the race left, one more pass finishes
        }
        List<ColdObject> objects = cold.catalog().objects("events", 0);
        assertContiguous(objects, 0, 500);
        // Losers deleted their objects: everything in the bucket is referenced.
        assertThat(cold.store().list("").stream().map(ObjectInfo::key).sorted().toList())
                .isEqualTo(objects.stream().map(ColdObject::key).sorted().toList());
    }

    @Test
    void excludedTopicsAreNeverOffloaded() throws Exception {
        TopicPartition metadata = new TopicPartition("__cluster_metadata", 0);
        log.append(metadata, 2, 2, 10);
        log.roll(metadata);
        log.append(TP, 2, 2, 10);
        log.roll(TP);
        try (Compactor c = compactor()) {
            assertThat(c.runOnce().objects()).isEqualTo(1);
            assertThat(c.lag()).doesNotContainKey(metadata);
        }
        assertThat(cold.catalog().topic("__cluster_metadata")).isEmpty();
    }

    @Test
    void theTempDirMayNotBeInsideTheSourceLogDir() {
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), log.dir().resolve("tmp").toString());
        assertThatThrownBy(this::compactor)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("inside the source log dir");
    }

    @Test
    void temporaryFilesOfDeadProcessesAreDeletedAtStartAndLiveOnesKept() throws Exception {
        Path tmp = dir.resolve("tmp");
        Files.createDirectories(tmp);
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        Path dead = tmp.resolve("tierlog-offload-" + p.pid() + "-0a1b.parquet");
        Path live =
                tmp.resolve("tierlog-offload-" + ProcessHandle.current().pid() + "-0a1c.parquet");
        Path unrelated = tmp.resolve("notes.txt");
        Files.writeString(dead, "x");
        Files.writeString(live, "x");
        Files.writeString(unrelated, "x");
        compactor().close();
        assertThat(dead).doesNotExist();
        assertThat(live).exists();
        assertThat(unrelated).exists();
    }

    @Test
    void theSourceDirectoryIsNeverWritten() throws Exception {
        log.append(TP, 10, 10, 100);
        log.roll(TP);
        Map<Path, byte[]> before = snapshot(log.dir());
        try (Compactor c = compactor()) {
            c.runOnce();
        }
        Map<Path, byte[]> after = snapshot(log.dir());
        assertThat(after.keySet()).isEqualTo(before.keySet());
        before.forEach((k, v) -> assertThat(after.get(k)).isEqualTo(v));
    }

    static Map<Path, byte[]> snapshot(Path root) throws Exception {
        Map<Path, byte[]> out = new HashMap<>();
        try (var files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.put(root.relativize(f), Files.readAllBytes(f));
            }
        }
        return out;
    }
}

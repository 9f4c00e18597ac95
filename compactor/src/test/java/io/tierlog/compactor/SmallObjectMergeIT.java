package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.CommitResult;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.common.MockTime;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.FaultyCatalog;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small-object merge end to end against the real cold tier (s3proxy over HTTP, SQLite catalog):
 * runs of small, old enough objects become one object holding exactly their records, young or large
 * objects stay, a merge racing retention loses cleanly, an unknown outcome is retried, and the cold
 * cleaned offset never moves.
 */
class SmallObjectMergeIT {
    static final String TOPIC = "events";
    static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    static final Duration MIN_AGE = Duration.ofMinutes(10);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    SegmentFiles log;
    FaultyCatalog catalog;
    MockTime time;
    Map<String, String> settings;
    final List<List<String>> merged = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        log = new SegmentFiles(dir.resolve("log"), 13);
        catalog = new FaultyCatalog(cold.catalog());
        time = new MockTime(1_800_000_000_000L);
        settings = new HashMap<>();
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1MiB");
        settings.put(CompactorOptions.OFFLOAD_RETRY_BACKOFF_MS.key(), "1ms");
        settings.put(CompactorOptions.OFFLOAD_RETRY_TIMEOUT_MS.key(), "5s");
        cold.catalog().createTopic(TOPIC, 1, Map.of());
    }

    /**
     * {@code segments} closed segments of a few batches each (headers, null keys, codecs), each
     * offloaded by its own pass of {@code c}: one small object per pass, as a quiet topic gets.
     */
    void offloadSegments(Compactor c, int segments) throws Exception {
        for (int s = 0; s < segments; s++) {
            log.append(TP, 3, 5, 40);
            log.roll(TP);
            assertThat(c.runOnce().failedPartitions()).isZero();
        }
    }

    Compactor compactor() throws Exception {
        Compactor c =
                Compactor.create(
                        log,
                        Optional.of(log.dir()),
                        catalog,
                        cold.store(),
                        cold.config(settings),
                        time);
        c.addListener(
                new OffloadListener() {
                    @Override
                    public void onObjectsMerged(
                            TopicPartition tp, List<String> keys, ObjectReport replacement) {
                        merged.add(keys);
                    }
                });
        return c;
    }

    List<String> coldRecords() throws Exception {
        return SegmentFiles.describe(cold.readBack(TOPIC, 0));
    }

    List<String> keys(List<ColdObject> objects) {
        return objects.stream().map(ColdObject::key).toList();
    }

    Set<String> stored() throws Exception {
        return cold.store().list("").stream().map(ObjectInfo::key).collect(Collectors.toSet());
    }

    @Test
    void aRunOfOldSmallObjectsBecomesOneObjectWithIdenticalRecordsAndTheRunIsRetired()
            throws Exception {
        try (Compactor c = compactor()) {
            offloadSegments(c, 12);
            long end = log.nextOffset(TP);
            List<ColdObject> before = cold.catalog().objects(TOPIC, 0);
            assertThat(before).hasSize(12);
            List<String> records = coldRecords();
            assertThat(records).isEqualTo(SegmentFiles.describe(log.allBatches(TP)));
            int filesBefore = stored().size();

            time.sleep(MIN_AGE.toMillis());
            Compactor.MergeResult r = c.runMergeOnce();
            assertThat(r.failedPartitions()).isZero();
            assertThat(r.runsMerged()).isEqualTo(1);
            assertThat(r.objectsReplaced()).isEqualTo(12);
            List<ColdObject> after = cold.catalog().objects(TOPIC, 0);
            assertThat(after).hasSize(1);
            ColdObject m = after.get(0);
            assertThat(m.firstOffset()).isZero();
            assertThat(m.lastOffset()).isEqualTo(end - 1);
            assertThat(m.recordCount())
                    .isEqualTo(before.stream().mapToLong(ColdObject::recordCount).sum());
            assertThat(m.minTimestamp()).isEqualTo(before.get(0).minTimestamp());
            assertThat(m.maxTimestamp()).isEqualTo(before.get(11).maxTimestamp());
            assertThat(coldRecords())
                    .as("offsets, keys, values, headers, timestamps")
                    .isEqualTo(records);
            assertThat(ObjectFooter.read(cold.store(), m.key(), m.sizeInBytes()).compacted())
                    .as("not a compacted object: a catalog rebuild reads no cleaning from it")
                    .isFalse();
            PartitionState st = cold.catalog().partitionState(TOPIC, 0);
            assertThat(st.coldCleanedOffset()).as("a merge is not a compaction").isZero();
            assertThat(st.coldHighWatermark()).isEqualTo(end);
            assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE))
                    .extracting(RetiredObject::key)
                    .containsExactlyInAnyOrderElementsOf(keys(before));
            assertThat(merged).containsExactly(keys(before));
            assertThat(stored()).as("retired objects stay until swept").hasSize(filesBefore + 1);

            assertThat(c.runMergeOnce().runsMerged()).as("nothing left to merge").isZero();
            time.sleep(Duration.ofHours(2).toMillis());
            c.sweepOrphans();
            assertThat(stored()).containsExactly(m.key());
            assertThat(coldRecords()).isEqualTo(records);
        }
    }

    /**
     * The measurement of issue #13: the object (file) count of a partition of N small objects
     * before a merge, right after it (the retired ones still stored), and after the sweep.
     */
    @Test
    void fileCountOfManySmallObjectsBeforeAndAfterMerging() throws Exception {
        int n = 100;
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "256KiB");
        try (Compactor c = compactor()) {
            offloadSegments(c, n);
            List<ColdObject> before = cold.catalog().objects(TOPIC, 0);
            long bytes = before.stream().mapToLong(ColdObject::sizeInBytes).sum();
            int storedBefore = stored().size();
            List<String> records = coldRecords();
            time.sleep(MIN_AGE.toMillis());
            long t0 = System.nanoTime();
            Compactor.MergeResult r = c.runMergeOnce();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            List<ColdObject> after = cold.catalog().objects(TOPIC, 0);
            int storedAfter = stored().size();
            time.sleep(Duration.ofHours(2).toMillis());
            c.sweepOrphans();
            int storedSwept = stored().size();
            System.out.printf(
                    "small-object merge: %d objects (%d bytes, avg %d) -> %d objects in %d runs"
                            + " (target 256KiB, %d ms); stored files %d before, %d after the"
                            + " merge, %d after the sweep%n",
                    before.size(),
                    bytes,
                    bytes / before.size(),
                    after.size(),
                    r.runsMerged(),
                    ms,
                    storedBefore,
                    storedAfter,
                    storedSwept);
            assertThat(before).hasSize(n);
            assertThat(storedBefore).isEqualTo(n);
            assertThat(after.size()).isLessThanOrEqualTo((int) (bytes / (256 * 1024)) + 2);
            assertThat(after.stream().mapToLong(ColdObject::sizeInBytes).max().orElseThrow())
                    .isLessThanOrEqualTo(256 * 1024 + 64 * 1024);
            assertThat(storedAfter).isEqualTo(n + after.size());
            assertThat(storedSwept).isEqualTo(after.size());
            assertThat(coldRecords()).isEqualTo(records);
        }
    }

    /** Runs {@link MergeChild} with the halt hook {@code haltAt}; its exit status. */
    int mergeInChildHaltedAt(String haltAt) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-D" + HaltHooks.AT_PROPERTY + "=" + haltAt);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(MergeChild.class.getName());
        cmd.add(cold.catalogUrl());
        cmd.add(Long.toString(time.milliseconds()));
        cmd.add(dir.resolve("child-empty").toString());
        cold.config(settings).asMap().forEach((k, v) -> cmd.add(k + "=" + v));
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("child.log").toFile())
                        .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        return p.exitValue();
    }

    @Test
    void aKillBetweenUploadAndCommitLeavesAnOrphanThatIsSweptAndTheCatalogUnchanged()
            throws Exception {
        try (Compactor c = compactor()) {
            offloadSegments(c, 4);
            List<ColdObject> before = cold.catalog().objects(TOPIC, 0);
            Set<String> storedBefore = stored();
            List<String> records = coldRecords();
            time.sleep(MIN_AGE.toMillis());
            assertThat(mergeInChildHaltedAt("merge-before-commit"))
                    .as(java.nio.file.Files.readString(dir.resolve("child.log")))
                    .isEqualTo(137);
            assertThat(cold.catalog().objects(TOPIC, 0)).isEqualTo(before);
            assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
            Set<String> orphans = new HashSet<>(stored());
            orphans.removeAll(storedBefore);
            assertThat(orphans).as("the merged upload, not committed").hasSize(1);
            assertThat(coldRecords()).isEqualTo(records);
            time.sleep(Duration.ofHours(2).toMillis());
            c.sweepOrphans();
            assertThat(stored()).isEqualTo(storedBefore);
        }
    }

    @Test
    void aKillRightAfterTheCommitLeavesTheRunMergedAndRetired() throws Exception {
        try (Compactor c = compactor()) {
            offloadSegments(c, 4);
            List<ColdObject> before = cold.catalog().objects(TOPIC, 0);
            List<String> records = coldRecords();
            time.sleep(MIN_AGE.toMillis());
            assertThat(mergeInChildHaltedAt("merge-after-commit"))
                    .as(java.nio.file.Files.readString(dir.resolve("child.log")))
                    .isEqualTo(137);
            assertThat(cold.catalog().objects(TOPIC, 0)).hasSize(1);
            assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE))
                    .extracting(RetiredObject::key)
                    .containsExactlyInAnyOrderElementsOf(keys(before));
            assertThat(coldRecords()).isEqualTo(records);
            assertThat(c.runMergeOnce().runsMerged()).isZero();
        }
    }

    @Test
    void youngObjectsAndLargeObjectsAreLeftAsTheyAre() throws Exception {
        try (Compactor c = compactor()) {
            offloadSegments(c, 4);
            time.sleep(MIN_AGE.toMillis() - 60_000);
            offloadSegments(c, 4); // with the loop's merge: none is old enough yet
            List<ColdObject> offloaded = cold.catalog().objects(TOPIC, 0);
            assertThat(offloaded).hasSize(8);
            assertThat(catalog.mergeCalls.get()).isZero();
            List<String> records = coldRecords();

            time.sleep(60_000);
            Compactor.MergeResult r = c.runMergeOnce();
            assertThat(r.objectsReplaced()).as("only the four old ones").isEqualTo(4);
            List<ColdObject> after = cold.catalog().objects(TOPIC, 0);
            assertThat(after).hasSize(5);
            assertThat(after.subList(1, 5)).isEqualTo(offloaded.subList(4, 8));
            assertThat(coldRecords()).isEqualTo(records);
        }
        // A target a quarter of which is below every object: nothing is small.
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1KiB");
        time.sleep(MIN_AGE.toMillis());
        try (Compactor c = compactor()) {
            List<ColdObject> now = cold.catalog().objects(TOPIC, 0);
            assertThat(now).allSatisfy(o -> assertThat(o.sizeInBytes()).isGreaterThan(256));
            assertThat(c.runMergeOnce().runsMerged()).isZero();
            assertThat(cold.catalog().objects(TOPIC, 0)).isEqualTo(now);
        }
    }

    @Test
    void aMergeRacingRetentionLosesTheCommitAndItsUploadIsDeleted() throws Exception {
        try (Compactor c = compactor()) {
            offloadSegments(c, 6);
            List<ColdObject> offloaded = cold.catalog().objects(TOPIC, 0);
            Set<String> storedBefore = stored();
            AtomicBoolean once = new AtomicBoolean();
            catalog.beforeMerge =
                    () -> {
                        if (once.compareAndSet(false, true)) {
                            cold.catalog()
                                    .removeObjectsBelow(TOPIC, 0, offloaded.get(1).nextOffset());
                        }
                    };
            time.sleep(MIN_AGE.toMillis());
            Compactor.MergeResult r = c.runMergeOnce();
            assertThat(r.conflicts()).isEqualTo(1);
            assertThat(r.runsMerged()).isZero();
            assertThat(cold.catalog().objects(TOPIC, 0)).isEqualTo(offloaded.subList(2, 6));
            assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
            assertThat(stored()).as("the losing upload is deleted").isEqualTo(storedBefore);

            List<String> records = coldRecords();
            r = c.runMergeOnce(); // planned again: the rest merges
            assertThat(r.objectsReplaced()).isEqualTo(4);
            assertThat(cold.catalog().objects(TOPIC, 0)).hasSize(1);
            assertThat(coldRecords()).isEqualTo(records);
            assertThat(cold.catalog().partitionState(TOPIC, 0).coldLogStartOffset())
                    .isEqualTo(offloaded.get(2).firstOffset());
        }
    }

    @Test
    void anUnknownOutcomeThatCommittedIsRetriedToAlreadyCommittedAndKeepsTheUpload()
            throws Exception {
        try (Compactor c = compactor()) {
            offloadSegments(c, 3);
            List<String> records = coldRecords();
            catalog.mergeUnknownButCommitted.set(1);
            time.sleep(MIN_AGE.toMillis());
            Compactor.MergeResult r = c.runMergeOnce();
            assertThat(r.runsMerged()).isEqualTo(1);
            assertThat(catalog.mergeCalls.get()).isEqualTo(2);
            List<ColdObject> after = cold.catalog().objects(TOPIC, 0);
            assertThat(after).hasSize(1);
            assertThat(stored()).contains(after.get(0).key());
            assertThat(coldRecords()).isEqualTo(records);
        }
    }

    @Test
    void aCompactedTopicsCleanedOffsetStaysAndRunsDoNotStraddleIt() throws Exception {
        cold.catalog().updateTopicConfigs(TOPIC, Map.of("cleanup.policy", "compact"));
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor c = compactor()) {
            offloadSegments(c, 6);
        }
        List<ColdObject> o = cold.catalog().objects(TOPIC, 0);
        // A compaction of the first three objects (nothing to drop): their copy, committed by a
        // replace-commit that advances the cleaned offset past them.
        ColdRunRewriter rw =
                new ColdRunRewriter(
                        cold.store(),
                        io.tierlog.cold.ColdTierOptions.from(cold.config(settings)),
                        TypedColumnsSource.NONE,
                        b -> {});
        Path f = dir.resolve("c.parquet");
        io.tierlog.cold.WrittenObject w = rw.copy(o.subList(0, 3), f, TOPIC, 0, true);
        String key = "compacted-0";
        cold.store().put(key, f);
        ColdObject c0 =
                new ColdObject(
                        TOPIC,
                        0,
                        o.get(0).firstOffset(),
                        o.get(2).lastOffset(),
                        w.minTimestamp(),
                        w.maxTimestamp(),
                        w.recordCount(),
                        java.nio.file.Files.size(f),
                        key,
                        o.get(0).createdAt());
        assertThat(
                        cold.catalog()
                                .replaceObjects(
                                        TOPIC,
                                        0,
                                        keys(o.subList(0, 3)),
                                        c0,
                                        o.get(2).nextOffset(),
                                        time.milliseconds()))
                .isEqualTo(CommitResult.COMMITTED);
        long cleaned = o.get(2).nextOffset();
        List<String> records = coldRecords();
        time.sleep(MIN_AGE.toMillis());
        try (Compactor c = compactor()) {
            Compactor.MergeResult r = c.runMergeOnce();
            assertThat(r.objectsReplaced())
                    .as("only the three above the cleaned offset")
                    .isEqualTo(3);
        }
        List<ColdObject> after = cold.catalog().objects(TOPIC, 0);
        assertThat(after).hasSize(2);
        assertThat(after.get(0).key()).isEqualTo(key);
        assertThat(after.get(1).firstOffset()).isEqualTo(cleaned);
        assertThat(cold.catalog().partitionState(TOPIC, 0).coldCleanedOffset()).isEqualTo(cleaned);
        assertThat(coldRecords()).isEqualTo(records);
        ObjectFooter mf =
                ObjectFooter.read(cold.store(), after.get(1).key(), after.get(1).sizeInBytes());
        assertThat(mf.compacted()).as("above the cleaned offset: an ordinary object").isFalse();
    }
}

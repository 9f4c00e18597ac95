package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.common.MockTime;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.FaultyCatalog;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cold compaction end to end against the real cold tier (s3proxy over HTTP, SQLite catalog): runs
 * replaced by compacted objects in one replace-commit each, latest values kept, tombstones removed
 * after their delete horizon only, a conflict re-planned, unknown outcomes retried without deleting
 * the upload.
 */
class ColdCompactionIT {
    static final String TOPIC = "table";
    static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    static final long RETENTION_MS = 3_600_000;

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    SegmentFiles log;
    FaultyCatalog catalog;
    MockTime time;
    Map<String, String> settings;

    /** Key -> latest value written (null = tombstone), and latest offset. */
    final Map<String, String> latest = new TreeMap<>();

    final Map<String, Long> latestOffset = new TreeMap<>();

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        log = new SegmentFiles(dir.resolve("log"), 7);
        catalog = new FaultyCatalog(cold.catalog());
        time = new MockTime(1_800_000_000_000L);
        settings = new HashMap<>();
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1KiB");
        settings.put(CompactorOptions.OFFLOAD_RETRY_BACKOFF_MS.key(), "1ms");
        settings.put(CompactorOptions.OFFLOAD_RETRY_TIMEOUT_MS.key(), "5s");
        cold.catalog()
                .createTopic(
                        TOPIC,
                        1,
                        Map.of(
                                "cleanup.policy",
                                "compact",
                                "delete.retention.ms",
                                Long.toString(RETENTION_MS)));
        Random rnd = new Random(11);
        for (int s = 0; s < 8; s++) {
            for (int b = 0; b < 8; b++) {
                String[] kv = new String[8];
                for (int i = 0; i < 4; i++) {
                    String key = "k" + rnd.nextInt(12);
                    String value = rnd.nextInt(7) == 0 ? null : "v" + s + "." + b + "." + i;
                    kv[2 * i] = key;
                    kv[2 * i + 1] = value;
                    latest.put(key, value);
                    latestOffset.put(key, log.nextOffset(TP) + i);
                }
                log.appendKeyed(TP, b % 2 == 0 ? CompressionType.NONE : CompressionType.ZSTD, kv);
            }
            log.roll(TP);
        }
    }

    Compactor compactor() throws Exception {
        return Compactor.create(
                log, Optional.of(log.dir()), catalog, cold.store(), cold.config(settings), time);
    }

    /** Key -> (offset, value) of every record a reader from offset 0 gets from the cold tier. */
    Map<String, String> readCold(boolean onlyOncePerKey) throws Exception {
        Map<String, String> seen = new TreeMap<>();
        for (RecordBatch b : cold.readBack(TOPIC, 0)) {
            for (Record r : b) {
                String k = str(r.key());
                String v = r.offset() + "=" + str(r.value());
                if (onlyOncePerKey) {
                    assertThat(seen).as("key %s twice", k).doesNotContainKey(k);
                }
                seen.put(k, v);
            }
        }
        return seen;
    }

    Map<String, String> expected(boolean withTombstones) {
        Map<String, String> m = new TreeMap<>();
        latest.forEach(
                (k, v) -> {
                    if (v != null || withTombstones) {
                        m.put(k, latestOffset.get(k) + "=" + v);
                    }
                });
        return m;
    }

    static String str(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    static void assertContiguous(List<ColdObject> objects, long from, long to) {
        long next = from;
        for (ColdObject o : objects) {
            assertThat(o.firstOffset()).as("object %s", o.key()).isEqualTo(next);
            next = o.nextOffset();
        }
        assertThat(next).isEqualTo(to);
    }

    /** Every object under the partition's prefix is committed or retired: nothing leaked. */
    void assertNoUnreferencedObjects() throws Exception {
        Set<String> known =
                new HashSet<>(
                        cold.catalog().objects(TOPIC, 0).stream().map(ColdObject::key).toList());
        cold.catalog().retiredObjects(Long.MAX_VALUE).forEach(r -> known.add(r.key()));
        Set<String> stored =
                cold.store().list("").stream().map(ObjectInfo::key).collect(Collectors.toSet());
        assertThat(known).as("every referenced or retired object is stored").isSubsetOf(stored);
        assertThat(stored).as("no upload left behind").isSubsetOf(known);
    }

    @Test
    void runsAreReplacedByCompactedObjectsKeepingTheLatestOfEveryKeyThenTombstonesGo()
            throws Exception {
        long end = log.nextOffset(TP);
        List<ColdObject> offloaded;
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor offloadOnly = compactor()) {
            offloadOnly.runOnce();
        }
        settings.remove(CompactorOptions.COLD_CLEANER_ENABLE.key());
        // compacted runs group small objects up to the target: a larger one groups several
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "64KiB");
        try (Compactor c = compactor()) {
            offloaded = cold.catalog().objects(TOPIC, 0);
            assertThat(offloaded).hasSizeGreaterThan(3);
            assertThat(readCold(false)).isEqualTo(expected(true));

            Compactor.ColdCompactionResult r = c.runColdCompactionOnce();
            assertThat(r.failedPartitions()).isZero();
            assertThat(r.objectsReplaced()).isEqualTo(offloaded.size());
            List<ColdObject> compacted = cold.catalog().objects(TOPIC, 0);
            assertContiguous(compacted, 0, end);
            assertThat(compacted.size()).isLessThan(offloaded.size());
            assertThat(catalog.replaceCalls.get()).isEqualTo(compacted.size());
            for (ColdObject o : compacted) {
                assertThat(
                                new ParquetLogReader(cold.store(), o.key(), o.sizeInBytes())
                                        .compactedReplaces())
                        .isNotEmpty();
            }
            assertThat(readCold(true)).isEqualTo(expected(true));
            PartitionState st = cold.catalog().partitionState(TOPIC, 0);
            assertThat(st.coldCleanedOffset()).isEqualTo(end);
            assertThat(st.lastColdCleaningMs()).isEqualTo(time.milliseconds());
            assertThat(st.coldHighWatermark()).isEqualTo(end);
            assertThat(
                            cold.catalog().retiredObjects(Long.MAX_VALUE).stream()
                                    .map(RetiredObject::key)
                                    .toList())
                    .containsExactlyInAnyOrderElementsOf(
                            offloaded.stream().map(ColdObject::key).toList());
            assertNoUnreferencedObjects();

            assertThat(c.runColdCompactionOnce().runsCommitted())
                    .as("nothing dirty, no tombstone due: no pass")
                    .isZero();

            time.sleep(RETENTION_MS - 1);
            c.runColdCompactionOnce();
            assertThat(readCold(true)).as("before the horizon").isEqualTo(expected(true));

            time.sleep(1);
            r = c.runColdCompactionOnce();
            assertThat(r.tombstonesRemoved())
                    .isEqualTo(latest.values().stream().filter(v -> v == null).count());
            assertThat(readCold(true)).as("after the horizon").isEqualTo(expected(false));
            assertContiguous(cold.catalog().objects(TOPIC, 0), 0, end);
            assertNoUnreferencedObjects();
        }
    }

    @Test
    void aRunChangedByRetentionBeforeItsCommitIsDeletedAndReplannedNextPass() throws Exception {
        long end = log.nextOffset(TP);
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor offloadOnly = compactor()) {
            offloadOnly.runOnce();
        }
        settings.remove(CompactorOptions.COLD_CLEANER_ENABLE.key());
        ColdObject first = cold.catalog().objects(TOPIC, 0).get(0);
        catalog.beforeReplace =
                () -> {
                    catalog.beforeReplace = () -> {};
                    cold.catalog().removeObjectsBelow(TOPIC, 0, first.nextOffset());
                };
        try (Compactor c = compactor()) {
            Compactor.ColdCompactionResult r = c.runColdCompactionOnce();
            assertThat(r.failedPartitions()).as("the conflict ends the pass").isEqualTo(1);
            assertThat(r.runsCommitted()).isZero();
            assertThat(cold.catalog().retiredObjects(Long.MAX_VALUE)).isEmpty();
            assertThat(cold.store().head(first.key())).isNotNull(); // retention deletes it, not us
            cold.store().delete(first.key());
            assertNoUnreferencedObjects();

            r = c.runColdCompactionOnce();
            assertThat(r.failedPartitions()).isZero();
            assertThat(r.runsCommitted()).isPositive();
            assertContiguous(cold.catalog().objects(TOPIC, 0), first.nextOffset(), end);
            assertNoUnreferencedObjects();
        }
    }

    @Test
    void unknownReplaceOutcomesAreRetriedWithTheSameKeyAndNoUploadIsDeleted() throws Exception {
        long end = log.nextOffset(TP);
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor offloadOnly = compactor()) {
            offloadOnly.runOnce();
        }
        settings.remove(CompactorOptions.COLD_CLEANER_ENABLE.key());
        catalog.replaceUnknownButCommitted.set(1);
        catalog.replaceUnknownNotCommitted.set(1);
        try (Compactor c = compactor()) {
            Compactor.ColdCompactionResult r = c.runColdCompactionOnce();
            assertThat(r.failedPartitions()).isZero();
            List<ColdObject> compacted = cold.catalog().objects(TOPIC, 0);
            assertContiguous(compacted, 0, end);
            assertThat(catalog.replaceCalls.get()).isEqualTo(compacted.size() + 2);
            assertThat(readCold(true)).isEqualTo(expected(true));
            assertNoUnreferencedObjects();
        }
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.CompactorOptions;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads of compacted (sparse) cold objects through the engine, against s3proxy over HTTP: a fetch
 * at an offset compaction removed gets the next kept batch (in the same object, the next one, or
 * the hot tier), never an empty answer below the high watermark; an offset of an object the engine
 * read before a replace-commit, retired and then deleted from the store, is served from the
 * compacted object (the race inside one read is {@code ColdReadRetiredObjectIT}).
 */
class CompactedColdReadIT {
    private static final TopicPartition TP = new TopicPartition("table", 0);
    private static final int KEYS = 300;

    @TempDir Path dir;
    EngineFixture fx;
    TieredLog log;
    final Map<Long, String> written = new TreeMap<>(); // offset -> key=value

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        // one object per 16 KiB segment: a read of one never loads another
        log =
                fx.open(
                        Map.of(
                                "local.retention.bytes", "20000",
                                "cold.read.ahead", "false",
                                "offload.target.object.bytes", "16KiB"));
        log.createTopic(TP.topic(), 1, Map.of());
        Random rnd = new Random(5);
        for (int b = 0; b < 300; b++) {
            long base = log.latestOffset(TP);
            SimpleRecord[] recs = new SimpleRecord[5];
            for (int i = 0; i < recs.length; i++) {
                String k = "k" + rnd.nextInt(KEYS);
                String v = "v" + (base + i) + "-" + "x".repeat(60);
                recs[i] =
                        new SimpleRecord(
                                1_700_000_000_000L + base + i,
                                k.getBytes(StandardCharsets.UTF_8),
                                v.getBytes(StandardCharsets.UTF_8));
                written.put(base + i, k + "=" + v);
            }
            log.append(TP, MemoryRecords.withRecords(Compression.NONE, recs).buffer().duplicate());
        }
        log.maintain();
        assertThat(log.offsets(TP).hotLogStartOffset()).isGreaterThan(500);
        // compaction only from now on (the engine refuses compact at creation until it has it)
        fx.cold
                .catalog()
                .updateTopicConfigs(
                        TP.topic(),
                        Map.of("cleanup.policy", "compact", "min.cleanable.dirty.ratio", "0.01"));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (log != null) {
            log.close();
        }
        if (fx != null) {
            fx.close();
        }
    }

    /** A compactor of the same cold tier that this test drives (an empty hot source). */
    private Compactor outOfBandCompactor() throws Exception {
        SegmentFiles none = new SegmentFiles(dir.resolve("none"), 1);
        return fx.cold.compactor(
                none,
                Optional.of(none.dir()),
                Map.of(
                        CompactorOptions.OFFLOAD_TMP_DIR.key(),
                        dir.resolve("tmp").toString(),
                        CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(),
                        "32KiB"),
                Time.SYSTEM);
    }

    private void compactAndDeleteRetired() throws Exception {
        try (Compactor c = outOfBandCompactor()) {
            Compactor.ColdCompactionResult r = c.runColdCompactionOnce();
            assertThat(r.failedPartitions()).isZero();
            assertThat(r.runsCommitted()).isPositive();
        }
        // what the sweeper does once the grace period passed
        for (RetiredObject o : fx.cold.catalog().retiredObjects(Long.MAX_VALUE)) {
            fx.cold.store().delete(o.key());
        }
    }

    @Test
    void aFetchAtACompactedAwayOffsetGetsTheNextKeptBatchAndAReaderFromZeroSeesTheLatestOfEachKey()
            throws Exception {
        long hotStart = log.offsets(TP).hotLogStartOffset();
        compactAndDeleteRetired();
        List<ColdObject> objects = fx.cold.catalog().objects(TP.topic(), 0);
        long coldEnd = objects.get(objects.size() - 1).nextOffset();
        // every offset of the cold range: the answer starts at the first kept batch reaching it
        for (long offset = 0; offset < coldEnd; offset += 7) {
            TierRead r = EngineFixture.get(log.read(TP, offset, 2048));
            assertThat(r.isEmpty()).as("read at %d", offset).isFalse();
            RecordBatch first = EngineFixture.batches(r).get(0);
            assertThat(first.lastOffset()).as("read at %d", offset).isGreaterThanOrEqualTo(offset);
            for (Record rec : first) {
                if (rec.offset() >= offset) {
                    assertThat(text(rec)).isEqualTo(written.get(rec.offset()));
                }
            }
        }
        // a consumer from offset 0: offsets ascend, the latest value of every key is there
        Map<String, Long> latestSeen = new TreeMap<>();
        List<Long> offsets = new ArrayList<>();
        long next = 0;
        long hw = log.latestOffset(TP);
        while (next < hw) {
            TierRead r = EngineFixture.get(log.read(TP, next, 4096));
            assertThat(r.isEmpty()).as("read at %d below the high watermark", next).isFalse();
            for (RecordBatch b : EngineFixture.batches(r)) {
                for (Record rec : b) {
                    if (rec.offset() >= next) {
                        offsets.add(rec.offset());
                        latestSeen.put(text(rec).split("=")[0], rec.offset());
                    }
                }
            }
            next = r.nextOffset();
        }
        assertThat(offsets).isSorted().doesNotHaveDuplicates();
        Map<String, Long> latest = new TreeMap<>();
        written.forEach((o, kv) -> latest.put(kv.split("=")[0], o));
        assertThat(latestSeen).isEqualTo(latest);
        assertThat(offsets.stream().filter(o -> o < hotStart).count())
                .as("cold records were compacted")
                .isLessThan(hotStart);
    }

    @Test
    void anOffsetOfAReplacedAndDeletedObjectIsServedFromTheCompactedObject() throws Exception {
        // the engine has read the offloaded objects (its index and caches know them)
        TierRead before = EngineFixture.get(log.read(TP, 0, 1024));
        assertThat(before.tier()).isEqualTo(TierRead.Tier.COLD);
        ColdObject old =
                fx.cold.catalog().objects(TP.topic(), 0).stream()
                        .filter(o -> o.contains(600))
                        .findFirst()
                        .orElseThrow();
        assertThat(old.firstOffset()).as("not the object read above").isPositive();
        compactAndDeleteRetired();
        assertThat(fx.cold.catalog().objects(TP.topic(), 0)).doesNotContain(old);
        // an offset of the old object, never loaded: the index routes to it, its GETs find none
        long offset = 600;
        TierRead r = EngineFixture.get(log.read(TP, offset, 1024));
        assertThat(r.isEmpty()).isFalse();
        assertThat(r.tier()).isEqualTo(TierRead.Tier.COLD);
        assertThat(((TierRead.Cold) r).objectKey()).isNotEqualTo(old.key());
        RecordBatch first = EngineFixture.batches(r).get(0);
        assertThat(first.lastOffset()).isGreaterThanOrEqualTo(offset);
    }

    private static String text(Record r) {
        return StandardCharsets.UTF_8.decode(r.key())
                + "="
                + StandardCharsets.UTF_8.decode(r.value());
    }
}

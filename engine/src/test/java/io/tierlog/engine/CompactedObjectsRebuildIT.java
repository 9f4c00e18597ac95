package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.PartitionState;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.WrittenObject;
import io.tierlog.common.Config;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bucket holding compacted objects next to the originals they replaced: {@code verify} expects
 * the retired originals, {@code catalog rebuild} chooses the compacted objects and restores the
 * originals as retired, and {@code verify} flags a retired object that is still committed and a
 * compacted object whose records are out of order. The compaction is done by hand here (a copy of
 * the run's batches, written as a compacted object and replace-committed), as the cold compactor
 * does it.
 */
class CompactedObjectsRebuildIT {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;
    EngineFixture fx;
    Config config;
    List<ColdObject> originals;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        config = fx.config(Map.of("offload.target.object.bytes", "8192"));
        try (TieredLog log = TieredLog.open(config)) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 150, 10, BASE_TS);
            log.maintain();
            originals = log.catalog().objects(TP.topic(), 0);
        }
        assertThat(originals.size()).isGreaterThan(3);
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    /** Writes a compacted copy of {@code batches} for the range of {@code run}; uploads it. */
    private ColdObject writeCompacted(List<ColdObject> run, List<RecordBatch> batches)
            throws Exception {
        long first = run.get(0).firstOffset();
        long last = run.get(run.size() - 1).lastOffset();
        Path file = dir.resolve("compacted-" + first + "-" + last + ".parquet");
        WrittenObject w;
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(file, TP.topic(), 0, ColdTierOptions.from(config))) {
            writer.markCompacted(first, last);
            for (RecordBatch b : batches) {
                writer.append(b);
            }
            w = writer.finish();
        }
        String key =
                ObjectKeys.newKey(
                        ColdTierOptions.from(config).prefix(), TP.topic(), 0, first, last);
        fx.cold.store().put(key, file);
        return new ColdObject(
                TP.topic(),
                0,
                w.firstOffset(),
                w.lastOffset(),
                w.minTimestamp(),
                w.maxTimestamp(),
                w.recordCount(),
                w.sizeInBytes(),
                key,
                Instant.now());
    }

    private List<RecordBatch> batchesOf(List<ColdObject> run) throws Exception {
        ObjectStore store = fx.cold.store();
        List<RecordBatch> out = new ArrayList<>();
        for (ColdObject o : run) {
            ParquetLogReader r = new ParquetLogReader(store, o.key(), o.sizeInBytes());
            long next = o.firstOffset();
            while (next <= o.lastOffset()) {
                for (RecordBatch b : r.read(next, 1 << 20).batches()) {
                    out.add(b);
                    next = b.lastOffset() + 1;
                }
            }
        }
        return out;
    }

    /** Compacts {@code run} (by copying it: a compaction that found nothing to drop). */
    private ColdObject compact(Catalog catalog, List<ColdObject> run) throws Exception {
        ColdObject c = writeCompacted(run, batchesOf(run));
        catalog.replaceObjects(
                TP.topic(),
                0,
                run.stream().map(ColdObject::key).toList(),
                c,
                c.nextOffset(),
                System.currentTimeMillis());
        return c;
    }

    private Catalog openCatalog() {
        return Catalog.open(fx.cold.catalogUrl());
    }

    private void deleteCatalog() throws Exception {
        Path db = Path.of(fx.cold.catalogUrl().substring("jdbc:sqlite:".length()));
        for (String suffix : List.of("", "-wal", "-shm")) {
            Files.deleteIfExists(Path.of(db + suffix));
        }
    }

    @Test
    void aRebuildPrefersCompactedObjectsAndRestoresTheOriginalsTheyReplacedAsRetired()
            throws Exception {
        ColdObject c1;
        ColdObject c2;
        try (Catalog catalog = openCatalog()) {
            c1 = compact(catalog, originals.subList(0, 2));
            // compacted again, with its neighbour: c1 is retired in turn
            c2 = compact(catalog, List.of(c1, originals.get(2)));
        }
        List<String> replaced =
                List.of(
                        originals.get(0).key(),
                        originals.get(1).key(),
                        originals.get(2).key(),
                        c1.key());
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            assertThat(ro.verify(true)).as("retired objects are expected in the bucket").isEmpty();
            assertThat(ro.notes())
                    .filteredOn(n -> n.contains("replaced by a compaction"))
                    .hasSize(4);
        }

        deleteCatalog();
        List<String> out = CatalogRebuild.run(config, false, false);
        assertThat(out).anyMatch(l -> l.contains("4 replaced by compacted objects, retired"));

        try (Catalog catalog = openCatalog()) {
            List<ColdObject> now = catalog.objects(TP.topic(), 0);
            assertThat(now.get(0).key()).isEqualTo(c2.key());
            assertThat(now.stream().map(ColdObject::key).toList())
                    .containsExactlyElementsOf(
                            java.util.stream.Stream.concat(
                                            java.util.stream.Stream.of(c2.key()),
                                            originals.subList(3, originals.size()).stream()
                                                    .map(ColdObject::key))
                                    .toList());
            assertThat(catalog.retiredObjects(Long.MAX_VALUE))
                    .extracting(RetiredObject::key)
                    .containsExactlyInAnyOrderElementsOf(replaced);
            PartitionState s = catalog.partitionState(TP.topic(), 0);
            assertThat(s.coldCleanedOffset()).isEqualTo(c2.nextOffset());
            assertThat(s.lastColdCleaningMs()).isPositive();
            assertThat(s.coldHighWatermark())
                    .isEqualTo(originals.get(originals.size() - 1).nextOffset());
        }
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            assertThat(ro.verify(true)).isEmpty();
        }
    }

    @Test
    void verifyFlagsARetiredObjectThatIsStillCommitted() throws Exception {
        try (Catalog catalog = openCatalog()) {
            compact(catalog, originals.subList(0, 1));
        }
        try (Connection c = DriverManager.getConnection(fx.cold.catalogUrl());
                Statement s = c.createStatement()) {
            s.executeUpdate(
                    "INSERT INTO retired_objects VALUES ('"
                            + originals.get(1).key()
                            + "', 'events', 0, 1)");
        }
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            List<Violation> v = ro.verify(false);
            assertThat(v)
                    .singleElement()
                    .satisfies(
                            x -> {
                                assertThat(x.kind())
                                        .isEqualTo(Violation.Kind.RETIRED_STILL_REFERENCED);
                                assertThat(x.message()).contains(originals.get(1).key());
                            });
        }
    }

    @Test
    void deepVerifyFlagsACompactedObjectWhoseRecordsAreNotAscending() throws Exception {
        ColdObject run = originals.get(0);
        long base = run.firstOffset();
        MemoryRecords good =
                MemoryRecords.withRecords(
                        base, Compression.NONE, record(base), record(base + 1), record(base + 2));
        ByteBuffer bad = swapOffsetDeltasOfRecords1And2(good);
        RecordBatch broken = MemoryRecords.readableRecords(bad).batches().iterator().next();
        broken.ensureValid(); // a valid batch (CRC and all) with offsets out of order
        ColdObject c;
        try (Catalog catalog = openCatalog()) {
            c = writeCompacted(List.of(run), List.of(broken));
            catalog.replaceObjects(
                    TP.topic(),
                    0,
                    List.of(run.key()),
                    c,
                    c.nextOffset(),
                    System.currentTimeMillis());
        }
        try (ReadOnlyTieredLog ro = ReadOnlyTieredLog.open(config)) {
            assertThat(ro.verify(true))
                    .anySatisfy(
                            x -> {
                                assertThat(x.kind()).isEqualTo(Violation.Kind.OBJECT_UNREADABLE);
                                assertThat(x.message())
                                        .contains(c.key())
                                        .contains("(compacted)")
                                        .contains("not ascending");
                            });
        }
    }

    private static SimpleRecord record(long offset) {
        return new SimpleRecord(
                BASE_TS + offset,
                ("k" + offset).getBytes(StandardCharsets.UTF_8),
                ("v" + offset).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The batch with the offset deltas of its second and third record swapped (records of equal
     * timestamp delta width: each delta is one zig-zag varint byte), its CRC made valid again.
     */
    private static ByteBuffer swapOffsetDeltasOfRecords1And2(MemoryRecords records) {
        ByteBuffer buf = ByteBuffer.allocate(records.sizeInBytes());
        buf.put(records.buffer().duplicate()).flip();
        int[] deltaAt = new int[3];
        int pos = 61; // DefaultRecordBatch.RECORDS_OFFSET
        for (int i = 0; i < 3; i++) {
            int length = 0;
            int shift = 0;
            int b;
            do {
                b = buf.get(pos++);
                length |= (b & 0x7f) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            int bodyStart = pos;
            int p = pos + 1; // attributes
            while ((buf.get(p++) & 0x80) != 0) {} // timestamp delta
            deltaAt[i] = p;
            pos = bodyStart + (length >>> 1 ^ -(length & 1));
        }
        byte d1 = buf.get(deltaAt[1]);
        buf.put(deltaAt[1], buf.get(deltaAt[2]));
        buf.put(deltaAt[2], d1);
        MutableRecordBatch batch = MemoryRecords.readableRecords(buf).batches().iterator().next();
        long max = batch.maxTimestamp();
        batch.setMaxTimestamp(batch.timestampType(), max + 1); // rewrites the CRC
        batch.setMaxTimestamp(batch.timestampType(), max);
        return buf;
    }
}

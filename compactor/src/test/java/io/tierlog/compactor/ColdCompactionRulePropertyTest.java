package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.WrittenObject;
import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.common.testing.Property;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cold compaction rule on random logs (random keys, updates, tombstones, keyless records,
 * codecs, producer batches, offset gaps, objects grouped into random runs), written to and read
 * back from real Parquet objects: after a pass, the latest record of every key is there with its
 * offset, timestamp, value and headers, nothing else of a key is, every kept record is a record of
 * the input, offsets ascend, kept batches keep their base/last offsets and producer fields, and
 * each compacted object stands for exactly its run's range; tombstones stay (with a delete horizon
 * set) until a later pass after delete.retention.ms removes them.
 */
class ColdCompactionRulePropertyTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long RETENTION = 60_000;

    @TempDir Path dir;

    /** A record as a consumer sees it. */
    record Rec(long offset, String key, String value, long timestamp, List<String> headers) {}

    @Test
    void latestValuePerKeyKeptOffsetsAscendingRangesExactTombstonesAfterHorizonOnly() {
        Property.forAll(
                25,
                rnd -> {
                    Path tryDir = Files.createTempDirectory(dir, "try");
                    ObjectStore store = new LocalDirObjectStore(tryDir.resolve("s3"));
                    ColdTierOptions opts = ColdTierOptions.defaults();
                    List<MemoryRecords> batches = randomLog(rnd);
                    List<ColdObject> objects = writeObjects(rnd, batches, store, opts, tryDir);
                    Map<Long, Rec> input = new TreeMap<>();
                    Map<Long, RecordBatch> inputBatches = new HashMap<>();
                    for (MemoryRecords m : batches) {
                        for (MutableRecordBatch b : m.batches()) {
                            inputBatches.put(b.baseOffset(), b);
                            for (Record r : b) {
                                input.put(r.offset(), rec(r));
                            }
                        }
                    }
                    Map<String, Rec> latest = new HashMap<>();
                    input.values().stream()
                            .filter(r -> r.key() != null)
                            .forEach(r -> latest.put(r.key(), r));

                    // first pass: tombstones get their horizon, nothing but superseded values goes
                    List<ColdObject> once = pass(rnd, objects, store, opts, tryDir, T0);
                    Map<Long, Rec> after = readAll(once, store, inputBatches);
                    assertThat(after.values())
                            .as("exactly the latest record of every key, tombstones included")
                            .containsExactlyInAnyOrderElementsOf(latest.values());
                    after.values().forEach(r -> assertThat(r).isEqualTo(input.get(r.offset())));
                    assertContiguous(objects, once);

                    // before the horizon a later pass keeps the tombstones
                    List<ColdObject> early =
                            pass(rnd, once, store, opts, tryDir, T0 + RETENTION - 1);
                    assertThat(readAll(early, store, inputBatches).values())
                            .containsExactlyInAnyOrderElementsOf(latest.values());

                    // after it, the tombstones go and every latest value stays
                    List<ColdObject> late = pass(rnd, early, store, opts, tryDir, T0 + RETENTION);
                    assertThat(readAll(late, store, inputBatches).values())
                            .containsExactlyInAnyOrderElementsOf(
                                    latest.values().stream()
                                            .filter(r -> r.value() != null)
                                            .toList());
                    assertContiguous(objects, late);
                });
    }

    /** One pass over every object (all dirty), in random runs; returns the compacted objects. */
    private static List<ColdObject> pass(
            Random rnd,
            List<ColdObject> objects,
            ObjectStore store,
            ColdTierOptions opts,
            Path tmp,
            long now)
            throws IOException {
        ColdRunRewriter rewriter =
                new ColdRunRewriter(store, opts, TypedColumnsSource.NONE, bytes -> {});
        ColdKeyMap map = new ColdKeyMap(64 * 1024);
        for (ColdObject o : objects) {
            rewriter.map(o, map);
        }
        ColdRecordFilter filter = new ColdRecordFilter(now, RETENTION, map, true);
        List<ColdObject> out = new ArrayList<>();
        int i = 0;
        while (i < objects.size()) {
            int n = 1 + rnd.nextInt(Math.min(3, objects.size() - i));
            List<ColdObject> run = objects.subList(i, i + n);
            Path file = Files.createTempFile(tmp, "run", ".parquet");
            ColdRunRewriter.Rewritten r = rewriter.rewrite(run, filter, file, "t", 0);
            WrittenObject w = r.object();
            assertThat(w.firstOffset()).isEqualTo(run.get(0).firstOffset());
            assertThat(w.lastOffset()).isEqualTo(run.get(n - 1).lastOffset());
            String key = "t/0/compacted-" + now + "-" + i;
            store.put(key, file);
            ColdObject c = object(key, w, Files.size(file));
            ParquetLogReader reader = new ParquetLogReader(store, key, c.sizeInBytes());
            assertThat(reader.firstOffset()).isEqualTo(c.firstOffset());
            assertThat(reader.lastOffset()).isEqualTo(c.lastOffset());
            assertThat(ObjectFooter.read(store, key, c.sizeInBytes()).compacted()).isTrue();
            if (w.recordCount() > 0) {
                assertThat(reader.read(c.firstOffset(), 1).sizeInBytes())
                        .as("a read from the range's start gets the first kept batch")
                        .isPositive();
            }
            out.add(c);
            i += n;
        }
        return out;
    }

    private static void assertContiguous(List<ColdObject> before, List<ColdObject> after) {
        assertThat(after.get(0).firstOffset()).isEqualTo(before.get(0).firstOffset());
        assertThat(after.get(after.size() - 1).lastOffset())
                .isEqualTo(before.get(before.size() - 1).lastOffset());
        for (int i = 1; i < after.size(); i++) {
            assertThat(after.get(i).firstOffset()).isEqualTo(after.get(i - 1).lastOffset() + 1);
        }
    }

    /** Every record of the objects, checking order and batch fields against the input. */
    private static Map<Long, Rec> readAll(
            List<ColdObject> objects, ObjectStore store, Map<Long, RecordBatch> inputBatches)
            throws IOException {
        Map<Long, Rec> out = new TreeMap<>();
        long last = -1;
        for (ColdObject o : objects) {
            ParquetLogReader reader = new ParquetLogReader(store, o.key(), o.sizeInBytes());
            long next = o.firstOffset();
            while (next <= o.lastOffset()) {
                MemoryRecords m = reader.read(next, 1 << 20);
                if (m.sizeInBytes() == 0) {
                    break;
                }
                for (MutableRecordBatch b : m.batches()) {
                    assertThat(b.baseOffset()).isGreaterThan(last).isGreaterThanOrEqualTo(next);
                    assertThat(b.lastOffset()).isLessThanOrEqualTo(o.lastOffset());
                    RecordBatch in = inputBatches.get(b.baseOffset());
                    assertThat(in).as("batch %d is an input batch", b.baseOffset()).isNotNull();
                    assertThat(b.lastOffset()).isEqualTo(in.lastOffset());
                    assertThat(b.producerId()).isEqualTo(in.producerId());
                    assertThat(b.producerEpoch()).isEqualTo(in.producerEpoch());
                    assertThat(b.baseSequence()).isEqualTo(in.baseSequence());
                    assertThat(b.compressionType()).isEqualTo(in.compressionType());
                    b.ensureValid();
                    assertThat(b.countOrNull()).as("no empty batch is kept").isPositive();
                    for (Record r : b) {
                        assertThat(r.offset()).isGreaterThan(last);
                        last = r.offset();
                        out.put(r.offset(), rec(r));
                    }
                    last = b.lastOffset();
                    next = b.lastOffset() + 1;
                }
            }
        }
        return out;
    }

    private static Rec rec(Record r) {
        List<String> h = new ArrayList<>();
        for (Header x : r.headers()) {
            h.add(
                    x.key()
                            + "="
                            + (x.value() == null
                                    ? null
                                    : new String(x.value(), StandardCharsets.UTF_8)));
        }
        return new Rec(r.offset(), str(r.key()), str(r.value()), r.timestamp(), h);
    }

    private static String str(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }

    private static List<MemoryRecords> randomLog(Random rnd) {
        int keys = 2 + rnd.nextInt(20);
        int batches = 1 + rnd.nextInt(30);
        List<CompressionType> codecs =
                Arrays.asList(CompressionType.NONE, CompressionType.LZ4, CompressionType.ZSTD);
        List<MemoryRecords> out = new ArrayList<>();
        long offset = rnd.nextInt(3) == 0 ? rnd.nextInt(1000) : 0;
        long clock = T0 - 1_000_000;
        for (int i = 0; i < batches; i++) {
            boolean producer = rnd.nextBoolean();
            int n = 1 + rnd.nextInt(6);
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            MemoryRecordsBuilder b =
                    new MemoryRecordsBuilder(
                            buf,
                            RecordBatch.MAGIC_VALUE_V2,
                            Compression.of(codecs.get(rnd.nextInt(codecs.size()))).build(),
                            TimestampType.CREATE_TIME,
                            offset,
                            RecordBatch.NO_TIMESTAMP,
                            producer ? 7 : RecordBatch.NO_PRODUCER_ID,
                            producer ? (short) 1 : RecordBatch.NO_PRODUCER_EPOCH,
                            producer ? i * 10 : RecordBatch.NO_SEQUENCE,
                            false,
                            false,
                            3,
                            buf.capacity());
            for (int j = 0; j < n; j++) {
                String key = rnd.nextInt(30) == 0 ? null : "k" + rnd.nextInt(keys);
                String value = rnd.nextInt(6) == 0 ? null : "v" + offset + "-" + rnd.nextInt(1000);
                Header[] headers =
                        rnd.nextInt(3) == 0
                                ? new Header[] {
                                    new RecordHeader(
                                            "h",
                                            ("x" + rnd.nextInt(9)).getBytes(StandardCharsets.UTF_8))
                                }
                                : new Header[0];
                b.appendWithOffset(
                        offset,
                        clock + rnd.nextInt(1000),
                        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                        headers);
                offset += 1;
            }
            out.add(b.build());
            offset += rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(3) : 0; // a gap (earlier compaction)
            clock += 1000;
        }
        return out;
    }

    private static List<ColdObject> writeObjects(
            Random rnd,
            List<MemoryRecords> batches,
            ObjectStore store,
            ColdTierOptions opts,
            Path tmp)
            throws IOException {
        List<ColdObject> out = new ArrayList<>();
        int i = 0;
        long start = -1;
        while (i < batches.size()) {
            int n = 1 + rnd.nextInt(Math.min(5, batches.size() - i));
            Path file = Files.createTempFile(tmp, "obj", ".parquet");
            WrittenObject w;
            try (ParquetLogWriter writer = ParquetLogWriter.open(file, "t", 0, opts)) {
                for (int j = i; j < i + n; j++) {
                    writer.append(batches.get(j).firstBatch());
                }
                w = writer.finish();
            }
            String key = "t/0/obj-" + i;
            store.put(key, file);
            ColdObject o = object(key, w, Files.size(file));
            if (start >= 0) {
                // an object covers from the previous one's end, as the offloader commits them
                o =
                        new ColdObject(
                                "t",
                                0,
                                start,
                                o.lastOffset(),
                                o.minTimestamp(),
                                o.maxTimestamp(),
                                o.recordCount(),
                                o.sizeInBytes(),
                                key,
                                o.createdAt());
            }
            out.add(o);
            start = o.lastOffset() + 1;
            i += n;
        }
        return out;
    }

    private static ColdObject object(String key, WrittenObject w, long size) {
        return new ColdObject(
                "t",
                0,
                w.firstOffset(),
                w.lastOffset(),
                w.minTimestamp(),
                w.maxTimestamp(),
                w.recordCount(),
                size,
                key,
                Instant.ofEpochMilli(T0));
    }
}

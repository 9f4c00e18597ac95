package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Invariant 5 (a record read from the cold tier equals the one written) as a property: random
 * batches of every codec, with null keys/values, headers, idempotent and transactional producer
 * fields, LogAppendTime, transaction markers and offset gaps go through Parquet and back; the
 * rebuilt batches have the original boundaries and fields, equal records, and pass kafka-clients'
 * CRC validation.
 */
class BatchFidelityPropertyTest {
    static Path dir;

    @BeforeContainer
    static void createDir() throws IOException {
        dir = Files.createTempDirectory("fidelity");
    }

    @AfterContainer
    static void deleteDir() throws IOException {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Provide
    Arbitrary<List<CompressionType>> codecMixes() {
        return Arbitraries.oneOf(
                Arbitraries.of(TestBatches.CODECS).map(List::of),
                Arbitraries.just(TestBatches.CODECS));
    }

    @Property(tries = 40)
    void batchesSurviveParquetRoundTrip(
            @ForAll long seed,
            @ForAll("codecMixes") List<CompressionType> codecs,
            @ForAll ColdCompression parquetCodec)
            throws IOException {
        Random rnd = new Random(seed);
        long base = rnd.nextInt(3) == 0 ? 0 : Math.abs(rnd.nextLong() % 1_000_000_000_000L);
        List<MemoryRecords> input =
                TestBatches.randomBatches(rnd, base, 1 + rnd.nextInt(30), codecs);
        String key = "t/0/" + Long.toHexString(seed) + parquetCodec + ".parquet";
        Path local = dir.resolve(key.replace('/', '_'));
        ColdTierOptions options =
                ColdTierOptions.defaults()
                        .with(ColdTierOptions.COLD_COMPRESSION, parquetCodec.name())
                        .with(ColdTierOptions.COLD_PAGE_ROW_LIMIT, "" + (1 + rnd.nextInt(50)));
        WrittenObject written;
        try (ParquetLogWriter w = ParquetLogWriter.open(local, "t", 0, options)) {
            for (MemoryRecords m : input) {
                w.append(m.firstBatch());
            }
            written = w.finish();
        }
        List<RecordBatch> original = new ArrayList<>();
        input.forEach(m -> m.batches().forEach(original::add));
        assertThat(written.firstOffset()).isEqualTo(original.get(0).baseOffset());
        assertThat(written.lastOffset()).isEqualTo(original.get(original.size() - 1).lastOffset());
        assertThat(written.batchCount()).isEqualTo(original.size());

        LocalDirObjectStore store = new LocalDirObjectStore(dir.resolve("store"));
        store.put(key, local);
        ParquetLogReader reader = new ParquetLogReader(store, key, Files.size(local));

        // Read everything, from the first offset, in small fetches.
        List<RecordBatch> rebuilt = new ArrayList<>();
        long next = written.firstOffset();
        int maxBytes = 1 + rnd.nextInt(20_000);
        while (next <= written.lastOffset()) {
            MemoryRecords got = reader.read(next, maxBytes);
            assertThat(got.sizeInBytes()).as("read at %d", next).isPositive();
            for (RecordBatch b : got.batches()) {
                rebuilt.add(b);
                next = b.lastOffset() + 1;
            }
        }
        assertSameBatches(rebuilt, original);

        // A read from an offset inside a batch returns that whole batch first.
        RecordBatch middle = original.get(rnd.nextInt(original.size()));
        long inside =
                middle.baseOffset()
                        + rnd.nextInt((int) (middle.lastOffset() - middle.baseOffset() + 1));
        RecordBatch first = reader.read(inside, 1).firstBatch();
        assertThat(first.baseOffset()).isEqualTo(middle.baseOffset());
        assertThat(reader.read(written.lastOffset() + 1, 1000).sizeInBytes()).isZero();
    }

    static void assertSameBatches(List<RecordBatch> rebuilt, List<RecordBatch> original) {
        assertThat(rebuilt).hasSameSizeAs(original);
        for (int i = 0; i < original.size(); i++) {
            RecordBatch o = original.get(i);
            RecordBatch r = rebuilt.get(i);
            ((DefaultRecordBatch) r).ensureValid(); // CRC-32C recomputed correctly
            assertThat(r.baseOffset()).isEqualTo(o.baseOffset());
            assertThat(r.lastOffset()).isEqualTo(o.lastOffset());
            assertThat(r.partitionLeaderEpoch()).isEqualTo(o.partitionLeaderEpoch());
            assertThat(r.producerId()).isEqualTo(o.producerId());
            assertThat(r.producerEpoch()).isEqualTo(o.producerEpoch());
            assertThat(r.baseSequence()).isEqualTo(o.baseSequence());
            assertThat(r.isTransactional()).isEqualTo(o.isTransactional());
            assertThat(r.isControlBatch()).isEqualTo(o.isControlBatch());
            assertThat(r.compressionType()).isEqualTo(o.compressionType());
            assertThat(r.timestampType()).isEqualTo(o.timestampType());
            assertThat(r.maxTimestamp()).isEqualTo(o.maxTimestamp());
            assertThat(r.countOrNull()).isEqualTo(o.countOrNull());
            Iterator<Record> ri = r.iterator();
            for (Record or : o) {
                assertThat(ri.hasNext()).isTrue();
                Record rr = ri.next();
                assertThat(rr.offset()).isEqualTo(or.offset());
                assertThat(rr.timestamp()).isEqualTo(or.timestamp());
                assertThat(rr.sequence()).isEqualTo(or.sequence());
                assertThat(bytes(rr.key())).isEqualTo(bytes(or.key()));
                assertThat(bytes(rr.value())).isEqualTo(bytes(or.value()));
                assertThat(rr.headers()).isEqualTo(or.headers());
            }
            assertThat(ri.hasNext()).isFalse();
            if (o.compressionType() == CompressionType.NONE
                    && o.timestampType()
                            == org.apache.kafka.common.record.TimestampType.CREATE_TIME) {
                // Uncompressed CreateTime batches come back byte for byte.
                assertThat(bytesOf(r)).isEqualTo(bytesOf(o));
            }
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] bytesOf(RecordBatch b) {
        ByteBuffer buf = ByteBuffer.allocate(b.sizeInBytes());
        b.writeTo(buf);
        return buf.array();
    }
}

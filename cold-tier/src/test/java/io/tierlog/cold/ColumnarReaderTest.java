package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import io.tierlog.common.testing.Property;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columnar reader ({@link ColumnarReader}, what {@link ParquetLogReader#read} uses) against
 * parquet-mr's record reader ({@link ParquetLogReader#readRecords}, the reference): for random
 * objects with many row groups, unaligned pages of every column, every Parquet codec, headers,
 * nulls, gaps and transaction markers, a read from any offset with any byte limit returns the
 * batches parquet-mr decodes from that offset, as many as fit in the limit (parquet-mr's own {@code
 * read} may stop earlier, at the end of the offset window it estimated); and a damaged page fails
 * the read instead of returning wrong records.
 */
class ColumnarReaderTest {
    @TempDir static Path dir;

    @Test
    void columnarReadsReturnTheBatchesOfParquetMrsRecordReader() {
        Property.forAll(
                25,
                r -> {
                    ColdCompression codec =
                            ColdCompression.values()[r.nextInt(ColdCompression.values().length)];
                    compare(r.nextLong(), codec);
                });
    }

    private static void compare(long seed, ColdCompression codec) throws IOException {
        Random rnd = new Random(seed);
        List<MemoryRecords> input =
                TestBatches.randomBatches(
                        rnd,
                        rnd.nextInt(1000),
                        20 + rnd.nextInt(120),
                        BatchFidelityPropertyTest.codecMix(rnd));
        ColdTierOptions options =
                ColdTierOptions.defaults()
                        .with(ColdTierOptions.COLD_COMPRESSION, codec.name())
                        // 64 KiB row groups: most objects here have several, and batches that
                        // span two of them
                        .with(ColdTierOptions.COLD_ROW_GROUP_BYTES, "65536")
                        .with(ColdTierOptions.COLD_PAGE_BYTES, "" + (1024 + rnd.nextInt(32_768)))
                        .with(ColdTierOptions.COLD_PAGE_ROW_LIMIT, "" + (1 + rnd.nextInt(80)));
        String key = "c/0/" + Long.toHexString(seed) + codec + ".parquet";
        ParquetLogReader reader = write(key, input, options);
        List<RecordBatch> all = new ArrayList<>();
        input.forEach(m -> m.batches().forEach(all::add));
        long first = all.get(0).baseOffset();
        long last = all.get(all.size() - 1).lastOffset();
        for (int i = 0; i < 30; i++) {
            long offset = first - 2 + (long) (rnd.nextDouble() * (last - first + 5));
            int maxBytes =
                    switch (rnd.nextInt(4)) {
                        case 0 -> rnd.nextInt(2);
                        case 1 -> rnd.nextInt(5_000);
                        case 2 -> rnd.nextInt(200_000);
                        default -> Integer.MAX_VALUE;
                    };
            // The reference: every batch from the offset on, cut to the longest prefix within
            // maxBytes (at least one batch).
            List<RecordBatch> rest = batchesOf(reader.readRecords(offset, Integer.MAX_VALUE));
            List<RecordBatch> expected = new ArrayList<>();
            long total = 0;
            for (RecordBatch b : rest) {
                total += b.sizeInBytes();
                if (!expected.isEmpty() && total > maxBytes) {
                    break;
                }
                expected.add(b);
            }
            MemoryRecords got = reader.read(offset, maxBytes);
            assertThat(batchesOf(got))
                    .as("read(%d, %d) of %s", offset, maxBytes, key)
                    .hasSameSizeAs(expected);
            BatchFidelityPropertyTest.assertSameBatches(batchesOf(got), expected);
            if (expected.stream().allMatch(b -> b.compressionType() == CompressionType.NONE)) {
                assertThat(bytes(got)).isEqualTo(concat(expected));
            }
        }
        // Sequential reads in small steps cover every batch exactly once.
        List<RecordBatch> sequential = new ArrayList<>();
        long next = first;
        int step = 1 + rnd.nextInt(30_000);
        while (next <= last) {
            MemoryRecords got = reader.read(next, step);
            assertThat(got.sizeInBytes()).as("read at %d", next).isPositive();
            for (RecordBatch b : got.batches()) {
                sequential.add(b);
                next = b.lastOffset() + 1;
            }
        }
        BatchFidelityPropertyTest.assertSameBatches(sequential, all);
    }

    @Test
    void largeDictionariesAreDecodedPerReadNotKeptWithTheObject() throws IOException {
        // Two-record batches in one large page: batch_base_offset and the batch timestamps have a
        // value per two rows (dictionary encoding still pays off), so each of their dictionaries
        // holds 40,000 longs.
        List<MemoryRecords> input =
                TestBatches.uniformBatches(0, 40_000, 2, 8, CompressionType.NONE, 4);
        ParquetLogReader reader =
                write(
                        "many-batches",
                        input,
                        ColdTierOptions.defaults()
                                .with(ColdTierOptions.COLD_PAGE_BYTES, "16MiB")
                                .with(ColdTierOptions.COLD_PAGE_ROW_LIMIT, "100000"));
        List<RecordBatch> all = new ArrayList<>();
        input.forEach(m -> m.batches().forEach(all::add));
        List<RecordBatch> got = new ArrayList<>();
        long next = 0;
        while (next <= 79_999) {
            for (RecordBatch b : reader.read(next, 256 * 1024).batches()) {
                got.add(b);
                next = b.lastOffset() + 1;
            }
        }
        BatchFidelityPropertyTest.assertSameBatches(got, all);
        assertThat(reader.pageMap()).isNotNull();
        assertThat(reader.pageMap().keptDictionaryBytes())
                .isPositive()
                .isLessThanOrEqualTo(ObjectPages.MAX_DICTIONARY_BYTES);
        assertThat(reader.pageMap().dictionariesNotKept()).isPositive();
    }

    @Test
    void aDamagedDataPageFailsTheReadWithTheObjectKey() throws IOException {
        List<MemoryRecords> input =
                TestBatches.uniformBatches(0, 50, 20, 300, CompressionType.NONE, 3);
        Path local = dir.resolve("damaged.parquet");
        TestBatches.writeObject(
                local,
                "t",
                0,
                ColdTierOptions.defaults()
                        .with(
                                ColdTierOptions.COLD_COMPRESSION,
                                ColdCompression.UNCOMPRESSED.name()),
                input);
        byte[] bytes = Files.readAllBytes(local);
        // Values are the bulk of the object: a byte a third of the way in is inside a value page.
        bytes[bytes.length / 3] ^= 0x40;
        LocalDirObjectStore store = new LocalDirObjectStore(dir.resolve("damaged-store"));
        store.put("damaged", bytes);
        ParquetLogReader reader = new ParquetLogReader(store, "damaged", bytes.length);
        assertThatThrownBy(() -> reader.read(0, Integer.MAX_VALUE))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("damaged")
                .hasMessageContaining("checksum");
    }

    private static ParquetLogReader write(
            String key, List<MemoryRecords> input, ColdTierOptions options) throws IOException {
        Path local = dir.resolve(key.replace('/', '_'));
        TestBatches.writeObject(local, "t", 0, options, input);
        LocalDirObjectStore store = new LocalDirObjectStore(dir.resolve("store"));
        store.put(key, local);
        return new ParquetLogReader(store, key, Files.size(local));
    }

    private static List<RecordBatch> batchesOf(MemoryRecords m) {
        List<RecordBatch> out = new ArrayList<>();
        m.batches().forEach(out::add);
        return out;
    }

    private static byte[] concat(List<RecordBatch> batches) {
        ByteBuffer b =
                ByteBuffer.allocate(batches.stream().mapToInt(RecordBatch::sizeInBytes).sum());
        batches.forEach(x -> x.writeTo(b));
        return b.array();
    }

    private static byte[] bytes(MemoryRecords m) {
        ByteBuffer b = m.buffer().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}

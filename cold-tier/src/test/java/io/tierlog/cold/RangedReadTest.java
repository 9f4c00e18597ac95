package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.CountingObjectStore;
import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader of a small offset range must fetch a small part of a large object: the footer and page
 * indexes once, then only the pages that hold the wanted batches. Bytes are counted by wrapping the
 * store.
 */
class RangedReadTest {
    static final String KEY = "t/0/big.parquet";
    static final int BATCHES = 2_000;
    static final int PER_BATCH = 100;

    @TempDir static Path dir;
    static LocalDirObjectStore backing;
    static WrittenObject written;
    static List<MemoryRecords> input;

    @BeforeAll
    static void writeLargeObject() throws Exception {
        input = TestBatches.uniformBatches(1_000, BATCHES, PER_BATCH, 100, CompressionType.NONE, 7);
        Path local = dir.resolve("big.parquet");
        written = TestBatches.writeObject(local, "t", 0, ColdTierOptions.defaults(), input);
        backing = new LocalDirObjectStore(dir.resolve("store"));
        backing.put(KEY, local);
    }

    @Test
    void readingASmallRangeFetchesFarFewerBytesThanTheObject() throws Exception {
        CountingObjectStore counting = new CountingObjectStore(backing);
        ParquetLogReader reader = new ParquetLogReader(counting, KEY, written.sizeInBytes());
        long target = 1_000 + (long) BATCHES * PER_BATCH / 2 + 37;

        MemoryRecords got = reader.read(target, 16 * 1024);

        RecordBatch first = got.firstBatch();
        assertThat(first.baseOffset()).isLessThanOrEqualTo(target);
        assertThat(first.lastOffset()).isGreaterThanOrEqualTo(target);
        boolean found = false;
        for (Record r : first) {
            found |= r.offset() == target;
        }
        assertThat(found).isTrue();
        assertThat(written.sizeInBytes()).isGreaterThan(4L << 20);
        assertThat(counting.bytesRead())
                .as("bytes fetched for one small read of a %d-byte object", written.sizeInBytes())
                .isLessThan(written.sizeInBytes() / 10);
        assertThat(counting.getRequests()).isLessThan(40);
    }

    @Test
    void footerAndIndexesAreFetchedOnlyOnceAcrossReads() throws Exception {
        CountingObjectStore counting = new CountingObjectStore(backing);
        ParquetLogReader reader = new ParquetLogReader(counting, KEY, written.sizeInBytes());
        reader.read(1_000, 1024);
        long size = written.sizeInBytes();
        // The first read fetches the tail holding the footer (and the page indexes before it).
        long tailStart =
                counting.requests().stream()
                        .map(RangedReadTest::range)
                        .filter(r -> r[0] + r[1] == size)
                        .mapToLong(r -> r[0])
                        .min()
                        .orElseThrow();
        counting.reset();
        reader.read(1_000 + 50_000, 1024);
        assertThat(counting.requests())
                .as("GETs of a second read")
                .isNotEmpty()
                .allSatisfy(
                        r -> assertThat(range(r)[0] + range(r)[1]).isLessThanOrEqualTo(tailStart));
        assertThat(counting.bytesRead()).isLessThan(size / 10);
    }

    /** {position, length} of a logged ranged GET "key@position+length". */
    private static long[] range(String logged) {
        String r = logged.substring(logged.lastIndexOf('@') + 1);
        int plus = r.indexOf('+');
        return new long[] {
            Long.parseLong(r.substring(0, plus)), Long.parseLong(r.substring(plus + 1))
        };
    }

    @Test
    void readRespectsMaxBytesButAlwaysReturnsOneWholeBatch() throws Exception {
        ParquetLogReader reader = new ParquetLogReader(backing, KEY, written.sizeInBytes());
        int batchSize = input.get(0).sizeInBytes();
        MemoryRecords one = reader.read(1_000 + 5, 1);
        assertThat(one.batches()).hasSize(1);
        assertThat(one.firstBatch().baseOffset()).isEqualTo(1_000);
        MemoryRecords three = reader.read(1_000, batchSize * 3 + batchSize / 2);
        assertThat(three.batches()).hasSize(3);
        assertThat(three.sizeInBytes()).isLessThanOrEqualTo(batchSize * 3 + batchSize / 2);
    }

    @Test
    void readBeforeTheFirstOffsetStartsAtTheFirstBatchAndPastTheEndIsEmpty() throws Exception {
        ParquetLogReader reader = new ParquetLogReader(backing, KEY, written.sizeInBytes());
        assertThat(reader.read(0, 1).firstBatch().baseOffset()).isEqualTo(1_000);
        assertThat(reader.read(written.lastOffset() + 1, 1 << 20).sizeInBytes()).isZero();
        assertThat(reader.firstOffset()).isEqualTo(1_000);
        assertThat(reader.lastOffset()).isEqualTo(1_000 + (long) BATCHES * PER_BATCH - 1);
        assertThat(Files.size(dir.resolve("store").resolve(KEY))).isEqualTo(written.sizeInBytes());
    }
}

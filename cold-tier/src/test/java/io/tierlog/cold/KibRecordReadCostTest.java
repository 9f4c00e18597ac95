package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.CountingObjectStore;
import io.tierlog.cold.testing.LocalDirObjectStore;
import io.tierlog.cold.testing.TestBatches;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sequential consumer reads 1 MiB at a time; with 1 KiB records the value column dominates the
 * object, so its pages decide how much a read fetches from S3. With the default layout a 1 MiB read
 * must fetch about 1 MiB (plus at most a page per column and the footer once), not whole ~10 MiB
 * pages. Bytes are counted by wrapping the store.
 */
class KibRecordReadCostTest {
    static final String KEY = "t/0/kib.parquet";
    static final int BATCHES = 200;
    static final int PER_BATCH = 100;
    static final int VALUE_BYTES = 1024;
    static final int READ_BYTES = 1 << 20;

    @TempDir static Path dir;
    static LocalDirObjectStore backing;
    static WrittenObject written;
    static Path local;

    @BeforeAll
    static void writeObjectOfKibRecords() throws Exception {
        List<MemoryRecords> input =
                TestBatches.uniformBatches(
                        0, BATCHES, PER_BATCH, VALUE_BYTES, CompressionType.NONE, 11);
        local = dir.resolve("kib.parquet");
        written = TestBatches.writeObject(local, "t", 0, ColdTierOptions.defaults(), input);
        backing = new LocalDirObjectStore(dir.resolve("store"));
        backing.put(KEY, local);
    }

    @Test
    void valuePagesOfKibRecordsStayNearThePageSizeInsteadOfTheRowLimit() throws Exception {
        long pageBytes = ColdTierOptions.defaults().pageBytes();
        try (ParquetFileReader r =
                ParquetFileReader.open(
                        new LocalInputFile(local), ParquetReadOptions.builder().build())) {
            for (BlockMetaData block : r.getFooter().getBlocks()) {
                for (ColumnChunkMetaData c : block.getColumns()) {
                    OffsetIndex idx = r.readOffsetIndex(c);
                    assertThat(idx).as("offset index of %s", c.getPath()).isNotNull();
                    for (int p = 0; p < idx.getPageCount(); p++) {
                        if (Boolean.getBoolean("tierlog.test.dumpPages")) {
                            System.out.printf(
                                    "%s page %d: rows %d, %d bytes%n",
                                    c.getPath(),
                                    p,
                                    idx.getLastRowIndex(p, block.getRowCount())
                                            - idx.getFirstRowIndex(p)
                                            + 1,
                                    idx.getCompressedPageSize(p));
                        }
                        assertThat((long) idx.getCompressedPageSize(p))
                                .as("page %d of column %s", p, c.getPath())
                                .isLessThanOrEqualTo(pageBytes + pageBytes / 4);
                    }
                }
            }
        }
    }

    @Test
    void aOneMibReadFromTheMiddleFetchesLessThanThreeMib() throws Exception {
        assertThat(written.sizeInBytes()).isGreaterThan(8L << 20);
        CountingObjectStore counting = new CountingObjectStore(backing);
        ParquetLogReader reader = new ParquetLogReader(counting, KEY, written.sizeInBytes());
        reader.firstOffset(); // footer and page indexes: once per object, counted apart
        counting.reset();

        MemoryRecords got = reader.read((long) BATCHES * PER_BATCH / 2 + 17, READ_BYTES);

        assertThat(got.sizeInBytes()).isGreaterThan(READ_BYTES / 2).isLessThanOrEqualTo(READ_BYTES);
        assertThat(counting.bytesRead())
                .as("bytes fetched for a 1 MiB read (GETs %s)", counting.requests())
                .isLessThan(3L << 20);
        assertThat(counting.getRequests())
                .as("GETs for a 1 MiB read: coalesced, not one per column")
                .isLessThanOrEqualTo(6);
        System.out.printf(
                "1 MiB read of %d bytes: %d GETs, %d bytes%n",
                got.sizeInBytes(), counting.getRequests(), counting.bytesRead());
    }

    @Test
    void consecutiveOneMibReadsFetchAboutWhatTheyReturn() throws Exception {
        CountingObjectStore counting = new CountingObjectStore(backing);
        ParquetLogReader reader = new ParquetLogReader(counting, KEY, written.sizeInBytes());
        reader.firstOffset();
        counting.reset();
        long offset = 0;
        long returned = 0;
        for (int i = 0; i < 8; i++) {
            MemoryRecords got = reader.read(offset, READ_BYTES);
            RecordBatch last = null;
            for (RecordBatch b : got.batches()) {
                last = b;
            }
            assertThat(last).isNotNull();
            assertThat(got.firstBatch().baseOffset()).isEqualTo(offset);
            offset = last.nextOffset();
            returned += got.sizeInBytes();
        }
        assertThat(counting.bytesRead())
                .as("bytes fetched for 8 consecutive 1 MiB reads returning %d", returned)
                .isLessThan(returned * 2);
        System.out.printf(
                "8 reads returning %d bytes: %d GETs, %d bytes%n",
                returned, counting.getRequests(), counting.bytesRead());
    }
}

package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.cold.testing.TestBatches;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input to the writer fails clearly and leaves no partial object behind. */
class ParquetLogWriterTest {
    @TempDir Path dir;

    List<MemoryRecords> batches() {
        return TestBatches.uniformBatches(100, 3, 10, 50, CompressionType.NONE, 1);
    }

    @Test
    void summaryDescribesWhatWasWritten() throws Exception {
        Path f = dir.resolve("o.parquet");
        WrittenObject w;
        w = TestBatches.writeObject(f, "t", 2, ColdTierOptions.defaults(), batches());
        assertThat(w.topic()).isEqualTo("t");
        assertThat(w.partition()).isEqualTo(2);
        assertThat(w.firstOffset()).isEqualTo(100);
        assertThat(w.lastOffset()).isEqualTo(129);
        assertThat(w.recordCount()).isEqualTo(30);
        assertThat(w.batchCount()).isEqualTo(3);
        assertThat(w.sizeInBytes()).isEqualTo(Files.size(f));
        assertThat(w.sourceBytes())
                .isEqualTo(batches().stream().mapToLong(MemoryRecords::sizeInBytes).sum());
        assertThat(w.minTimestamp()).isLessThanOrEqualTo(w.maxTimestamp());
    }

    @Test
    void aCompactedObjectTakesTheReplacedRangeAndItsFooterSaysSo() throws Exception {
        io.tierlog.cold.testing.LocalDirObjectStore store =
                new io.tierlog.cold.testing.LocalDirObjectStore(dir.resolve("store"));
        Path plain = dir.resolve("plain.parquet");
        Path compacted = dir.resolve("compacted.parquet");
        TestBatches.writeObject(plain, "t", 0, ColdTierOptions.defaults(), batches());
        WrittenObject w;
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(compacted, "t", 0, ColdTierOptions.defaults())) {
            writer.markCompacted(90, 139); // the records at both ends were compacted away
            for (MemoryRecords b : batches()) {
                writer.append(b.firstBatch());
            }
            w = writer.finish();
        }
        assertThat(w.firstOffset()).isEqualTo(90);
        assertThat(w.lastOffset()).isEqualTo(139);
        store.put("plain", plain);
        store.put("compacted", compacted);
        ObjectFooter p = ObjectFooter.read(store, "plain", Files.size(plain));
        ObjectFooter c = ObjectFooter.read(store, "compacted", Files.size(compacted));
        assertThat(p.compacted()).isFalse();
        assertThat(c.compacted()).isTrue();
        assertThat(c.firstOffset()).isEqualTo(90);
        assertThat(c.lastOffset()).isEqualTo(139);
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(
                        dir.resolve("narrow.parquet"), "t", 0, ColdTierOptions.defaults())) {
            writer.markCompacted(100, 119);
            for (MemoryRecords b : batches()) {
                writer.append(b.firstBatch());
            }
            assertThatThrownBy(writer::finish)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("outside the replaced range");
        }
    }

    @Test
    void outOfOrderBatchIsRejected() throws Exception {
        List<MemoryRecords> b = batches();
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(
                        dir.resolve("o.parquet"), "t", 0, ColdTierOptions.defaults())) {
            writer.append(b.get(1).firstBatch());
            assertThatThrownBy(() -> writer.append(b.get(0).firstBatch()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not follow");
            writer.append(b.get(2).firstBatch()); // the writer is still usable
            assertThat(writer.finish().recordCount()).isEqualTo(20);
        }
    }

    @Test
    void corruptBatchIsRejectedBeforeAnyRowIsWritten() throws Exception {
        MemoryRecords good = batches().get(0);
        ByteBuffer bad = ByteBuffer.allocate(good.sizeInBytes());
        bad.put(good.buffer().duplicate()).flip();
        bad.put(bad.limit() - 3, (byte) (bad.get(bad.limit() - 3) ^ 1));
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(
                        dir.resolve("o.parquet"), "t", 0, ColdTierOptions.defaults())) {
            assertThatThrownBy(() -> writer.append(MemoryRecords.readableRecords(bad).firstBatch()))
                    .isInstanceOf(CorruptRecordException.class);
            assertThat(writer.recordCount()).isZero();
            writer.append(good.firstBatch());
            assertThat(writer.finish().recordCount()).isEqualTo(10);
        }
    }

    @Test
    void closeWithoutFinishDeletesThePartialFile() throws Exception {
        Path f = dir.resolve("o.parquet");
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(f, "t", 0, ColdTierOptions.defaults())) {
            writer.append(batches().get(0).firstBatch());
        }
        assertThat(f).doesNotExist();
    }

    @Test
    void finishWithoutBatchesIsAnError() throws Exception {
        Path f = dir.resolve("o.parquet");
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(f, "t", 0, ColdTierOptions.defaults())) {
            assertThatThrownBy(writer::finish).isInstanceOf(IllegalStateException.class);
        }
        assertThat(f).doesNotExist();
    }

    @Test
    void everyParquetCodecProducesAReadableObject() throws Exception {
        for (ColdCompression c : ColdCompression.values()) {
            Path f = dir.resolve(c + ".parquet");
            TestBatches.writeObject(
                    f,
                    "t",
                    0,
                    ColdTierOptions.defaults().with(ColdTierOptions.COLD_COMPRESSION, c.name()),
                    batches());
            var store = new io.tierlog.cold.testing.LocalDirObjectStore(dir.resolve("s"));
            store.put(c.name(), f);
            MemoryRecords back =
                    new ParquetLogReader(store, c.name(), Files.size(f)).read(100, 1 << 20);
            assertThat(back.batches()).as("codec %s", c).hasSize(3);
        }
    }

    @Test
    void batchesReadFromASegmentFileAreAccepted() throws Exception {
        Path segment = dir.resolve("00000000000000000100.log");
        try (FileRecords log = FileRecords.open(segment.toFile())) {
            for (MemoryRecords m : batches()) {
                log.append(m);
            }
            log.flush();
            Path f = dir.resolve("from-file.parquet");
            try (ParquetLogWriter w =
                    ParquetLogWriter.open(f, "t", 0, ColdTierOptions.defaults())) {
                for (RecordBatch b : log.batches()) {
                    w.append(b); // FileChannelRecordBatch, not DefaultRecordBatch
                }
                WrittenObject o = w.finish();
                assertThat(o.recordCount()).isEqualTo(30);
                assertThat(o.sourceBytes()).isEqualTo(log.sizeInBytes());
            }
        }
    }
}

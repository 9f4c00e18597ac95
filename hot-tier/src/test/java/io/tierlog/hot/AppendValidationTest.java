package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.hot.InvalidBatchException.Kind;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of invalid batch is refused with its own error and leaves the log untouched. */
class AppendValidationTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final RandomBatches gen = new RandomBatches(7);
    PartitionLog log;

    @BeforeEach
    void open() throws Exception {
        log =
                PartitionLog.open(
                        tmp.resolve("v-0"),
                        LogConfig.from(Map.of("message.max.bytes", "20000")),
                        time);
        log.append(gen.batch());
    }

    @AfterEach
    void close() throws Exception {
        log.close();
    }

    private void assertRejected(ByteBuffer request, Kind kind) throws Exception {
        long leo = log.logEndOffset();
        long size = Files.size(log.segments().get(0).logFile());
        assertThatThrownBy(() -> log.append(request))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class, e -> assertThat(e.kind()).isEqualTo(kind));
        assertThat(log.logEndOffset()).isEqualTo(leo);
        assertThat(log.highWatermark()).isEqualTo(leo);
        assertThat(Files.size(log.segments().get(0).logFile())).isEqualTo(size);
    }

    @Test
    void crcMismatchIsCorruptMessage() throws Exception {
        ByteBuffer b = gen.batch();
        int i = b.limit() - 1;
        b.put(i, (byte) (b.get(i) ^ 0x10));
        assertRejected(b, Kind.CORRUPT_MESSAGE);
    }

    @Test
    void magicOtherThanTwoIsUnsupported() throws Exception {
        ByteBuffer b = gen.batch();
        b.put(RecordBatchLayout.MAGIC_OFFSET, (byte) 1);
        assertRejected(b, Kind.UNSUPPORTED_MAGIC);
    }

    @Test
    void lengthBeyondBufferIsCorrupt() throws Exception {
        ByteBuffer b = gen.batch();
        assertRejected(b.limit(b.limit() - 3), Kind.CORRUPT_MESSAGE);
    }

    @Test
    void recordCountNotMatchingRecordsIsInvalidRecord() throws Exception {
        ByteBuffer b =
                RandomBatches.batch(
                        CompressionType.NONE,
                        List.of(
                                new SimpleRecord(time.milliseconds(), null, new byte[] {1}),
                                new SimpleRecord(time.milliseconds(), null, new byte[] {2})));
        b.putInt(RecordBatchLayout.RECORDS_COUNT_OFFSET, 3);
        b.putInt(RecordBatchLayout.LAST_OFFSET_DELTA_OFFSET, 2);
        RecordBatchLayout.writeCrc(b, 0, b.limit());
        assertRejected(b, Kind.INVALID_RECORD);
    }

    @Test
    void compressedRecordCountIsCheckedByDecompressing() throws Exception {
        ByteBuffer b = RandomBatches.batch(CompressionType.ZSTD, gen.records(5, 50));
        int count = b.getInt(RecordBatchLayout.RECORDS_COUNT_OFFSET);
        b.putInt(RecordBatchLayout.RECORDS_COUNT_OFFSET, count + 1);
        b.putInt(RecordBatchLayout.LAST_OFFSET_DELTA_OFFSET, count);
        RecordBatchLayout.writeCrc(b, 0, b.limit());
        assertRejected(b, Kind.INVALID_RECORD);
    }

    @Test
    void lastOffsetDeltaInconsistentWithCountIsInvalidRecord() throws Exception {
        ByteBuffer b = gen.batch();
        b.putInt(
                RecordBatchLayout.LAST_OFFSET_DELTA_OFFSET,
                b.getInt(RecordBatchLayout.LAST_OFFSET_DELTA_OFFSET) + 1);
        RecordBatchLayout.writeCrc(b, 0, b.limit());
        assertRejected(b, Kind.INVALID_RECORD);
    }

    @Test
    void batchOverMessageMaxBytesIsTooLarge() throws Exception {
        assertRejected(gen.fixedSizeBatch(CompressionType.NONE, 30, 1000), Kind.MESSAGE_TOO_LARGE);
    }

    @Test
    void wrongMaxTimestampIsInvalidTimestamp() throws Exception {
        ByteBuffer b = gen.batch();
        b.putLong(RecordBatchLayout.MAX_TIMESTAMP_OFFSET, 12345L);
        RecordBatchLayout.writeCrc(b, 0, b.limit());
        assertRejected(b, Kind.INVALID_TIMESTAMP);
    }

    @Test
    void timestampTooFarAheadIsInvalidTimestampWhenBounded() throws Exception {
        log.close();
        log =
                PartitionLog.open(
                        tmp.resolve("w-0"),
                        LogConfig.from(Map.of("message.timestamp.after.max.ms", "1000")),
                        time);
        ByteBuffer b =
                RandomBatches.batch(
                        CompressionType.NONE,
                        List.of(
                                new SimpleRecord(
                                        time.milliseconds() + 5000, null, new byte[] {1})));
        assertThatThrownBy(() -> log.append(b))
                .isInstanceOfSatisfying(
                        InvalidBatchException.class,
                        e -> assertThat(e.kind()).isEqualTo(Kind.INVALID_TIMESTAMP));
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void oneBadBatchInARequestRejectsTheWholeRequest() throws Exception {
        ByteBuffer good = gen.batch();
        ByteBuffer bad = gen.batch();
        bad.put(bad.limit() - 1, (byte) (bad.get(bad.limit() - 1) + 1));
        assertRejected(RandomBatches.concat(List.of(good, bad)), Kind.CORRUPT_MESSAGE);
    }

    @Test
    void emptyRequestAndTruncatedHeaderAreCorrupt() throws Exception {
        assertRejected(ByteBuffer.allocate(0), Kind.CORRUPT_MESSAGE);
        assertRejected(
                ByteBuffer.allocate(30).put(RecordBatchLayout.MAGIC_OFFSET, (byte) 2),
                Kind.CORRUPT_MESSAGE);
    }

    @Test
    void multipleBatchesInOneRequestGetContiguousOffsets() throws Exception {
        long leo = log.logEndOffset();
        ByteBuffer a = gen.batch();
        ByteBuffer b = gen.batch();
        int n =
                a.getInt(RecordBatchLayout.RECORDS_COUNT_OFFSET)
                        + b.getInt(RecordBatchLayout.RECORDS_COUNT_OFFSET);
        AppendResult r = log.append(RandomBatches.concat(List.of(a, b)));
        assertThat(r.firstOffset()).isEqualTo(leo);
        assertThat(r.lastOffset()).isEqualTo(leo + n - 1);
        assertThat(r.recordCount()).isEqualTo(n);
        assertThat(log.read(leo, 1_000_000).batches()).hasSize(2);
    }
}

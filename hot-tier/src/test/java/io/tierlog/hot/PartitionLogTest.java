package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);

    @Test
    void appendedBatchesReadBackIdenticalAfterReopenAcrossRolls() throws Exception {
        LogConfig cfg =
                LogTestSupport.config(
                        Map.of("segment.bytes", "8192", "index.interval.bytes", "512"));
        RandomBatches gen = new RandomBatches(42);
        List<ByteBuffer> sent = new ArrayList<>();
        Path dir = tmp.resolve("t-0");
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            long expected = 0;
            for (int i = 0; i < 200; i++) {
                ByteBuffer b = gen.batch();
                sent.add(LogTestSupport.copy(b));
                AppendResult r = log.append(b);
                assertThat(r.firstOffset()).isEqualTo(expected);
                expected = r.lastOffset() + 1;
            }
            assertThat(log.logEndOffset()).isEqualTo(expected);
            assertThat(log.segments()).hasSizeGreaterThan(3);
            assertSame(sent, LogTestSupport.readAll(log, 3000));
        }
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            assertSame(sent, LogTestSupport.readAll(log, 100_000));
        }
    }

    static void assertSame(List<ByteBuffer> sent, List<RecordBatch> read) {
        assertThat(read).hasSize(sent.size());
        long next = 0;
        for (int i = 0; i < sent.size(); i++) {
            RecordBatch b = read.get(i);
            assertThat(b.baseOffset()).isEqualTo(next);
            assertThat(b.isValid()).isTrue();
            assertThat(LogTestSupport.withBaseOffsetZero(b))
                    .isEqualTo(sent.get(i).duplicate().position(0));
            next = b.lastOffset() + 1;
        }
    }

    @Test
    void logAppendTimeStampsBatchAndKeepsCrcValid() throws Exception {
        LogConfig cfg = LogTestSupport.config(Map.of("message.timestamp.type", "LogAppendTime"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("lat-0"), cfg, time)) {
            ByteBuffer b =
                    RandomBatches.batch(
                            CompressionType.LZ4,
                            List.of(new SimpleRecord(5L, "k".getBytes(), "v".getBytes())));
            AppendResult r = log.append(b);
            assertThat(r.logAppendTime()).isEqualTo(time.milliseconds());
            RecordBatch rb = log.read(0, 1000).batches().iterator().next();
            assertThat(rb.isValid()).isTrue();
            assertThat(rb.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
            assertThat(rb.maxTimestamp()).isEqualTo(time.milliseconds());
            assertThat(rb.iterator().next().timestamp()).isEqualTo(time.milliseconds());
        }
    }

    @Test
    void leaderEpochIsStampedOutsideTheCrc() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("e-0"), LogConfig.defaults(), time)) {
            log.append(new RandomBatches(5).batch(), 7);
            RecordBatch rb = log.read(0, 1000).batches().iterator().next();
            assertThat(rb.partitionLeaderEpoch()).isEqualTo(7);
            assertThat(rb.isValid()).isTrue();
        }
    }

    @Test
    void recordsWithoutTimestampsNeverCorruptTheTimeIndex() throws Exception {
        LogConfig cfg =
                LogTestSupport.config(Map.of("index.interval.bytes", "0", "segment.bytes", "1000"));
        Path dir = tmp.resolve("nots-0");
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            for (int i = 0; i < 30; i++) {
                log.append(
                        RandomBatches.batch(
                                CompressionType.NONE,
                                List.of(new SimpleRecord(-1L, null, new byte[] {(byte) i}))));
            }
            assertThat(log.offsetForTimestamp(0)).isEmpty();
            assertThat(log.maxTimestamp()).isEmpty();
        }
        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 0, true)) {
            assertThat(LogTestSupport.readAll(log, 10)).hasSize(30);
        }
    }

    @Test
    void advancingTheLogStartDeletesWhollyBelowSegmentsKeepsTheActiveOneAndNeverGoesBack()
            throws Exception {
        LogConfig cfg = LogTestSupport.config(Map.of("segment.bytes", "8192"));
        RandomBatches gen = new RandomBatches(7);
        try (PartitionLog log = PartitionLog.open(tmp.resolve("ls-0"), cfg, time)) {
            for (int i = 0; i < 200; i++) {
                log.append(gen.batch());
            }
            List<SegmentInfo> before = log.segments();
            assertThat(before).hasSizeGreaterThan(3);
            // one past the third segment's base: the first two segments go, the third stays
            long start = before.get(2).baseOffset() + 1;
            assertThat(log.advanceLogStartOffset(start)).isEqualTo(start);
            assertThat(log.logStartOffset()).isEqualTo(start);
            assertThat(log.requestedLogStartOffset()).isEqualTo(start);
            assertThat(log.segments().get(0).baseOffset()).isEqualTo(before.get(2).baseOffset());
            assertThatThrownBy(() -> log.read(start - 1, 100))
                    .isInstanceOf(LogOffsetOutOfRangeException.class);
            assertThat(log.read(start, 100).isEmpty()).isFalse();
            assertThat(log.advanceLogStartOffset(1)).as("never back").isEqualTo(start);
            // to the high watermark: only the active segment is left, empty to a reader
            long hw = log.highWatermark();
            assertThat(log.advanceLogStartOffset(Long.MAX_VALUE)).isEqualTo(hw);
            assertThat(log.segments()).hasSize(1);
            assertThat(log.read(hw, 100).isEmpty()).isTrue();
            log.append(gen.batch());
            assertThat(log.read(hw, 100).isEmpty()).isFalse();
        }
    }

    @Test
    void readOutsideRangeThrowsAndAtHighWatermarkIsEmpty() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("r-0"), LogConfig.defaults(), time)) {
            assertThat(log.read(0, 100).isEmpty()).isTrue();
            log.append(new RandomBatches(1).batch());
            assertThatThrownBy(() -> log.read(log.highWatermark() + 1, 100))
                    .isInstanceOf(LogOffsetOutOfRangeException.class);
            assertThat(log.read(log.highWatermark(), 100).isEmpty()).isTrue();
        }
    }

    @Test
    void readReturnsAtLeastOneWholeBatchEvenAboveMaxBytes() throws Exception {
        try (PartitionLog log = PartitionLog.open(tmp.resolve("m-0"), LogConfig.defaults(), time)) {
            RandomBatches gen = new RandomBatches(3);
            for (int i = 0; i < 5; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 100));
            }
            FileSlice s = log.read(0, 1);
            assertThat(s.batches()).hasSize(1);
            assertThat(s.nextOffset()).isEqualTo(10);
            FileSlice mid = log.read(15, 1);
            assertThat(mid.firstOffset()).isEqualTo(10);
            FileSlice two = log.read(0, s.sizeInBytes() * 2);
            assertThat(two.batches()).hasSize(2);
        }
    }
}

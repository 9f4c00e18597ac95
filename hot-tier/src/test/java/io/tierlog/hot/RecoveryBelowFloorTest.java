package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery with an offset floor (the cold high watermark) and a checkpointed log end: a corruption
 * in the cold tier's range drops segments instead of truncating the log, later segments stay, and
 * the log always continues above every offset it ever assigned.
 */
class RecoveryBelowFloorTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final RandomBatches gen = new RandomBatches(16, 1_700_000_000_000L);
    final LogConfig cfg =
            LogConfig.from(Map.of("segment.bytes", "3000", "index.interval.bytes", "200"));

    /** Ten-record batches of about 1,000 bytes: three per segment. */
    private List<SegmentInfo> fill(Path dir, int batches) throws Exception {
        try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
            for (int i = 0; i < batches; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80));
            }
            return log.segments();
        }
    }

    private static void flipByte(Path file, long position) throws Exception {
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x40)).position(0);
            ch.write(one, position);
        }
    }

    /** A byte inside the records of the second batch of the segment (covered by the CRC). */
    private static long insideSecondBatch(SegmentInfo s) throws Exception {
        try (FileChannel ch = FileChannel.open(s.logFile(), StandardOpenOption.READ)) {
            ByteBuffer h = ByteBuffer.allocate(12);
            ch.read(h, 0);
            long second = 12 + h.getInt(8);
            return second + RecordBatchLayout.RECORDS_OFFSET + 5;
        }
    }

    @Test
    void corruptSegmentBelowTheFloorIsDroppedWithEarlierOnesAndLaterSegmentsStay()
            throws Exception {
        Path dir = tmp.resolve("c-0");
        List<SegmentInfo> segs = fill(dir, 12);
        assertThat(segs.size()).isGreaterThanOrEqualTo(4);
        SegmentInfo victim = segs.get(1);
        long floor = segs.get(3).baseOffset(); // the cold tier holds segments 0..2
        long end = segs.get(segs.size() - 1).nextOffset();
        flipByte(victim.logFile(), insideSecondBatch(victim));

        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 0, false, floor, 0)) {
            // dropped: segments 0 and 1; segment 2 (intact, also in cold) and the rest stay
            assertThat(log.logStartOffset()).isEqualTo(segs.get(2).baseOffset());
            assertThat(log.logEndOffset()).isEqualTo(end);
            List<?> read = LogTestSupport.readAll(log, 10_000);
            long records = read.size() * 10L;
            assertThat(records).isEqualTo(end - segs.get(2).baseOffset());
            AppendResult next = log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80));
            assertThat(next.firstOffset()).isEqualTo(end);
        }
        assertThat(victim.logFile()).doesNotExist();
        assertThat(segs.get(0).logFile()).doesNotExist();
    }

    @Test
    void corruptionBelowTheFloorInASegmentStraddlingItLeavesAnEmptySegmentAtTheFloor()
            throws Exception {
        Path dir = tmp.resolve("s-0");
        List<SegmentInfo> segs = fill(dir, 12);
        SegmentInfo victim = segs.get(1);
        // the cold high watermark is after the victim's second batch: the corruption is below it,
        // the victim's third batch above it
        long floor = victim.baseOffset() + 20;
        long end = segs.get(segs.size() - 1).nextOffset();
        flipByte(victim.logFile(), insideSecondBatch(victim));

        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 0, false, floor, 0)) {
            assertThat(log.logStartOffset()).isEqualTo(floor);
            assertThat(log.logEndOffset()).isEqualTo(end);
            // offsets [floor, next segment) are lost: a read there returns the next batch
            FileSlice s = log.read(floor, 1);
            assertThat(s.firstOffset()).isEqualTo(segs.get(2).baseOffset());
            assertThat(log.segments().get(0).baseOffset()).isEqualTo(floor);
            assertThat(log.segments().get(0).sizeInBytes()).isZero();
            assertThat(log.segments().get(0).closed()).isTrue();
        }
        // the gap segment is durable: a clean reopen keeps the log starting at the floor
        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, end, true, floor, 0)) {
            assertThat(log.logStartOffset()).isEqualTo(floor);
            assertThat(log.logEndOffset()).isEqualTo(end);
        }
    }

    @Test
    void corruptionAboveTheFloorTruncatesOnlyItsSegmentAndTheLogSkipsTheGap() throws Exception {
        Path dir = tmp.resolve("a-0");
        List<SegmentInfo> segs = fill(dir, 12);
        SegmentInfo victim = segs.get(1);
        long end = segs.get(segs.size() - 1).nextOffset();
        flipByte(victim.logFile(), insideSecondBatch(victim));

        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 0, false, 0, 0)) {
            assertThat(log.logStartOffset()).isZero();
            assertThat(log.logEndOffset()).isEqualTo(end);
            assertThat(log.segments()).hasSize(segs.size());
            long lostFrom = victim.baseOffset() + 10;
            // an offset inside the lost range reads the next batch after it (as Kafka does for
            // offsets a cleaner removed)
            FileSlice s = log.read(lostFrom + 3, 1);
            assertThat(s.firstOffset()).isEqualTo(segs.get(2).baseOffset());
            assertThat(log.read(lostFrom - 1, 1).firstOffset()).isEqualTo(victim.baseOffset());
            AppendResult next = log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80));
            assertThat(next.firstOffset()).isEqualTo(end);
        }
    }

    @Test
    void floorAboveTheWholeLogStartsItAtTheFloor() throws Exception {
        Path dir = tmp.resolve("f-0");
        List<SegmentInfo> segs = fill(dir, 5);
        long end = segs.get(segs.size() - 1).nextOffset();
        long floor = end + 100;
        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, end, true, floor, 0)) {
            // every segment was below the floor, followed by offsets the cold tier holds
            assertThat(log.logStartOffset()).isEqualTo(floor);
            assertThat(log.logEndOffset()).isEqualTo(floor);
            assertThat(log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80)).firstOffset())
                    .isEqualTo(floor);
        }
    }

    @Test
    void tornTailNeverGivesBackOffsetsTheCheckpointedLogEndCovers() throws Exception {
        Path logDir = tmp.resolve("log");
        TopicPartition tp = new TopicPartition("t", 0);
        long end;
        LogManager crashed = LogManager.open(logDir, t -> cfg, time, null, p -> 0L);
        PartitionLog log = crashed.getOrCreate(tp);
        for (int i = 0; i < 4; i++) {
            log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80));
        }
        end = log.logEndOffset();
        crashed.checkpointRecoveryPoints(); // the housekeeping pass writes the log end too
        assertThat(Files.readString(logDir.resolve("log-end-offset-checkpoint")))
                .contains("t 0 " + end);
        // the last batch did not reach the disk whole (a crash without the page cache)
        SegmentInfo active = log.segments().get(log.segments().size() - 1);
        try (FileChannel ch = FileChannel.open(active.logFile(), StandardOpenOption.WRITE)) {
            ch.truncate(active.sizeInBytes() - 100);
        }
        crashed.releaseLockAsCrashWould();
        try (LogManager m = LogManager.open(logDir, t -> cfg, time, null, p -> 0L)) {
            PartitionLog reopened = m.partition(tp).orElseThrow();
            assertThat(reopened.logEndOffset()).isEqualTo(end);
            assertThat(
                            reopened.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80))
                                    .firstOffset())
                    .isEqualTo(end);
        }
    }

    @Test
    void batchesWholeAfterACorruptionCountAsAssigned() throws Exception {
        Path dir = tmp.resolve("w-0");
        // one big segment: the corruption is in its second batch, eight whole batches follow
        LogConfig big = LogConfig.from(Map.of("segment.bytes", "1000000"));
        long end;
        try (PartitionLog log = PartitionLog.open(dir, big, time)) {
            for (int i = 0; i < 10; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 80));
            }
            end = log.logEndOffset();
        }
        SegmentInfo only;
        try (ReadOnlyLogDir ro = ReadOnlyLogDir.open(tmp)) {
            only = ro.segments(new TopicPartition("w", 0)).get(0);
            flipByte(only.logFile(), insideSecondBatch(only));
            SegmentCorruption c = ro.findCorruption(only).orElseThrow();
            assertThat(c.firstLostOffset()).isEqualTo(10);
            assertThat(c.endAfter()).isEqualTo(end);
            assertThat(c.reason()).contains("CRC");
        }
        try (PartitionLog log = PartitionLog.open(dir, big, time)) {
            assertThat(LogTestSupport.readAll(log, 100_000)).hasSize(1);
            assertThat(log.logEndOffset()).isEqualTo(end);
        }
    }

    @Test
    void localRetentionKeepsTheGapSegmentUntilTheColdTierReachesPastTheGap() throws Exception {
        Path dir = tmp.resolve("g-0");
        List<SegmentInfo> segs = fill(dir, 12);
        SegmentInfo victim = segs.get(1);
        long floor = victim.baseOffset() + 20;
        flipByte(victim.logFile(), insideSecondBatch(victim));
        LogConfig retaining =
                LogConfig.from(
                        Map.of(
                                "segment.bytes", "3000",
                                "index.interval.bytes", "200",
                                "local.retention.bytes", "1",
                                "file.delete.delay.ms", "0"));
        try (PartitionLog log = PartitionLog.open(dir, retaining, time, null, 0, false, floor, 0)) {
            assertThat(log.logStartOffset()).isEqualTo(floor);
            // the cold tier ends at the floor: deleting the empty segment there would open a
            // hole [floor, next segment) between the tiers
            assertThat(log.maybeDeleteSegments(floor)).isZero();
            assertThat(log.logStartOffset()).isEqualTo(floor);
            // once an object bridged the gap and covers the next segment, both may go
            assertThat(log.maybeDeleteSegments(segs.get(3).baseOffset())).isEqualTo(2);
            assertThat(log.logStartOffset()).isEqualTo(segs.get(3).baseOffset());
        }
    }

    @Test
    void readsStopBeforeADamagedRange() throws Exception {
        Path dir = tmp.resolve("d-0");
        fill(dir, 6);
        try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 60, true, 0, 0)) {
            log.markDamaged(20, 30, "test");
            assertThat(log.damagedRangeEnd(25)).isEqualTo(30);
            assertThat(log.damagedRangeEnd(30)).isEqualTo(-1);
            assertThat(log.nextDamagedStart(0)).isEqualTo(20);
            FileSlice s = log.read(0, 1 << 20, log.nextDamagedStart(0));
            assertThat(s.firstOffset()).isZero();
            assertThat(s.nextOffset()).isEqualTo(20);
        }
    }
}

package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Roll triggers (size, time, full index), listeners, index trimming and local retention. */
class RollAndRetentionTest {
    @TempDir Path tmp;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final RandomBatches gen = new RandomBatches(11, 1_700_000_000_000L);

    @Test
    void rollsOnSegmentBytesAndAnnouncesClosedSegments() throws Exception {
        List<SegmentInfo> closed = new ArrayList<>();
        try (PartitionLog log =
                PartitionLog.open(
                        tmp.resolve("r-0"),
                        LogConfig.from(Map.of("segment.bytes", "3000")),
                        time)) {
            log.addListener(
                    new LogListener() {
                        @Override
                        public void onSegmentClosed(PartitionLog l, SegmentInfo s) {
                            closed.add(s);
                        }
                    });
            for (int i = 0; i < 10; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 10, 100));
            }
            List<SegmentInfo> segs = log.segments();
            assertThat(segs.size()).isGreaterThan(3);
            assertThat(closed).hasSize(segs.size() - 1);
            for (int i = 0; i < segs.size() - 1; i++) {
                SegmentInfo s = segs.get(i);
                assertThat(s.closed()).isTrue();
                assertThat(s.sizeInBytes()).isLessThanOrEqualTo(3000);
                assertThat(s.nextOffset()).isEqualTo(segs.get(i + 1).baseOffset());
                assertThat(closed.get(i).baseOffset()).isEqualTo(s.baseOffset());
                assertThat(s.logFile().getFileName().toString())
                        .isEqualTo(String.format("%020d.log", s.baseOffset()));
                // closed segments' indexes are trimmed to their entries, as Kafka does
                Path index =
                        s.logFile().resolveSibling(String.format("%020d.index", s.baseOffset()));
                assertThat(Files.size(index) % 8).isZero();
                assertThat(Files.size(index)).isLessThan(10 * 1024 * 1024);
            }
            assertThat(segs.get(segs.size() - 1).closed()).isFalse();
        }
    }

    @Test
    void rollsOnSegmentMsViaMaybeRoll() throws Exception {
        try (PartitionLog log =
                PartitionLog.open(
                        tmp.resolve("t-0"), LogConfig.from(Map.of("segment.ms", "1000")), time)) {
            log.maybeRoll();
            assertThat(log.segments()).hasSize(1); // empty segments never roll
            log.append(gen.batch());
            time.advance(999);
            log.maybeRoll();
            assertThat(log.segments()).hasSize(1);
            time.advance(1);
            log.maybeRoll();
            assertThat(log.segments()).hasSize(2);
            assertThat(log.segments().get(1).baseOffset()).isEqualTo(log.logEndOffset());
        }
    }

    @Test
    void rollsWhenTheOffsetIndexIsFull() throws Exception {
        LogConfig cfg =
                LogConfig.from(Map.of("segment.index.bytes", "48", "index.interval.bytes", "0"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("i-0"), cfg, time)) {
            for (int i = 0; i < 20; i++) {
                log.append(gen.batch());
            }
            assertThat(log.segments().size()).isGreaterThan(2);
            assertThat(LogTestSupport.readAll(log, 100)).hasSize(20);
        }
    }

    @Test
    void aManyBatchRequestNeverOverflowsTheIndexes() throws Exception {
        LogConfig cfg =
                LogConfig.from(Map.of("segment.index.bytes", "48", "index.interval.bytes", "0"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("j-0"), cfg, time)) {
            for (int i = 0; i < 5; i++) {
                List<java.nio.ByteBuffer> req = new ArrayList<>();
                for (int b = 0; b < 9; b++) {
                    req.add(gen.batch());
                }
                log.append(RandomBatches.concat(req));
            }
            assertThat(LogTestSupport.readAll(log, 100)).hasSize(45);
            for (long o = 0; o < log.logEndOffset(); o++) {
                FileSlice s = log.read(o, 1);
                assertThat(s.firstOffset()).isLessThanOrEqualTo(o);
                assertThat(s.nextOffset()).isGreaterThan(o);
            }
        }
    }

    @Test
    void retentionBytesDeletesOldestButNeverPastTheBound() throws Exception {
        LogConfig cfg =
                LogConfig.from(
                        Map.of(
                                "segment.bytes",
                                "2000",
                                "local.retention.bytes",
                                "4000",
                                "file.delete.delay.ms",
                                "5000"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("b-0"), cfg, time)) {
            for (int i = 0; i < 20; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 5, 100));
            }
            List<SegmentInfo> before = log.segments();
            long bound = before.get(2).nextOffset();
            int deleted = log.maybeDeleteSegments(bound);
            assertThat(deleted).isEqualTo(3);
            assertThat(log.logStartOffset()).isEqualTo(bound);
            assertThat(log.segments().get(0).baseOffset()).isEqualTo(bound);
            // files are renamed and survive until file.delete.delay.ms passed
            assertThat(deletedFiles(log.dir())).isNotEmpty();
            time.advance(5000);
            log.maybeDeleteSegments(bound);
            assertThat(deletedFiles(log.dir())).isEmpty();
            // without a bound the size limit applies
            log.maybeDeleteSegments(Long.MAX_VALUE);
            long total = log.segments().stream().mapToLong(SegmentInfo::sizeInBytes).sum();
            assertThat(total).isLessThanOrEqualTo(4000 + 2000);
            assertThat(log.segments().get(log.segments().size() - 1).closed()).isFalse();
        }
    }

    @Test
    void retentionMsDeletesOnlyOldSegmentsAndSlicesStayReadableDuringDelay() throws Exception {
        LogConfig cfg =
                LogConfig.from(Map.of("segment.bytes", "2000", "local.retention.ms", "60000"));
        try (PartitionLog log = PartitionLog.open(tmp.resolve("m-0"), cfg, time)) {
            for (int i = 0; i < 6; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 5, 100));
            }
            FileSlice old = log.read(0, 100);
            time.advance(120_000);
            RandomBatches fresh = new RandomBatches(3, time.milliseconds());
            for (int i = 0; i < 6; i++) {
                log.append(fresh.fixedSizeBatch(CompressionType.NONE, 5, 100));
            }
            int n = log.maybeDeleteSegments(Long.MAX_VALUE);
            assertThat(n).isGreaterThan(0);
            for (SegmentInfo s : log.segments().subList(0, log.segments().size() - 1)) {
                assertThat(s.maxTimestamp()).isGreaterThanOrEqualTo(time.milliseconds() - 60_000);
            }
            // an in-flight slice of a deleted segment still reads
            assertThat(old.readFully().remaining()).isEqualTo(old.sizeInBytes());
        }
    }

    @Test
    void noRetentionConfiguredDeletesNothing() throws Exception {
        try (PartitionLog log =
                PartitionLog.open(
                        tmp.resolve("n-0"),
                        LogConfig.from(Map.of("segment.bytes", "2000")),
                        time)) {
            for (int i = 0; i < 6; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 5, 100));
            }
            time.advance(365L * 24 * 3600 * 1000);
            assertThat(log.maybeDeleteSegments(Long.MAX_VALUE)).isZero();
            assertThat(log.logStartOffset()).isZero();
        }
    }

    private static List<Path> deletedFiles(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".deleted")).toList();
        }
    }
}

package io.tierlog.compactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.common.Time;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a recovery dropped a corrupt segment that straddled the cold high watermark, the hot log
 * starts with an empty segment at the watermark and an offset gap up to the next segment. The
 * offload must bridge that gap (the next object starts at the watermark, as for offsets a log
 * cleaner removed) instead of failing for ever, and the catalog stays contiguous.
 */
class RecoveryGapOffloadIT {
    static final TopicPartition TP = new TopicPartition("gap", 0);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    Map<String, String> settings;
    final LogConfig cfg = LogConfig.from(Map.of("segment.bytes", "3000"));

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        settings = new HashMap<>();
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
        settings.put(CompactorOptions.OFFLOAD_RETRY_BACKOFF_MS.key(), "10ms");
        settings.put(CompactorOptions.OFFLOAD_RETRY_TIMEOUT_MS.key(), "5s");
    }

    private static ByteBuffer batch(int records) {
        SimpleRecord[] recs = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            recs[i] = new SimpleRecord(1_700_000_000_000L + i, null, new byte[80]);
        }
        return MemoryRecords.withRecords(Compression.NONE, recs).buffer();
    }

    /** A source that shows the log only up to {@code end} (the first batches of a segment). */
    private static SegmentSource upTo(LogManagerSource real, long end, long endBytes) {
        return new SegmentSource() {
            @Override
            public List<TopicPartition> partitions() throws IOException {
                return real.partitions();
            }

            @Override
            public List<SegmentInfo> segments(TopicPartition tp) throws IOException {
                List<SegmentInfo> out = new ArrayList<>();
                for (SegmentInfo s : real.segments(tp)) {
                    if (s.nextOffset() <= end) {
                        out.add(s);
                    } else {
                        out.add(
                                new SegmentInfo(
                                        tp,
                                        s.baseOffset(),
                                        end,
                                        endBytes,
                                        s.maxTimestamp(),
                                        true,
                                        s.logFile()));
                        break;
                    }
                }
                return out;
            }

            @Override
            public BatchStream batches(SegmentInfo segment) throws IOException {
                return real.batches(segment); // reads segment.sizeInBytes(), the cut-off size
            }

            @Override
            public long lastStableOffset(TopicPartition tp) {
                return real.lastStableOffset(tp);
            }

            @Override
            public List<io.tierlog.hot.AbortedTxn> abortedTransactions(
                    TopicPartition tp, long from, long upTo) throws IOException {
                return real.abortedTransactions(tp, from, upTo);
            }

            @Override
            public java.util.Optional<io.tierlog.hot.OngoingTxn> oldestOpenTransaction(
                    TopicPartition tp) {
                return real.oldestOpenTransaction(tp);
            }

            @Override
            public String describe() {
                return "first offsets of " + real.describe();
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void offloadBridgesTheGapLeftByACorruptSegmentStraddlingTheColdHighWatermark()
            throws Exception {
        Path logDir = dir.resolve("log");
        List<SegmentInfo> segs;
        long end;
        try (LogManager m = LogManager.open(logDir, t -> cfg, Time.SYSTEM, null)) {
            PartitionLog log = m.getOrCreate(TP);
            for (int i = 0; i < 12; i++) {
                log.append(batch(10)); // about 950 bytes: three batches per segment
            }
            segs = log.segments();
            end = log.logEndOffset();
            // offload a prefix that ends after the second batch of the second segment, as a
            // pass cut short would have left it
            SegmentInfo straddling = segs.get(1);
            long firstBatchBytes = straddling.sizeInBytes() / 3;
            long floor = straddling.baseOffset() + 20;
            try (Compactor c =
                    cold.compactor(
                            upTo(new LogManagerSource(m), floor, 2 * firstBatchBytes),
                            Optional.of(logDir),
                            settings,
                            Time.SYSTEM)) {
                assertThat(c.runOnce().failedPartitions()).isZero();
            }
            assertThat(cold.catalog().partitionState("gap", 0).coldHighWatermark())
                    .isEqualTo(floor);
        }
        // the first batch of the straddling segment rots; an unclean restart finds it
        SegmentInfo straddling = segs.get(1);
        try (FileChannel ch =
                FileChannel.open(
                        straddling.logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, 100);
            one.put(0, (byte) (one.get(0) ^ 1)).flip();
            ch.write(one, 100);
        }
        Files.delete(logDir.resolve(".kafka_cleanshutdown"));
        Files.delete(logDir.resolve("recovery-point-offset-checkpoint"));
        long floor = cold.catalog().partitionState("gap", 0).coldHighWatermark();
        try (LogManager m = LogManager.open(logDir, t -> cfg, Time.SYSTEM, null, tp -> floor)) {
            PartitionLog log = m.partition(TP).orElseThrow();
            assertThat(log.logStartOffset()).isEqualTo(floor);
            assertThat(log.logEndOffset()).isEqualTo(end);
            try (Compactor c =
                    cold.compactor(
                            new LogManagerSource(m), Optional.of(logDir), settings, Time.SYSTEM)) {
                PassResult r = c.runOnce();
                assertThat(r.failedPartitions()).isZero();
            }
            long closedEnd = log.segments().get(log.segments().size() - 2).nextOffset();
            List<ColdObject> objects = cold.catalog().objects("gap", 0);
            long next = 0;
            for (ColdObject o : objects) {
                assertThat(o.firstOffset()).as("object %s", o.key()).isEqualTo(next);
                next = o.lastOffset() + 1;
            }
            assertThat(next).isEqualTo(closedEnd);
            // the lost offsets [floor, next segment) hold no record in either tier
            List<RecordBatch> back = cold.readBack("gap", 0);
            assertThat(back)
                    .noneMatch(
                            b ->
                                    b.lastOffset() >= floor
                                            && b.baseOffset() < segs.get(2).baseOffset());
            assertThat(back).anyMatch(b -> b.baseOffset() == segs.get(2).baseOffset());
        }
    }

    @Test
    void aCorruptBatchTheColdTierHoldsFoundWhileOffloadingIsMarkedForColdReads() throws Exception {
        Path logDir = dir.resolve("log");
        try (LogManager m = LogManager.open(logDir, t -> cfg, Time.SYSTEM, null)) {
            PartitionLog log = m.getOrCreate(TP);
            for (int i = 0; i < 12; i++) {
                log.append(batch(10));
            }
            SegmentInfo straddling = log.segments().get(1);
            long floor = straddling.baseOffset() + 20;
            try (Compactor c =
                    cold.compactor(
                            upTo(new LogManagerSource(m), floor, 2 * straddling.sizeInBytes() / 3),
                            Optional.of(logDir),
                            settings,
                            Time.SYSTEM)) {
                assertThat(c.runOnce().failedPartitions()).isZero();
            }
            // the first batch of the straddling segment (in the cold tier now) rots
            try (FileChannel ch =
                    FileChannel.open(
                            straddling.logFile(),
                            StandardOpenOption.READ,
                            StandardOpenOption.WRITE)) {
                ByteBuffer one = ByteBuffer.allocate(1);
                ch.read(one, 100);
                one.put(0, (byte) (one.get(0) ^ 1)).flip();
                ch.write(one, 100);
            }
            assertThat(log.damagedRangeEnd(straddling.baseOffset())).isEqualTo(-1);
            try (Compactor c =
                    cold.compactor(
                            new LogManagerSource(m), Optional.of(logDir), settings, Time.SYSTEM)) {
                assertThat(c.runOnce().failedPartitions()).isZero();
            }
            // the offloader skipped the batch (already in cold) but checked it on the way
            assertThat(log.damagedRangeEnd(straddling.baseOffset()))
                    .isEqualTo(straddling.baseOffset() + 10);
            assertThat(log.damagedRangeEnd(straddling.baseOffset() + 10)).isEqualTo(-1);
        }
    }
}

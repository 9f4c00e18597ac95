package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.Appended;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.MaintenanceResult;
import io.tierlog.engine.TierRead;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.Violation;
import io.tierlog.hot.SegmentInfo;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, finding 2, end to end on a real two-tier log (embedded s3proxy over HTTP, SQLite
 * catalog): the bytes of a hot segment the cold tier already holds are corrupted, then the log
 * restarts. Before the fix, an unclean restart truncated the log at the corruption (and deleted
 * every later segment), so the hot log end fell below the cold high watermark, new appends got
 * offsets the cold tier already held and offload failed for ever ("straddles the cold high
 * watermark"); a clean restart served the corrupt bytes to consumers although the cold tier had an
 * intact copy.
 */
class RecoveryBelowColdIT {
    private static final TopicPartition TP = new TopicPartition("recovery", 0);

    @TempDir Path dir;
    private ColdTierFixture cold;

    @AfterEach
    void stopS3() throws Exception {
        if (cold != null) {
            cold.close();
        }
    }

    private Config config() {
        Map<String, String> m = cold.engineSettings(cold.endpoint(), Map.of());
        m.put("engine.background.enabled", "false");
        m.put("segment.bytes", "16384");
        m.put("retention.ms", "-1");
        m.put("offload.retry.timeout.ms", "2000");
        return Config.of(m);
    }

    private static ByteBuffer batch(long firstOffset, int records) {
        SimpleRecord[] recs = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            long o = firstOffset + i;
            recs[i] =
                    new SimpleRecord(
                            1_700_000_000_000L + o,
                            ("k" + o).getBytes(StandardCharsets.UTF_8),
                            ("value-" + o + "-" + "x".repeat(60)).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, recs).buffer();
    }

    /** Appends like an acks=all producer: each batch acknowledged at the offsets it was given. */
    private static long produce(TieredLog log, int batches, int perBatch) throws Exception {
        long next = log.latestOffset(TP);
        for (int b = 0; b < batches; b++) {
            Appended r = log.append(TP, batch(next, perBatch));
            assertThat(r.firstOffset()).as("offset assigned to batch %d", b).isEqualTo(next);
            next = r.lastOffset() + 1;
        }
        return next;
    }

    /** Reads every record from offset 0 and checks each is the one acknowledged at its offset. */
    private static void assertEveryRecordOnceAtItsOffset(TieredLog log, long end) throws Exception {
        long offset = 0;
        long expected = 0;
        while (offset < end) {
            TierRead r = log.read(TP, offset, 64 * 1024).get(30, TimeUnit.SECONDS);
            assertThat(r.isEmpty()).as("read at %d below the end %d", offset, end).isFalse();
            for (RecordBatch b : r.toMemoryRecords().batches()) {
                assertThat(b.isValid())
                        .as("batch at %d from %s", b.baseOffset(), r.tier())
                        .isTrue();
                for (Record rec : b) {
                    if (rec.offset() < offset) {
                        continue;
                    }
                    assertThat(rec.offset()).isEqualTo(expected);
                    assertThat(StandardCharsets.UTF_8.decode(rec.key()).toString())
                            .isEqualTo("k" + expected);
                    expected++;
                }
            }
            offset = r.nextOffset();
        }
        assertThat(expected).isEqualTo(end);
    }

    /** Flips a byte in the records of a batch in the middle of the segment (covered by its CRC). */
    private static long corruptMiddleBatch(SegmentInfo s) throws Exception {
        try (FileChannel ch =
                FileChannel.open(s.logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long pos = 0;
            long middle = ch.size() / 2;
            ByteBuffer h = ByteBuffer.allocate(12);
            long base;
            while (true) {
                h.clear();
                ch.read(h, pos);
                base = h.getLong(0);
                long next = pos + 12 + h.getInt(8);
                if (next > middle) {
                    break;
                }
                pos = next;
            }
            ByteBuffer one = ByteBuffer.allocate(1);
            long at = pos + 61 + 10; // inside the records
            ch.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x55)).flip();
            ch.write(one, at);
            return base;
        }
    }

    private static SegmentInfo offloadedMiddleSegment(TieredLog log) {
        long coldHwm = log.offsets(TP).coldHighWatermark();
        List<SegmentInfo> segs = log.hotLog(TP).orElseThrow().segments();
        return segs.stream()
                .filter(s -> s.baseOffset() > 0 && s.nextOffset() < coldHwm)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void uncleanRestartWithACorruptOffloadedSegmentNeverReassignsOffsetsAndLosesNothing()
            throws Exception {
        cold = ColdTierFixture.start(dir);
        long end;
        SegmentInfo victim;
        LogOffsets before;
        try (TieredLog log = TieredLog.open(config())) {
            log.createTopic(TP.topic(), 1, Map.of());
            end = produce(log, 300, 5);
            log.maintain();
            before = log.offsets(TP);
            assertThat(before.coldHighWatermark()).isGreaterThan(end / 2);
            victim = offloadedMiddleSegment(log);
        }
        long corruptAt = corruptMiddleBatch(victim);
        // an unclean stop before any recovery point was checkpointed: recovery scans everything
        Path logDir = dir.resolve("data/log");
        Files.delete(logDir.resolve(".kafka_cleanshutdown"));
        Files.delete(logDir.resolve("recovery-point-offset-checkpoint"));

        try (TieredLog log = TieredLog.open(config())) {
            LogOffsets after = log.offsets(TP);
            // the corrupt segment (and those before it, all in the cold tier) are dropped; the log
            // end is where it was
            assertThat(after.highWatermark()).isEqualTo(end);
            assertThat(after.hotLogStartOffset()).isGreaterThan(corruptAt);
            assertThat(after.hotLogStartOffset()).isLessThanOrEqualTo(before.coldHighWatermark());
            long end2 = produce(log, 200, 5);
            assertEveryRecordOnceAtItsOffset(log, end2);

            // offload goes on past the old cold high watermark
            MaintenanceResult m = log.maintain();
            assertThat(m.offload().orElseThrow().failedPartitions()).isZero();
            assertThat(log.offsets(TP).coldHighWatermark())
                    .isGreaterThan(before.coldHighWatermark());
            assertThat(log.verify(true)).isEmpty();
            assertEveryRecordOnceAtItsOffset(log, end2);
        }
    }

    @Test
    void corruptHotBytesTheColdTierHoldsAreNamedByDeepVerifyAndThenServedFromCold()
            throws Exception {
        cold = ColdTierFixture.start(dir);
        long end;
        SegmentInfo victim;
        try (TieredLog log = TieredLog.open(config())) {
            log.createTopic(TP.topic(), 1, Map.of());
            end = produce(log, 300, 5);
            log.maintain();
            victim = offloadedMiddleSegment(log);
        }
        long corruptAt = corruptMiddleBatch(victim);
        // a clean restart checks nothing below the recovery point (as Kafka): the corrupt batch
        // stays in the hot tier
        try (TieredLog log = TieredLog.open(config())) {
            TierRead r = log.read(TP, corruptAt, 1).get(30, TimeUnit.SECONDS);
            assertThat(r.tier()).isEqualTo(TierRead.Tier.HOT);
            assertThat(r.toMemoryRecords().batches().iterator().next().isValid()).isFalse();

            List<Violation> found = log.verify(true);
            assertThat(found)
                    .anySatisfy(
                            v -> {
                                assertThat(v.kind()).isEqualTo(Violation.Kind.HOT_CORRUPT);
                                assertThat(v.message())
                                        .contains(victim.logFile().getFileName().toString())
                                        .contains("offset " + corruptAt + " ");
                            });
            // from now on the damaged range is read from the cold tier's intact copy
            TierRead again = log.read(TP, corruptAt, 1).get(30, TimeUnit.SECONDS);
            assertThat(again.tier()).isEqualTo(TierRead.Tier.COLD);
            assertEveryRecordOnceAtItsOffset(log, end);
            long end2 = produce(log, 50, 5);
            assertEveryRecordOnceAtItsOffset(log, end2);
        }
    }
}

package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Property tests of the log: random batch sequences (all codecs, null keys/values, headers,
 * idempotent fields) read back identical after reopen; truncation and bit flips recover to exactly
 * the valid prefix; reads and timestamp lookups agree with linear-scan oracles. Seeded and
 * reproducible (see {@link Property}).
 */
class LogPropertiesTest {
    /** What was appended: the producer's bytes, offsets and file position of each batch. */
    record Appended(ByteBuffer bytes, long first, long last) {}

    static List<Appended> appendRandom(PartitionLog log, long seed, int batches) throws Exception {
        RandomBatches gen = new RandomBatches(seed);
        List<Appended> out = new ArrayList<>();
        long pid = 5000 + gen.random().nextInt(3);
        int seq = 0;
        for (int i = 0; i < batches; i++) {
            ByteBuffer b;
            if (gen.random().nextInt(4) == 0) {
                var recs = gen.records(10, 100);
                b = RandomBatches.idempotentBatch(gen.codec(), recs, pid, (short) 0, seq);
                seq += recs.size();
            } else {
                b = gen.batch();
            }
            ByteBuffer copy = LogTestSupport.copy(b);
            AppendResult r = log.append(b);
            out.add(new Appended(copy, r.firstOffset(), r.lastOffset()));
        }
        return out;
    }

    static LogConfig smallSegments(Random r) {
        return LogConfig.from(
                Map.of(
                        "segment.bytes", String.valueOf(2000 + r.nextInt(8000)),
                        "index.interval.bytes", String.valueOf(r.nextInt(3) * 600),
                        "segment.index.bytes", String.valueOf(96 + r.nextInt(400))));
    }

    static void assertLogHolds(PartitionLog log, List<Appended> expected) throws Exception {
        long leo = expected.isEmpty() ? 0 : expected.get(expected.size() - 1).last() + 1;
        assertLogHolds(log, expected, leo);
    }

    static void assertLogHolds(PartitionLog log, List<Appended> expected, long leo)
            throws Exception {
        List<RecordBatch> read =
                LogTestSupport.readAll(log, 1 + new Random(expected.size()).nextInt(5000));
        assertThat(read).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            RecordBatch b = read.get(i);
            assertThat(b.isValid()).isTrue();
            assertThat(b.baseOffset()).isEqualTo(expected.get(i).first());
            assertThat(b.lastOffset()).isEqualTo(expected.get(i).last());
            assertThat(LogTestSupport.withBaseOffsetZero(b))
                    .isEqualTo(expected.get(i).bytes().duplicate());
        }
        assertThat(log.logEndOffset()).isEqualTo(leo);
    }

    @Test
    void randomBatchesReadBackIdenticalAfterReopen() {
        Property.forAll(25, r -> readBackAfterReopen(r.nextLong(), Property.between(r, 1, 60)));
    }

    private static void readBackAfterReopen(long seed, int batches) throws Exception {
        Path tmp = TempDirs.create();
        try {
            MockTime time = new MockTime(1_700_000_000_000L);
            LogConfig cfg = smallSegments(new Random(seed));
            Path dir = tmp.resolve("prop-0");
            List<Appended> appended;
            try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
                appended = appendRandom(log, seed, batches);
                assertLogHolds(log, appended);
            }
            try (PartitionLog log = PartitionLog.open(dir, cfg, time, null, 0, true)) {
                assertLogHolds(log, appended);
            }
            try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
                assertLogHolds(log, appended);
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }

    /**
     * Recovery keeps the valid prefix of the damaged segment and every later segment, and the log
     * continues above every batch still whole on disk: after a bit flip (batches after it are
     * intact) that is the end of the last batch written unless the flip hit it; after a truncation
     * of the last segment, the end of what is left.
     */
    @Test
    void truncationOrBitFlipRecoversTheValidPrefixAndNeverReassignsAnOffset() {
        Property.forAll(
                40,
                r -> recoverAfterDamage(r.nextLong(), Property.between(r, 1, 40), r.nextBoolean()));
    }

    private static void recoverAfterDamage(long seed, int batches, boolean flip) throws Exception {
        Path tmp = TempDirs.create();
        try {
            Random r = new Random(seed);
            MockTime time = new MockTime(1_700_000_000_000L);
            LogConfig cfg = smallSegments(r);
            Path dir = tmp.resolve("rec-0");
            List<Appended> appended;
            List<SegmentInfo> segs;
            try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
                appended = appendRandom(log, seed, batches);
                segs = log.segments();
            }
            // damage one segment (more often the last one, as a crash would)
            SegmentInfo victim =
                    r.nextBoolean() ? segs.get(segs.size() - 1) : segs.get(r.nextInt(segs.size()));
            if (victim.sizeInBytes() == 0) {
                return;
            }
            long damageAt = (long) (r.nextDouble() * victim.sizeInBytes());
            try (FileChannel ch =
                    FileChannel.open(
                            victim.logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (flip) {
                    long batchStart = batchStartContaining(ch, damageAt);
                    long inBatch = damageAt - batchStart;
                    if (inBatch >= RecordBatchLayout.PARTITION_LEADER_EPOCH_OFFSET
                            && inBatch < RecordBatchLayout.MAGIC_OFFSET) {
                        damageAt =
                                batchStart
                                        + RecordBatchLayout
                                                .MAGIC_OFFSET; // leader epoch is outside the CRC
                    }
                    ByteBuffer one = ByteBuffer.allocate(1);
                    ch.read(one, damageAt);
                    one.put(0, (byte) (one.get(0) ^ (1 << r.nextInt(8)))).position(0);
                    ch.write(one, damageAt);
                } else {
                    ch.truncate(damageAt);
                }
            }
            // the valid prefix of the victim segment (every batch ending before the damaged
            // byte), everything before it and, unlike Kafka, every later segment
            List<Appended> expected = new ArrayList<>();
            long pos = 0;
            Appended damaged = null;
            for (Appended a : appended) {
                if (a.first() < victim.baseOffset() || a.first() >= victim.nextOffset()) {
                    expected.add(a);
                } else if (damaged == null) {
                    long end = pos + a.bytes().remaining();
                    if (end <= damageAt) {
                        expected.add(a);
                        pos = end;
                    } else {
                        damaged = a;
                    }
                }
            }
            Appended lastWritten = appended.get(appended.size() - 1);
            boolean victimIsLast = victim.baseOffset() == segs.get(segs.size() - 1).baseOffset();
            long leo;
            if (damaged == null || (victimIsLast && (!flip || damaged == lastWritten))) {
                // nothing whole after the damage: the log ends after its last valid batch
                leo = victimIsLast && damaged != null ? damaged.first() : lastWritten.last() + 1;
            } else {
                leo = lastWritten.last() + 1;
            }
            try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
                assertLogHolds(log, expected, leo);
                // no offset of a batch still whole on disk is handed out again
                assertThat(log.logEndOffset()).isGreaterThanOrEqualTo(leo);
                // the log keeps working after recovery
                AppendResult next = log.append(new RandomBatches(seed + 1).batch());
                assertThat(next.firstOffset()).isEqualTo(log.logEndOffset() - next.recordCount());
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }

    private static long batchStartContaining(FileChannel ch, long target) throws Exception {
        long pos = 0;
        ByteBuffer h = ByteBuffer.allocate(12);
        while (true) {
            h.clear();
            ch.read(h, pos);
            long next = pos + 12 + h.getInt(8);
            if (next > target) {
                return pos;
            }
            pos = next;
        }
    }

    @Test
    void readAndTimestampLookupsAgreeWithLinearScan() {
        Property.forAll(20, r -> lookupsAgreeWithScan(r.nextLong(), Property.between(r, 1, 50)));
    }

    private static void lookupsAgreeWithScan(long seed, int batches) throws Exception {
        Path tmp = TempDirs.create();
        try {
            Random r = new Random(seed);
            MockTime time = new MockTime(1_700_000_000_000L);
            try (PartitionLog log =
                    PartitionLog.open(tmp.resolve("idx-0"), smallSegments(r), time)) {
                List<Appended> appended = appendRandom(log, seed, batches);
                List<Record> records = new ArrayList<>();
                for (RecordBatch b : LogTestSupport.readAll(log, Integer.MAX_VALUE)) {
                    for (Record rec : b) {
                        records.add(rec);
                    }
                }
                for (int i = 0; i < 40; i++) {
                    long offset = (long) (r.nextDouble() * log.logEndOffset());
                    Appended holder =
                            appended.stream()
                                    .filter(a -> a.first() <= offset && offset <= a.last())
                                    .findFirst()
                                    .orElseThrow();
                    FileSlice s = log.read(offset, 1);
                    assertThat(s.firstOffset()).isEqualTo(holder.first());
                    assertThat(s.nextOffset()).isEqualTo(holder.last() + 1);
                    long minTs = records.stream().mapToLong(Record::timestamp).min().orElse(0);
                    long maxTs = records.stream().mapToLong(Record::timestamp).max().orElse(0);
                    long target = minTs - 2 + (long) (r.nextDouble() * (maxTs - minTs + 4));
                    var oracle = records.stream().filter(x -> x.timestamp() >= target).findFirst();
                    var actual = log.offsetForTimestamp(target);
                    assertThat(actual.map(TimestampOffset::offset))
                            .isEqualTo(oracle.map(Record::offset));
                    assertThat(actual.map(TimestampOffset::timestamp))
                            .isEqualTo(oracle.map(Record::timestamp));
                }
                long maxTs = records.stream().mapToLong(Record::timestamp).max().orElseThrow();
                long maxOffset =
                        records.stream()
                                .filter(x -> x.timestamp() == maxTs)
                                .findFirst()
                                .orElseThrow()
                                .offset();
                assertThat(log.maxTimestamp()).contains(new TimestampOffset(maxTs, maxOffset));
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }
}

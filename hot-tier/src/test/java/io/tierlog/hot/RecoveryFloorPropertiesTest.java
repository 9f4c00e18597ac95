package io.tierlog.hot;

import static io.tierlog.hot.LogPropertiesTest.appendRandom;
import static io.tierlog.hot.LogPropertiesTest.smallSegments;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import io.tierlog.hot.LogPropertiesTest.Appended;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Recovery from an arbitrary corruption (a bit flip) or truncation of any segment, with a cold
 * floor anywhere on a batch boundary of the closed segments (where a cold high watermark can be)
 * and with or without a checkpointed log end. After recovery:
 *
 * <ul>
 *   <li>no offset is assigned again: the next append lands at or above the floor, the checkpointed
 *       log end and the end of every batch still whole on disk, even those recovery dropped;
 *   <li>no offset the cold tier holds is hidden: the hot log starts at or below the floor, and
 *       every hot read below the floor returns the batch holding the offset, byte for byte, never a
 *       later one (so nothing below the floor is skipped);
 *   <li>no intact batch is lost: every batch of an undamaged segment at or above the floor is read
 *       back identical.
 * </ul>
 */
class RecoveryFloorPropertiesTest {

    @Test
    void recoveryWithAColdFloorNeverReassignsAnOffsetNorHidesOrLosesAnIntactOne() {
        Property.forAll(60, r -> check(r.nextLong()));
    }

    private static void check(long seed) throws Exception {
        Path tmp = TempDirs.create();
        try {
            Random r = new Random(seed);
            MockTime time = new MockTime(1_700_000_000_000L);
            LogConfig cfg = smallSegments(r);
            Path dir = tmp.resolve("floor-0");
            List<Appended> appended;
            List<SegmentInfo> segs;
            long end;
            try (PartitionLog log = PartitionLog.open(dir, cfg, time)) {
                appended = appendRandom(log, seed, Property.between(r, 3, 60));
                segs = log.segments();
                end = log.logEndOffset();
            }
            // the cold high watermark: 0 or a batch boundary within the closed segments
            long closedEnd = segs.size() > 1 ? segs.get(segs.size() - 2).nextOffset() : 0;
            List<Long> boundaries = new ArrayList<>();
            boundaries.add(0L);
            for (Appended a : appended) {
                if (a.last() + 1 <= closedEnd) {
                    boundaries.add(a.last() + 1);
                }
            }
            long floor = boundaries.get(r.nextInt(boundaries.size()));
            long knownEnd = r.nextBoolean() ? end : 0;

            SegmentInfo victim = segs.get(r.nextInt(segs.size()));
            if (victim.sizeInBytes() == 0) {
                return;
            }
            boolean flip = r.nextBoolean();
            long damageAt = (long) (r.nextDouble() * victim.sizeInBytes());
            damage(victim, damageAt, flip, r);

            // batches still whole on disk: outside the victim, or inside it and not damaged
            long wholeEnd = 0;
            long pos = 0;
            for (Appended a : appended) {
                boolean inVictim =
                        a.first() >= victim.baseOffset() && a.first() < victim.nextOffset();
                long size = a.bytes().remaining();
                boolean whole = true;
                if (inVictim) {
                    boolean damaged = pos <= damageAt && damageAt < pos + size;
                    whole = flip ? !damaged : pos + size <= damageAt;
                    pos += size;
                }
                if (whole) {
                    wholeEnd = Math.max(wholeEnd, a.last() + 1);
                }
            }

            try (PartitionLog log =
                    PartitionLog.open(dir, cfg, time, null, 0, false, floor, knownEnd)) {
                assertThat(log.logStartOffset()).isLessThanOrEqualTo(Math.max(floor, 0));
                for (Appended a : appended) {
                    boolean inVictim =
                            a.first() >= victim.baseOffset() && a.first() < victim.nextOffset();
                    if (a.first() >= log.logStartOffset() && a.last() < floor) {
                        // below the floor, from the hot start: the batch itself, never a later one
                        FileSlice s = log.read(a.first(), 1);
                        assertThat(s.firstOffset()).isEqualTo(a.first());
                        assertSameBatch(s, a);
                    } else if (a.first() >= floor && !inVictim) {
                        FileSlice s = log.read(a.first(), 1);
                        assertThat(s.firstOffset()).isEqualTo(a.first());
                        assertSameBatch(s, a);
                    }
                }
                AppendResult more = log.append(new RandomBatches(seed + 1).batch());
                long next = more.firstOffset();
                assertThat(next).isGreaterThanOrEqualTo(floor);
                assertThat(next).isGreaterThanOrEqualTo(knownEnd);
                assertThat(next).isGreaterThanOrEqualTo(wholeEnd);
                assertThat(next).isLessThanOrEqualTo(Math.max(Math.max(end, floor), knownEnd));
            }
            // and the recovered state is stable: a clean reopen sees the same log
            try (PartitionLog log =
                    PartitionLog.open(dir, cfg, time, null, Long.MAX_VALUE, true, floor, 0)) {
                assertThat(log.logStartOffset()).isLessThanOrEqualTo(Math.max(floor, 0));
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }

    private static void damage(SegmentInfo victim, long at, boolean flip, Random r)
            throws Exception {
        try (FileChannel ch =
                FileChannel.open(
                        victim.logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (!flip) {
                ch.truncate(at);
                return;
            }
            long batchStart = 0;
            ByteBuffer h = ByteBuffer.allocate(12);
            while (true) {
                h.clear();
                ch.read(h, batchStart);
                long next = batchStart + 12 + h.getInt(8);
                if (next > at) {
                    break;
                }
                batchStart = next;
            }
            long in = at - batchStart;
            if (in >= RecordBatchLayout.PARTITION_LEADER_EPOCH_OFFSET
                    && in < RecordBatchLayout.MAGIC_OFFSET) {
                at =
                        batchStart
                                + RecordBatchLayout
                                        .MAGIC_OFFSET; // the leader epoch is outside the CRC
            }
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, at);
            one.put(0, (byte) (one.get(0) ^ (1 << r.nextInt(8)))).position(0);
            ch.write(one, at);
        }
    }

    private static void assertSameBatch(FileSlice s, Appended a) throws Exception {
        RecordBatch b = s.batches().iterator().next();
        assertThat(b.isValid()).isTrue();
        assertThat(b.lastOffset()).isEqualTo(a.last());
        assertThat(LogTestSupport.withBaseOffsetZero(b)).isEqualTo(a.bytes().duplicate());
    }
}

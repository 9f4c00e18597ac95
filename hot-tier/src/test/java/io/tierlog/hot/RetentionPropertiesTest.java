package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.Property;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;

/**
 * Local retention never deletes past the caller's bound and leaves a readable, contiguous log
 * (random segment sizes, retention limits, clock steps and bounds; seeded, see {@link Property}).
 */
class RetentionPropertiesTest {

    @Test
    void retentionNeverPassesTheBound() {
        Property.forAll(30, r -> retainAndCheck(r.nextLong(), Property.between(r, 1, 60)));
    }

    private static void retainAndCheck(long seed, int batches) throws Exception {
        Path tmp = TempDirs.create();
        try {
            Random r = new Random(seed);
            MockTime time = new MockTime(1_700_000_000_000L);
            LogConfig cfg =
                    LogConfig.from(
                            Map.of(
                                    "segment.bytes", String.valueOf(1000 + r.nextInt(4000)),
                                    "local.retention.bytes",
                                            String.valueOf(
                                                    r.nextInt(3) == 0 ? -1 : r.nextInt(10_000)),
                                    "local.retention.ms",
                                            String.valueOf(
                                                    r.nextBoolean() ? -1 : r.nextInt(5000))));
            try (PartitionLog log = PartitionLog.open(tmp.resolve("ret-0"), cfg, time)) {
                RandomBatches gen = new RandomBatches(seed, time.milliseconds());
                for (int i = 0; i < batches; i++) {
                    log.append(
                            gen.fixedSizeBatch(
                                    CompressionType.NONE, 1 + r.nextInt(5), 50 + r.nextInt(200)));
                    time.advance(r.nextInt(300));
                }
                long bound = (long) (r.nextDouble() * (log.logEndOffset() + 5));
                List<SegmentInfo> before = log.segments();
                log.maybeDeleteSegments(bound);
                long start = log.logStartOffset();
                // never past the bound: every removed segment ended at or below it
                for (SegmentInfo s : before) {
                    if (s.baseOffset() < start) {
                        assertThat(s.nextOffset()).isLessThanOrEqualTo(bound);
                    }
                }
                assertThat(start).isLessThanOrEqualTo(Math.max(bound, 0));
                assertThat(log.segments().get(0).baseOffset()).isEqualTo(start);
                assertThat(log.segments().get(log.segments().size() - 1).closed()).isFalse();
                // the remaining log is contiguous and readable from its new start
                long next = start;
                while (next < log.highWatermark()) {
                    FileSlice slice = log.read(next, 5000);
                    assertThat(slice.firstOffset()).isEqualTo(next);
                    next = slice.nextOffset();
                }
                assertThat(next).isEqualTo(log.logEndOffset());
            }
        } finally {
            TempDirs.delete(tmp);
        }
    }
}

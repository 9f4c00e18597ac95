package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.testing.RandomBatches;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code segment.jitter.ms} as in Kafka: each segment rolls a random amount of at most {@code
 * min(segment.jitter.ms, segment.ms)} before {@code segment.ms}; without it, exactly at {@code
 * segment.ms}.
 */
class SegmentJitterTest {
    private static final long STEP = 25;

    @TempDir Path tmp;

    /** Age of the first batch at which each of {@code n} segments rolled (by STEP ms). */
    private List<Long> rollAges(Map<String, String> cfg, int n) throws Exception {
        MockTime time = new MockTime(1_700_000_000_000L);
        RandomBatches gen = new RandomBatches(3, time.milliseconds());
        List<Long> ages = new ArrayList<>();
        try (PartitionLog log =
                PartitionLog.open(
                        tmp.resolve("j" + cfg.size() + "-0"), LogConfig.from(cfg), time)) {
            for (int i = 0; i < n; i++) {
                log.append(gen.fixedSizeBatch(CompressionType.NONE, 1, 10));
                int segments = log.segments().size();
                long age = 0;
                while (log.segments().size() == segments) {
                    assertThat(age).as("rolled by segment.ms").isLessThanOrEqualTo(1000);
                    time.advance(STEP);
                    age += STEP;
                    log.maybeRoll();
                }
                ages.add(age);
            }
        }
        return ages;
    }

    @Test
    void withoutJitterEverySegmentRollsAtSegmentMs() throws Exception {
        assertThat(rollAges(Map.of("segment.ms", "1000"), 10)).containsOnly(1000L);
    }

    @Test
    void withJitterSegmentsRollAtDifferentAgesNeverPastSegmentMs() throws Exception {
        // jitter is drawn in [0, 1000): 20 segments all within the last STEP has odds 0.025^20
        List<Long> ages = rollAges(Map.of("segment.ms", "1000", "segment.jitter.ms", "5000"), 20);
        assertThat(ages).allSatisfy(a -> assertThat(a).isBetween(STEP, 1000L));
        assertThat(ages.stream().distinct().count()).isGreaterThan(3);
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.common.Config;
import io.tierlog.common.MockTime;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.PartitionLog;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic that is an Iceberg table rolls by wall-clock age at half its freshness target (never
 * above segment.ms); a topic that is not a table keeps segment.ms only. On a manual clock: nothing
 * rolls unless the clock moves.
 */
class IcebergRollTest {
    @TempDir Path dir;

    TopicConfigs configs(Map<String, String> base, Map<String, Map<String, String>> topics)
            throws Exception {
        Catalog catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("c.db"), Map.of());
        for (var e : topics.entrySet()) {
            catalog.createTopic(e.getKey(), 1, e.getValue());
        }
        return new TopicConfigs(Config.of(base), catalog);
    }

    @Test
    void aTableRollsAtHalfItsTargetAndAnOtherTopicAtSegmentMsOnly() throws Exception {
        TopicConfigs c =
                configs(
                        Map.of("segment.ms", "600000"),
                        Map.of(
                                "fast", Map.of("iceberg.freshness.target.ms", "10000"),
                                "slow", Map.of("iceberg.freshness.target.ms", "7200000"),
                                "off", Map.of("iceberg.enabled", "false")));
        assertThat(c.logConfig("fast").wallClockRollMs()).isEqualTo(5000);
        assertThat(c.logConfig("slow").wallClockRollMs())
                .as("never above segment.ms")
                .isEqualTo(600_000);
        assertThat(c.logConfig("off").wallClockRollMs()).isEqualTo(-1);
        assertThat(c.logConfig("unknown").wallClockRollMs())
                .as("broker default: iceberg.enabled=true, target 60 s")
                .isEqualTo(30_000);
    }

    @Test
    void anIdlePartitionOfATableRollsOnlyWhenTheManualClockMoves() throws Exception {
        TopicConfigs c =
                configs(Map.of(), Map.of("t", Map.of("iceberg.freshness.target.ms", "2000")));
        MockTime time = new MockTime(1_700_000_000_000L);
        LogConfig lc = c.logConfig("t");
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), lc, time)) {
            time.advance(60_000);
            log.maybeRoll();
            assertThat(log.segments()).as("empty: never rolls").hasSize(1);
            // a record stamped a day ago: record time must not roll it
            log.append(
                    org.apache.kafka.common.record.internal.MemoryRecords.withRecords(
                                    org.apache.kafka.common.compress.Compression.NONE,
                                    new org.apache.kafka.common.record.internal.SimpleRecord(
                                            time.milliseconds() - 86_400_000L, "v".getBytes()))
                            .buffer());
            for (int i = 0; i < 3; i++) {
                log.maybeRoll();
            }
            assertThat(log.segments()).as("the clock did not move").hasSize(1);
            time.advance(999);
            log.maybeRoll();
            assertThat(log.segments()).hasSize(1);
            time.advance(1);
            log.maybeRoll();
            assertThat(log.segments()).as("idle, rolled at target/2 by housekeeping").hasSize(2);
        }
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.hot.LogCleaner;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog inspect}'s compaction line (real SQLite catalog, hot tier, the engine's log
 * cleaner driven by hand): shown for a compacted topic only; before any cleaning the whole closed
 * log is dirty and nothing was ever cleaned; after a cleaning the line shows the cleaner checkpoint
 * and the time of the cleaning, read from the cleaner's files in the log dir; the cold tier's
 * cleaned offset and last cleaning come from the catalog (never, here).
 */
class InspectCompactionTest {
    @TempDir Path dir;

    private static ByteBuffer keyed(String key, String value) {
        return MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                                System.currentTimeMillis(),
                                key.getBytes(StandardCharsets.UTF_8),
                                value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    @Test
    void aCompactedPartitionShowsItsDirtyRatioAndLastCleaningAndOthersShowNone() throws Exception {
        TopicPartition table = new TopicPartition("table", 0);
        TopicPartition plain = new TopicPartition("plain", 0);
        Map<String, String> m = Map.of("segment.bytes", "2048", "file.delete.delay.ms", "0");
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, m))) {
            log.createTopic(
                    "table",
                    1,
                    Map.of("cleanup.policy", "compact", "min.cleanable.dirty.ratio", "0.01"));
            log.createTopic("plain", 1, Map.of());
            for (int i = 0; i < 400; i++) {
                log.append(table, keyed("k" + (i % 10), "value " + i));
                log.append(plain, keyed("k" + (i % 10), "value " + i));
            }
            assertThat(log.inspect(Optional.of("plain")).get(0).compaction())
                    .as("a topic that is not compacted has no compaction line")
                    .isEmpty();
            PartitionReport before = log.inspect(Optional.of("table")).get(0);
            assertThat(before.hotSegments()).isGreaterThan(2);
            CompactionReport c = before.compaction().orElseThrow();
            assertThat(c.dirtyRatio())
                    .as("nothing cleaned: every closed segment dirty")
                    .isEqualTo(1.0);
            assertThat(c.hotCleanedOffset()).isEqualTo(-1);
            assertThat(c.lastHotCleaningMs()).isEqualTo(-1);
            assertThat(c.coldCleanedOffset()).isZero();
            assertThat(c.lastColdCleaningMs()).isEqualTo(-1);
            assertThat(before.format())
                    .contains(
                            "\n    compaction  hot dirty ratio 1.00, never cleaned, last cleaning"
                                    + " never  cold never compacted, last cleaning never");

            long t0 = System.currentTimeMillis();
            LogCleaner cleaner = log.logManager().cleaner().orElseThrow();
            assertThat(cleaner.cleanAllOnce()).as("partitions cleaned").isEqualTo(1);
            long t1 = System.currentTimeMillis();

            PartitionReport after = log.inspect(Optional.of("table")).get(0);
            CompactionReport a = after.compaction().orElseThrow();
            assertThat(a.hotCleanedOffset())
                    .as("the cleaner checkpoint: the base of the active segment")
                    .isPositive()
                    .isLessThanOrEqualTo(after.highWatermark());
            assertThat(a.lastHotCleaningMs()).isBetween(t0, t1);
            assertThat(a.dirtyRatio()).as("every closed segment cleaned").isZero();
            assertThat(after.format())
                    .contains("cleaned below " + a.hotCleanedOffset())
                    .contains(
                            "last cleaning "
                                    + java.time.Instant.ofEpochMilli(a.lastHotCleaningMs()));
            assertThat(log.inspect(Optional.of("plain")).get(0).compaction()).isEmpty();
        }
    }
}

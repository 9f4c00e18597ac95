package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tierlog.common.testing.Await;
import io.tierlog.hot.LogCleaner;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine runs the hot tier's log cleaner on compacted topics (here compacted by the config
 * file's topic default, as a topic override of {@code cleanup.policy=compact} is accepted only once
 * the engine's topic checks allow it): the cleaner threads start with background work, clean what
 * is appended through {@link TieredLog}, and report through the engine's metrics.
 */
class CompactedTopicEngineTest {
    @TempDir Path dir;

    @Test
    void theEnginesCleanerCompactsWhatIsAppendedAndCountsIt() throws Exception {
        TopicPartition tp = new TopicPartition("table", 0);
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        Map<String, String> m = new HashMap<>();
        m.put("engine.background.enabled", "true");
        m.put("cleanup.policy", "compact");
        m.put("segment.bytes", "4096");
        m.put("min.cleanable.dirty.ratio", "0.01");
        m.put("log.cleaner.backoff.ms", "20");
        m.put("file.delete.delay.ms", "0");
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, m), metrics)) {
            log.createTopic("table", 1, Map.of());
            Map<String, String> latest = new HashMap<>();
            for (int i = 0; i < 500; i++) {
                String key = "k" + (i % 10);
                log.append(tp, keyed(key, "v" + i));
                latest.put(key, "v" + i);
            }
            LogCleaner cleaner = log.logManager().cleaner().orElseThrow();
            Await.until(
                    "a cleaning counted by the engine's metrics",
                    () -> metrics.find(MetricNames.CLEANER_PASSES).functionCounter().count() > 0,
                    Duration.ofSeconds(30));
            assertThat(metrics.find(MetricNames.CLEANER_BYTES_WRITTEN).functionCounter().count())
                    .isPositive();
            assertThat(cleaner.stats(tp)).isPresent();

            Map<String, String> seen = new HashMap<>();
            int records = 0;
            long offset = 0;
            while (offset < 500) {
                TierRead r = EngineFixture.get(log.read(tp, offset, 1 << 20));
                long next = offset;
                for (RecordBatch b : EngineFixture.batches(r)) {
                    for (Record rec : b) {
                        seen.put(text(rec.key()), text(rec.value()));
                        records++;
                    }
                    next = b.lastOffset() + 1;
                }
                if (next == offset) {
                    break;
                }
                offset = next;
            }
            assertThat(seen).isEqualTo(latest);
            assertThat(records).isLessThan(500);
        }
    }

    static ByteBuffer keyed(String key, String value) {
        return MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                                System.currentTimeMillis(),
                                key.getBytes(StandardCharsets.UTF_8),
                                value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    static String text(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new String(a, StandardCharsets.UTF_8);
    }
}

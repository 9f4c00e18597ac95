package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tiered.enabled=false}: the engine opens the hot tier and the catalog (for the topics) but
 * no object store; appends and reads go through the same API and are counted; retention deletes hot
 * segments with no cold copy to wait for, and an offset below the hot start is out of range.
 */
class HotOnlyEngineTest {
    @TempDir Path dir;

    @Test
    void theHotTierAloneServesAppendsReadsAndRetention() throws Exception {
        TopicPartition tp = new TopicPartition("solo", 0);
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        try (TieredLog log =
                TieredLog.open(
                        TopicRegistryTest.hotOnly(
                                dir,
                                Map.of(
                                        "segment.bytes", "16384",
                                        "local.retention.bytes", "1",
                                        "file.delete.delay.ms", "0")),
                        metrics)) {
            assertThat(dir.resolve("data/s3")).doesNotExist();
            assertThat(dir.resolve("data/catalog.db")).exists();
            log.createTopic("solo", 1, Map.of());
            long bytes = 0;
            for (int i = 0; i < 200; i++) {
                ByteBuffer b = TopicRegistryTest.batch("value-" + i + "-" + "x".repeat(200));
                bytes += b.remaining();
                assertThat(log.append(tp, b).firstOffset()).isEqualTo(i);
            }
            assertThat(metrics.counter(MetricNames.BYTES_IN, "tier", "hot").count())
                    .isEqualTo((double) bytes);

            log.maintain(); // local retention: nothing to wait for in a cold tier
            LogOffsets o = log.offsets(tp);
            assertThat(o.hotLogStartOffset()).isPositive();
            assertThat(o.logStartOffset()).isEqualTo(o.hotLogStartOffset());
            assertThat(o.highWatermark()).isEqualTo(200);
            assertThat(EngineFixture.get(log.read(tp, o.hotLogStartOffset(), 1 << 20)).tier())
                    .isEqualTo(TierRead.Tier.HOT);
            assertThatThrownBy(() -> log.read(tp, 0, 1 << 20).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(OffsetOutOfRangeException.class);
            assertThat(log.offsetForTimestamp(tp, 0).get(10, TimeUnit.SECONDS))
                    .hasValueSatisfying(
                            t -> assertThat(t.offset()).isEqualTo(o.hotLogStartOffset()));
            assertThatThrownBy(() -> log.verify(false)).isInstanceOf(IllegalStateException.class);
        }
    }
}

package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offsets and the topic list come from the engine's memory, never from the catalog on the caller's
 * thread (a Netty event loop asks for them on every Fetch, ListOffsets and Metadata): with the
 * catalog made unusable, they still answer, and as of the last commit and retention pass.
 */
class OffsetsFromMemoryIT {
    @TempDir Path dir;

    @Test
    void offsetsAndTopicsAnswerWithTheCatalogGone() throws Exception {
        try (EngineFixture f = new EngineFixture(dir);
                TieredLog log = f.open(Map.of("local.retention.bytes", "1"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 60, 10, 1_000);
            log.maintain(); // offload the closed segments, then local retention drops them
            LogOffsets before = log.offsets(TP);
            // updated by the commit and retention themselves, not by a later read
            assertThat(before.coldHighWatermark()).isPositive();
            assertThat(before.hotLogStartOffset()).isPositive();
            assertThat(before.logStartOffset()).isZero();

            log.catalog().close(); // every catalog call fails from now on
            assertThatThrownBy(() -> log.catalog().topics()).isInstanceOf(RuntimeException.class);

            assertThat(log.offsets(TP)).isEqualTo(before);
            assertThat(log.offsetsAsync(TP).isDone()).isTrue();
            assertThat(log.earliestOffset(TP)).isZero();
            assertThat(log.latestOffset(TP)).isEqualTo(600);
            assertThat(log.topics()).containsExactly(TP.topic());
            assertThat(log.topicRegistry().topic(TP.topic())).isPresent();
            // a hot read needs no catalog either
            TierRead r = EngineFixture.get(log.read(TP, before.hotLogStartOffset(), 1 << 20));
            assertThat(r.tier()).isEqualTo(TierRead.Tier.HOT);
        }
    }
}

package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.MockTime;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Total retention on the cold tier follows {@code cleanup.policy} as in Kafka: a compact-only
 * topic's cold objects outlive {@code retention.ms} (only compaction and DeleteRecords remove
 * records), {@code compact,delete} applies retention as well.
 */
class CompactOnlyColdRetentionIT {
    private static final long BASE_TS = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000;

    @TempDir Path dir;
    EngineFixture fx;
    final MockTime time = new MockTime(BASE_TS + 5_000);

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private TieredLog open() throws Exception {
        return TieredLog.builder(
                        fx.config(
                                Map.of(
                                        "local.retention.bytes", "1",
                                        "offload.target.object.bytes", "1024")))
                .time(time)
                .open();
    }

    private void policy(String policy) {
        fx.cold
                .catalog()
                .updateTopicConfigs(
                        TP.topic(),
                        Map.of("cleanup.policy", policy, "retention.ms", Long.toString(HOUR)));
    }

    @Test
    void compactOnlyColdObjectsOutliveRetentionMsAndCompactDeleteLosesThem() throws Exception {
        long coldEnd;
        try (TieredLog log = open()) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            log.maintain();
            coldEnd = log.offsets(TP).coldHighWatermark();
            assertThat(coldEnd).isPositive();
        }
        policy("compact");
        time.advance(10 * HOUR);
        try (TieredLog log = open()) {
            log.maintain();
            assertThat(log.offsets(TP).coldLogStartOffset())
                    .as("compact only: retention.ms does not apply")
                    .isZero();
            assertThat(EngineFixture.batches(EngineFixture.get(log.read(TP, 0, 1024))))
                    .isNotEmpty();
        }
        policy("compact,delete");
        try (TieredLog log = open()) {
            log.maintain();
            assertThat(log.offsets(TP).coldLogStartOffset())
                    .as("compact,delete: retention.ms applies too")
                    .isPositive();
        }
    }

    @Test
    void theCleanupPolicyDecidesWhetherRetentionDeletes() {
        assertThat(ColdRetention.deletes(Config.empty())).isTrue();
        assertThat(ColdRetention.deletes(Config.of(Map.of("cleanup.policy", "delete")))).isTrue();
        assertThat(ColdRetention.deletes(Config.of(Map.of("cleanup.policy", "compact")))).isFalse();
        assertThat(ColdRetention.deletes(Config.of(Map.of("cleanup.policy", "compact, delete"))))
                .isTrue();
        assertThat(ColdRetention.deletes(Config.of(Map.of("log.cleanup.policy", "compact"))))
                .isFalse();
    }
}

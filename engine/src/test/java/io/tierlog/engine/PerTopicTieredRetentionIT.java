package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention topic configs act per topic when both tiers run (embedded S3 over HTTP, SQLite): {@code
 * local.retention.*} deletes a topic's hot segments only once the cold tier holds them, and its old
 * offsets are then served from cold; {@code retention.*} deletes the oldest cold objects of that
 * topic only. A twin topic without the override gets the same appends and keeps everything. The
 * clock moves only when the test says so.
 */
class PerTopicTieredRetentionIT {
    private static final long BASE_TS = 1_700_000_000_000L;
    private static final TopicPartition TUNED = new TopicPartition("tuned", 0);
    private static final TopicPartition PLAIN = new TopicPartition("plain", 0);

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

    private TieredLog open(Map<String, String> extra) throws Exception {
        return TieredLog.builder(fx.config(extra)).time(time).open();
    }

    private void appendBoth(TieredLog log, int batches) throws Exception {
        EngineFixture.appendRecords(log, TUNED, batches, 10, BASE_TS);
        EngineFixture.appendRecords(log, PLAIN, batches, 10, BASE_TS);
    }

    private static void assertServedFromCold(TieredLog log, TopicPartition tp) throws Exception {
        TierRead r = EngineFixture.get(log.read(tp, 0, 1 << 16));
        assertThat(r.tier()).isEqualTo(TierRead.Tier.COLD);
        long n = 0;
        for (RecordBatch b : EngineFixture.batches(r)) {
            for (Record rec : b) {
                assertThat(EngineFixture.isExpected(rec, BASE_TS)).isTrue();
                n++;
            }
        }
        assertThat(n).isPositive();
    }

    @Test
    void localRetentionBytesDeletesOnlyOffloadedSegmentsOfThatTopic() throws Exception {
        try (TieredLog log = open(Map.of("offload.enabled", "false"))) {
            log.createTopic(TUNED.topic(), 1, Map.of("local.retention.bytes", "1"));
            log.createTopic(PLAIN.topic(), 1, Map.of());
            appendBoth(log, 100);
            log.maintain();
            assertThat(log.offsets(TUNED).hotLogStartOffset())
                    .as("nothing offloaded yet, so nothing deleted")
                    .isZero();
        }
        try (TieredLog log = open(Map.of())) {
            log.maintain();
            LogOffsets tuned = log.offsets(TUNED);
            LogOffsets plain = log.offsets(PLAIN);
            assertThat(tuned.hotLogStartOffset()).isPositive();
            assertThat(tuned.hotLogStartOffset()).isLessThanOrEqualTo(tuned.coldHighWatermark());
            assertThat(plain.coldHighWatermark()).as("the twin is offloaded too").isPositive();
            assertThat(plain.hotLogStartOffset()).as("but keeps its local copy").isZero();
            assertThat(log.earliestOffset(TUNED)).isZero();
            assertServedFromCold(log, TUNED);
            assertThat(EngineFixture.get(log.read(PLAIN, 0, 1 << 16)).tier())
                    .isEqualTo(TierRead.Tier.HOT);
            assertThat(log.verify(true)).isEmpty();
        }
    }

    @Test
    void localRetentionMsDeletesOnlyOffloadedOldSegmentsOfThatTopic() throws Exception {
        try (TieredLog log = open(Map.of())) {
            log.createTopic(TUNED.topic(), 1, Map.of("local.retention.ms", "60000"));
            log.createTopic(PLAIN.topic(), 1, Map.of());
            appendBoth(log, 100);
            log.maintain();
            assertThat(log.offsets(TUNED).coldHighWatermark()).isPositive();
            assertThat(log.offsets(TUNED).hotLogStartOffset())
                    .as("offloaded but younger than local.retention.ms")
                    .isZero();
            time.advance(60_000);
            log.maintain();
            LogOffsets tuned = log.offsets(TUNED);
            assertThat(tuned.hotLogStartOffset()).isPositive();
            assertThat(tuned.hotLogStartOffset()).isLessThanOrEqualTo(tuned.coldHighWatermark());
            assertThat(log.offsets(PLAIN).hotLogStartOffset()).isZero();
            assertServedFromCold(log, TUNED);
        }
    }

    @Test
    void retentionBytesDeletesTheOldestColdObjectsOfThatTopicOnly() throws Exception {
        Map<String, String> engine =
                Map.of("local.retention.bytes", "1", "offload.target.object.bytes", "1024");
        try (TieredLog log = open(engine)) {
            log.createTopic(TUNED.topic(), 1, Map.of("retention.bytes", "60000"));
            log.createTopic(PLAIN.topic(), 1, Map.of());
            appendBoth(log, 200);
            MaintenanceResult r = log.maintain();
            assertThat(r.coldObjectsDeleted()).isPositive();
            long earliest = log.earliestOffset(TUNED);
            assertThat(earliest)
                    .isEqualTo(log.catalog().objects(TUNED.topic(), 0).get(0).firstOffset())
                    .isPositive();
            assertThat(log.earliestOffset(PLAIN)).isZero();
            assertServedFromCold(log, PLAIN);
            assertThat(log.verify(true)).isEmpty();
        }
    }

    @Test
    void retentionMsDeletesOldColdObjectsOfThatTopicOnly() throws Exception {
        Map<String, String> engine =
                Map.of("local.retention.bytes", "1", "offload.target.object.bytes", "1024");
        try (TieredLog log = open(engine)) {
            log.createTopic(TUNED.topic(), 1, Map.of("retention.ms", "60000"));
            log.createTopic(PLAIN.topic(), 1, Map.of());
            appendBoth(log, 100);
            log.maintain();
            assertThat(log.earliestOffset(TUNED)).as("younger than retention.ms").isZero();
            time.advance(60_000);
            log.maintain();
            assertThat(log.earliestOffset(TUNED)).isPositive();
            assertThat(log.earliestOffset(PLAIN)).isZero();
            assertServedFromCold(log, PLAIN);
        }
    }
}

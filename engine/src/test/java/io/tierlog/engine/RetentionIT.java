package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectNotFoundException;
import io.tierlog.cold.ObjectStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionIT {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;
    EngineFixture fx;
    ObjectStore store;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        store = fx.cold.store();
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    @Test
    void localRetentionKeepsSegmentsTheColdTierDoesNotHold() throws Exception {
        try (TieredLog log =
                fx.open(Map.of("offload.enabled", "false", "local.retention.bytes", "1"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            log.maintain();
            assertThat(log.hotLog(TP).get().segments().size()).isGreaterThan(3);
            assertThat(log.offsets(TP).hotLogStartOffset())
                    .as("nothing offloaded, so nothing deleted")
                    .isZero();
        }
    }

    @Test
    void localRetentionDeletesOnlyBelowTheColdHighWatermark() throws Exception {
        try (TieredLog log = fx.open(Map.of("local.retention.bytes", "1"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            log.maintain();
            LogOffsets o = log.offsets(TP);
            assertThat(o.hotLogStartOffset()).isPositive();
            assertThat(o.hotLogStartOffset()).isLessThanOrEqualTo(o.coldHighWatermark());
            assertThat(log.verify(true)).isEmpty();
        }
    }

    @Test
    void totalRetentionDeletesOldestColdObjectsFromCatalogAndStore() throws Exception {
        try (TieredLog log =
                fx.open(
                        Map.of(
                                "local.retention.bytes", "1",
                                "offload.target.object.bytes", "1024",
                                "retention.bytes", "60000"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 200, 10, BASE_TS);
            MaintenanceResult r = log.maintain();
            List<ColdObject> left = log.catalog().objects(TP.topic(), TP.partition());
            assertThat(r.coldObjectsDeleted()).isPositive();
            assertThat(left).isNotEmpty();
            long earliest = log.earliestOffset(TP);
            assertThat(earliest).isEqualTo(left.get(0).firstOffset()).isPositive();
            assertThatThrownBy(() -> EngineFixture.get(log.read(TP, earliest - 1, 100)))
                    .hasCauseInstanceOf(OffsetOutOfRangeException.class);
            assertThat(EngineFixture.get(log.read(TP, earliest, 100)).nextOffset())
                    .isGreaterThan(earliest);
            // Only the retained objects remain in the store.
            long inStore =
                    store.list("").stream().filter(i -> i.key().endsWith(".parquet")).count();
            assertThat(inStore).isEqualTo(left.size());
            assertThat(log.verify(true)).isEmpty();
        }
    }

    @Test
    void orphanLeftByACrashAfterTheCatalogStepIsSweptLater() throws Exception {
        ColdObject first;
        try (TieredLog log = fx.open(Map.of("offload.target.object.bytes", "1024"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            log.maintain();
            first = log.catalog().objects(TP.topic(), 0).get(0);
            // "Crash" between the two steps of retention: catalog updated, object not deleted.
            log.catalog().removeObjectsBelow(TP.topic(), 0, first.lastOffset() + 1);
        }
        assertThat(store.head(first.key()).size()).isEqualTo(first.sizeInBytes());
        // After a restart, the sweeper (grace 1 ms; S3 times have 1 s granularity) finishes it.
        try (TieredLog log = fx.open(Map.of("offload.orphan.grace.ms", "1"))) {
            // the topic's table still holds the object (pinned) until it is brought in line
            log.topicTables().sync(TP.topic());
            assertThat(log.sweepOrphans()).isEqualTo(1);
            assertThatThrownBy(() -> store.head(first.key()))
                    .isInstanceOf(ObjectNotFoundException.class);
            assertThat(log.offsets(TP).coldLogStartOffset()).isEqualTo(first.lastOffset() + 1);
            assertThat(log.verify(true)).isEmpty();
        }
    }

    @Test
    void deletingATopicRemovesBothTiers() throws Exception {
        try (TieredLog log = fx.open(Map.of("local.retention.bytes", "1"))) {
            log.createTopic(TP.topic(), 2, Map.of());
            log.createTopic("other", 1, Map.of());
            TopicPartition p1 = new TopicPartition(TP.topic(), 1);
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            EngineFixture.appendRecords(log, p1, 100, 10, BASE_TS);
            EngineFixture.appendRecords(log, new TopicPartition("other", 0), 100, 10, BASE_TS);
            log.maintain();
            List<ColdObject> objects = log.catalog().objects(TP.topic(), 0);
            assertThat(objects).isNotEmpty();
            Path logDir = dir.resolve("data/log");
            assertThat(logDir.resolve("events-0")).exists();

            log.deleteTopic(TP.topic());

            assertThat(log.topics()).containsExactly("other");
            assertThat(logDir.resolve("events-0")).doesNotExist();
            assertThat(logDir.resolve("events-1")).doesNotExist();
            assertThat(log.catalog().objects(TP.topic(), 0)).isEmpty();
            for (ColdObject o : objects) {
                assertThatThrownBy(() -> store.head(o.key()))
                        .isInstanceOf(ObjectNotFoundException.class);
            }
            assertThat(store.list("").stream().filter(i -> i.key().contains("/events/"))).isEmpty();
            assertThat(log.catalog().objects("other", 0)).isNotEmpty();
            assertThatThrownBy(() -> log.read(TP, 0, 100))
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
            // The name can be used again, starting from an empty log.
            log.createTopic(TP.topic(), 1, Map.of());
            assertThat(log.latestOffset(TP)).isZero();
            assertThat(log.earliestOffset(TP)).isZero();
            assertThat(log.verify(true)).isEmpty();
        }
    }
}

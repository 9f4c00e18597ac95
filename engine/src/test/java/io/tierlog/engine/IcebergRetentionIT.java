package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.common.MockTime;
import io.tierlog.iceberg.RegistrationListener;
import io.tierlog.iceberg.SyncResult;
import io.tierlog.iceberg.TableAudit;
import io.tierlog.iceberg.TableException;
import io.tierlog.iceberg.TableState;
import io.tierlog.iceberg.TopicTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Total retention of a topic that is an Iceberg table (real tables over the engine's catalog and
 * the embedded S3): the table's delete commit comes before any bucket delete, an object a table
 * still pins stays in the bucket, and a failed table sync deletes nothing.
 */
class IcebergRetentionIT {
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

    /** The real tables, with every sync recording which removed objects the bucket still has. */
    static final class Recording implements TopicTables {
        final TopicTables real;
        final Set<String> forcedPins = new HashSet<>();
        final List<String> events = new ArrayList<>();
        volatile boolean failSync;
        volatile Path bucketDir;
        volatile List<String> watched = List.of();

        Recording(TopicTables real) {
            this.real = real;
        }

        @Override
        public boolean enabled(String topic) {
            return real.enabled(topic);
        }

        @Override
        public void onCommitted(String topic, int partition) {
            real.onCommitted(topic, partition);
        }

        @Override
        public SyncResult sync(String topic) {
            long inBucket =
                    watched.stream().filter(k -> Files.exists(bucketDir.resolve(k))).count();
            events.add("sync " + topic + " with " + inBucket + "/" + watched.size() + " in bucket");
            if (failSync) {
                throw new TableException("table catalog down (test)");
            }
            return real.sync(topic);
        }

        @Override
        public List<SyncResult> syncAll() {
            return real.syncAll();
        }

        @Override
        public Optional<TableState> state(String topic) {
            return real.state(topic);
        }

        @Override
        public boolean pinned(String key) {
            return forcedPins.contains(key) || real.pinned(key);
        }

        @Override
        public void dropTable(String topic, UUID topicId) {
            real.dropTable(topic, topicId);
        }

        @Override
        public TableAudit audit(String topic) {
            return real.audit(topic);
        }

        @Override
        public void addListener(RegistrationListener listener) {
            real.addListener(listener);
        }

        @Override
        public void close() {}
    }

    private List<ColdObject> fillAndRegister(TieredLog log) throws Exception {
        log.createTopic(TP.topic(), 1, Map.of("retention.ms", Long.toString(HOUR)));
        EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
        log.maintain();
        List<ColdObject> objects = log.catalog().objects(TP.topic(), TP.partition());
        assertThat(objects.size()).isGreaterThan(1);
        SyncResult r = log.topicTables().sync(TP.topic());
        assertThat(r.skipped()).isEmpty();
        assertThat(log.topicTables().state(TP.topic()).orElseThrow().files())
                .isEqualTo(objects.size());
        return objects;
    }

    @Test
    void theTableDropsTheObjectsBeforeTheBucketAndPinnedOnesStay() throws Exception {
        try (TieredLog log = open()) {
            List<ColdObject> objects = fillAndRegister(log);
            Recording rec = new Recording(log.topicTables());
            rec.bucketDir = fx.cold.objectFile("x").getParent();
            rec.watched = objects.stream().map(ColdObject::key).toList();
            String pinned = objects.get(0).key();
            rec.forcedPins.add(pinned);
            log.resources().retention().setTables(rec);
            time.advance(10 * HOUR);
            int removed = log.resources().retention().apply();
            assertThat(removed).isEqualTo(objects.size());
            assertThat(rec.events)
                    .as("the table commit saw every removed object still in the bucket")
                    .containsExactly(
                            "sync "
                                    + TP.topic()
                                    + " with "
                                    + objects.size()
                                    + "/"
                                    + objects.size()
                                    + " in bucket");
            assertThat(log.topicTables().state(TP.topic()).orElseThrow().files()).isZero();
            assertThat(Files.exists(fx.cold.objectFile(pinned)))
                    .as("a pinned object is left to the sweeper")
                    .isTrue();
            for (ColdObject o : objects.subList(1, objects.size())) {
                assertThat(Files.exists(fx.cold.objectFile(o.key()))).isFalse();
            }
        }
    }

    @Test
    void aFailedTableSyncDeletesNothingFromTheBucket() throws Exception {
        try (TieredLog log = open()) {
            List<ColdObject> objects = fillAndRegister(log);
            Recording rec = new Recording(log.topicTables());
            rec.bucketDir = fx.cold.objectFile("x").getParent();
            rec.failSync = true;
            log.resources().retention().setTables(rec);
            time.advance(10 * HOUR);
            assertThat(log.resources().retention().apply()).isEqualTo(objects.size());
            assertThat(log.catalog().objects(TP.topic(), TP.partition())).isEmpty();
            for (ColdObject o : objects) {
                assertThat(Files.exists(fx.cold.objectFile(o.key())))
                        .as("still referenced by the table: kept for the sweeper")
                        .isTrue();
            }
        }
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.CompactorOptions;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.compactor.testing.FaultyCatalog;
import io.tierlog.compactor.testing.SegmentFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cold read that resolved its object just before a replace-commit retired it, and reaches the
 * store after the retired object was deleted, re-resolves through the catalog and is served from
 * the compacted object (s3proxy over HTTP, SQLite catalog; the catalog answers the first lookup
 * from before the replace, which is the race's timing).
 */
class ColdReadRetiredObjectIT {
    static final TopicPartition TP = new TopicPartition("table", 0);

    @TempDir Path dir;
    @AutoClose ColdTierFixture cold;
    FaultyCatalog catalog;
    ExecutorService executor;
    ScheduledExecutorService timer;
    SegmentFiles log;
    Map<String, String> settings = new HashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        cold = ColdTierFixture.start(dir);
        catalog = new FaultyCatalog(cold.catalog());
        executor = Executors.newFixedThreadPool(2);
        timer = Executors.newSingleThreadScheduledExecutor();
        cold.catalog().createTopic(TP.topic(), 1, Map.of("cleanup.policy", "compact"));
        log = new SegmentFiles(dir.resolve("log"), 3);
        for (int s = 0; s < 6; s++) {
            for (int b = 0; b < 10; b++) {
                log.appendKeyed(TP, CompressionType.NONE, "a", "a" + s + b, "b" + b, "b" + s);
            }
            log.roll(TP);
        }
        settings.put(CompactorOptions.OFFLOAD_TMP_DIR.key(), dir.resolve("tmp").toString());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1KiB");
    }

    @AfterEach
    void tearDown() throws Exception {
        executor.shutdownNow();
        timer.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void aReadRoutedToARetiredAndDeletedObjectIsServedFromItsReplacement() throws Exception {
        settings.put(CompactorOptions.COLD_CLEANER_ENABLE.key(), "false");
        try (Compactor offload =
                cold.compactor(log, Optional.of(log.dir()), settings, Time.SYSTEM)) {
            offload.runOnce();
        }
        List<ColdObject> before = cold.catalog().objects(TP.topic(), 0);
        assertThat(before).hasSizeGreaterThan(2);
        settings.remove(CompactorOptions.COLD_CLEANER_ENABLE.key());
        settings.put(CompactorOptions.OFFLOAD_TARGET_OBJECT_BYTES.key(), "1MiB");
        try (Compactor c = cold.compactor(log, Optional.of(log.dir()), settings, Time.SYSTEM)) {
            assertThat(c.runColdCompactionOnce().runsCommitted()).isEqualTo(1);
        }
        for (RetiredObject o : cold.catalog().retiredObjects(Long.MAX_VALUE)) {
            cold.store().delete(o.key()); // the sweeper, after the grace period
        }
        ColdObject target = before.get(1);
        catalog.staleObjects.set(before);
        ColdReader reader =
                new ColdReader(
                        cold.store(),
                        new ColdIndex(catalog),
                        executor,
                        1 << 20,
                        false,
                        1,
                        8 << 20,
                        16,
                        new SimpleMeterRegistry(),
                        timer,
                        Duration.ofSeconds(30),
                        Time.SYSTEM,
                        null);
        TierRead.Cold r =
                reader.read(TP, target.firstOffset(), 1 << 20, Long.MAX_VALUE, 1000, 0)
                        .get(30, TimeUnit.SECONDS);
        assertThat(catalog.staleObjects.get()).as("the stale view was used").isNull();
        ColdObject replacement = cold.catalog().objects(TP.topic(), 0).get(0);
        assertThat(r.objectKey()).isEqualTo(replacement.key());
        assertThat(r.isEmpty()).isFalse();
        RecordBatch first = r.records().batches().iterator().next();
        assertThat(first.lastOffset()).isGreaterThanOrEqualTo(target.firstOffset());
    }
}

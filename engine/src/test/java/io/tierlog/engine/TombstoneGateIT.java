package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.MockTime;
import io.tierlog.hot.LogCleaner;
import io.tierlog.hot.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's tombstone gate over a real catalog and embedded S3: the hot cleaner removes a
 * tombstone past its delete horizon while the partition has no cold object, and keeps tombstones
 * (removing only superseded values) once the offload has put objects of the partition in the
 * catalog, so an older value in a cold object can never come back for a consumer reading from 0.
 */
class TombstoneGateIT {
    @TempDir Path dir;
    EngineFixture fx;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final TopicPartition tp = new TopicPartition("table", 0);

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    @Test
    void tombstonesGoOnlyWhileTheCatalogHasNoColdObjectOfThePartition() throws Exception {
        Map<String, String> extra =
                Map.of(
                        "cleanup.policy", "compact",
                        "min.cleanable.dirty.ratio", "0.01",
                        "delete.retention.ms", "1000",
                        "local.retention.ms", "-1");
        try (TieredLog log = TieredLog.builder(fx.config(extra)).time(time).open()) {
            log.createTopic("table", 1, Map.of());
            LogCleaner cleaner = log.logManager().cleaner().orElseThrow();
            PartitionLog hot = log.hotLog(tp).orElseThrow();

            append(log, "a", "old");
            append(log, "a", null); // tombstone
            fill(log, "f", 400);
            cleaner.cleanAllOnce(); // delete horizon set
            time.advance(1500);
            fill(log, "g", 400);
            cleaner.cleanAllOnce();
            assertThat(keysOf(hot))
                    .as("no cold object yet: the tombstone went")
                    .doesNotContain("a");

            log.maintain(); // offload: the catalog now holds objects of the partition
            assertThat(log.offsets(tp).coldHighWatermark()).isPositive();
            append(log, "b", "old");
            append(log, "b", null);
            fill(log, "h", 400);
            cleaner.cleanAllOnce();
            time.advance(1500);
            fill(log, "i", 400);
            cleaner.cleanAllOnce();
            List<String> keys = keysOf(hot);
            assertThat(keys.stream().filter("b"::equals))
                    .as("cold objects exist: the tombstone stays, the superseded value goes")
                    .hasSize(1);
        }
    }

    private void append(TieredLog log, String key, String value) throws Exception {
        log.append(
                tp,
                MemoryRecords.withRecords(
                                Compression.NONE,
                                new SimpleRecord(
                                        time.milliseconds(),
                                        key.getBytes(StandardCharsets.UTF_8),
                                        value == null
                                                ? null
                                                : value.getBytes(StandardCharsets.UTF_8)))
                        .buffer());
    }

    private void fill(TieredLog log, String prefix, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            append(log, prefix + i, "x".repeat(60));
        }
    }

    private static List<String> keysOf(PartitionLog hot) throws Exception {
        List<String> keys = new ArrayList<>();
        long offset = hot.logStartOffset();
        while (offset < hot.highWatermark()) {
            var slice = hot.read(offset, 1 << 20);
            if (slice.isEmpty()) {
                break;
            }
            for (RecordBatch b : slice.batches()) {
                for (Record r : b) {
                    ByteBuffer k = r.key();
                    byte[] a = new byte[k.remaining()];
                    k.get(a);
                    keys.add(new String(a, StandardCharsets.UTF_8));
                }
            }
            offset = slice.nextOffset();
        }
        return keys;
    }
}

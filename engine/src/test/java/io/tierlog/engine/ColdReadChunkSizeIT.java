package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read that misses the cold cache decodes its fetch size (at least 1 MiB), not a whole {@code
 * cold.read.chunk.bytes} chunk, so a seek's first batch comes fast; a sequential reader then gets
 * whole chunks from read-ahead.
 */
class ColdReadChunkSizeIT {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir Path dir;
    EngineFixture fx;
    TieredLog log;

    @AfterEach
    void tearDown() throws Exception {
        if (log != null) {
            log.close();
        }
        if (fx != null) {
            fx.close();
        }
    }

    private void open(boolean readAhead) throws Exception {
        fx = new EngineFixture(dir);
        log =
                fx.open(
                        Map.of(
                                "local.retention.bytes", "40000",
                                "cold.read.chunk.bytes", "4MiB",
                                "cold.read.ahead", Boolean.toString(readAhead)));
        log.createTopic(TP.topic(), 1, Map.of());
        // ~8 MB of ~80-byte records (every third batch ZSTD), all but the last 40 KB offloaded
        // and deleted locally
        EngineFixture.appendRecords(log, TP, 1100, 100, 1_700_000_000_000L);
        log.maintain();
        assertThat(log.offsets(TP).hotLogStartOffset()).isGreaterThan(100_000);
    }

    private double cachedBytes() {
        return log.meterRegistry().get(MetricNames.COLD_CACHE_BYTES).gauge().value();
    }

    @Test
    void aCacheMissDecodesOnlyTheFetchSizeNotAWholeChunk() throws Exception {
        open(false);
        TierRead first = EngineFixture.get(log.read(TP, 10_000, 64 * 1024));
        assertThat(first.tier()).isEqualTo(TierRead.Tier.COLD);
        assertThat(cachedBytes())
                .as("a 1 MiB load, not the 4 MiB chunk")
                .isPositive()
                .isLessThanOrEqualTo(ColdReader.MIN_MISS_BYTES + 64 * 1024);
    }

    @Test
    void readsAnywhereInsideALoadedChunkStartAtTheBatchHoldingTheOffset() throws Exception {
        open(false);
        EngineFixture.get(log.read(TP, 20_000, 1 << 20)); // loads a 1 MiB chunk from 20,000
        Random random = new Random(3);
        for (int i = 0; i < 200; i++) {
            long offset = 20_000 + random.nextInt(9_000); // inside that chunk
            TierRead r = EngineFixture.get(log.read(TP, offset, 1 + random.nextInt(100_000)));
            assertThat(r.tier()).isEqualTo(TierRead.Tier.COLD);
            RecordBatch first = r.toMemoryRecords().batches().iterator().next();
            assertThat(first.baseOffset()).as("read at %d", offset).isLessThanOrEqualTo(offset);
            assertThat(first.lastOffset()).as("read at %d", offset).isGreaterThanOrEqualTo(offset);
            for (Record rec : first) {
                assertThat(EngineFixture.isExpected(rec, 1_700_000_000_000L)).isTrue();
            }
        }
        double loads = log.meterRegistry().counter(MetricNames.COLD_CHUNK_LOADS).count();
        assertThat(loads).as("every read served from the one loaded chunk").isEqualTo(1.0);
    }

    @Test
    void aSequentialReaderGetsWholeChunksFromReadAhead() throws Exception {
        open(true);
        TierRead first = EngineFixture.get(log.read(TP, 0, 1 << 20));
        long next = first.nextOffset();
        // Read on to the end of the first (1 MiB) load: read-ahead then loads whole chunks.
        while (next < 10_000) {
            next = EngineFixture.get(log.read(TP, next, 1 << 20)).nextOffset();
        }
        // Read-ahead loads on the cold-read threads.
        Await.until(
                "cached bytes above 2.5 MiB, more than the 1 MiB miss loads",
                this::cachedBytes,
                b -> b > 2.5 * (1 << 20),
                Duration.ofSeconds(30));
    }
}

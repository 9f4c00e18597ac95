package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TieredReadIT {
    private static final long BASE_TS = 1_700_000_000_000L;
    private static final int BATCHES = 240;
    private static final int PER_BATCH = 10;

    @TempDir Path dir;
    EngineFixture fx;
    TieredLog log;

    @BeforeEach
    void setUp() throws Exception {
        fx = new EngineFixture(dir);
        log = fx.open(Map.of("local.retention.bytes", "40000"));
        log.createTopic(TP.topic(), 1, Map.of());
        EngineFixture.appendRecords(log, TP, BATCHES, PER_BATCH, BASE_TS);
        log.maintain();
    }

    @AfterEach
    void tearDown() throws Exception {
        log.close();
        fx.close();
    }

    @Test
    void offloadAndLocalRetentionLeaveOldOffsetsOnlyInCold() {
        LogOffsets o = log.offsets(TP);
        assertThat(o.logStartOffset()).isZero();
        assertThat(o.coldHighWatermark()).isGreaterThan(0);
        assertThat(o.hotLogStartOffset())
                .as("local retention deleted offloaded segments, never past the cold HW")
                .isGreaterThan(0)
                .isLessThanOrEqualTo(o.coldHighWatermark());
        assertThat(o.highWatermark()).isEqualTo((long) BATCHES * PER_BATCH);
        assertThat(log.earliestOffset(TP)).isZero();
        assertThat(log.latestOffset(TP)).isEqualTo((long) BATCHES * PER_BATCH);
    }

    @Test
    void sequentialReaderGetsEveryRecordOnceCrossingFromColdToHot() throws Exception {
        for (int maxBytes : new int[] {1, 700, 5000, 1 << 20}) {
            long next = log.earliestOffset(TP);
            long hotStart = log.offsets(TP).hotLogStartOffset();
            boolean sawCold = false;
            boolean sawHot = false;
            TierRead.Tier previous = null;
            while (next < log.latestOffset(TP)) {
                TierRead r = EngineFixture.get(log.read(TP, next, maxBytes));
                assertThat(r.isEmpty()).isFalse();
                if (r.tier() == TierRead.Tier.HOT && previous == TierRead.Tier.COLD) {
                    assertThat(next)
                            .as("the cold read stopped at the hot start")
                            .isEqualTo(hotStart);
                }
                sawCold |= r.tier() == TierRead.Tier.COLD;
                sawHot |= r.tier() == TierRead.Tier.HOT;
                for (RecordBatch b : EngineFixture.batches(r)) {
                    assertThat(b.baseOffset()).as("no gap, no duplicate").isEqualTo(next);
                    b.ensureValid();
                    for (Record rec : b) {
                        assertThat(EngineFixture.isExpected(rec, BASE_TS))
                                .as("record at %d", rec.offset())
                                .isTrue();
                    }
                    next = b.lastOffset() + 1;
                }
                assertThat(r.nextOffset()).isEqualTo(next);
                previous = r.tier();
            }
            assertThat(next).isEqualTo((long) BATCHES * PER_BATCH);
            assertThat(sawCold).isTrue();
            assertThat(sawHot).isTrue();
        }
    }

    @Test
    void reopenedLogServesBothTiersAndOffsetsAsBefore() throws Exception {
        LogOffsets before = log.offsets(TP);
        log.close();
        log = fx.open(Map.of("local.retention.bytes", "40000"));
        assertThat(log.offsetsAsync(TP).get(60, TimeUnit.SECONDS)).isEqualTo(before);
        long next = 0;
        while (next < before.highWatermark()) {
            TierRead r = EngineFixture.get(log.read(TP, next, 1 << 16));
            for (RecordBatch b : EngineFixture.batches(r)) {
                assertThat(b.baseOffset()).isEqualTo(next);
                next = b.lastOffset() + 1;
            }
        }
        assertThat(log.verify(false)).isEmpty();
    }

    @Test
    void closingDuringColdReadsCompletesThemAndAReopenedLogResumes() throws Exception {
        List<CompletableFuture<TierRead>> inFlight = new ArrayList<>();
        for (long o = 0; o < log.offsets(TP).hotLogStartOffset(); o += 97) {
            inFlight.add(log.read(TP, o, 1 << 20));
        }
        log.close();
        for (CompletableFuture<TierRead> f : inFlight) {
            // Each completes (with data, or with a retriable error): nobody waits forever.
            f.handle((r, e) -> e == null ? r : null).get(60, TimeUnit.SECONDS);
            if (f.isCompletedExceptionally()) {
                assertThatThrownBy(f::join)
                        .hasCauseInstanceOf(
                                org.apache.kafka.common.errors.RetriableException.class);
            }
        }
        assertThatThrownBy(() -> log.read(TP, 0, 100))
                .isInstanceOf(org.apache.kafka.common.errors.KafkaStorageException.class);
        log = fx.open(Map.of("local.retention.bytes", "40000"));
        long next = 0;
        while (next < log.latestOffset(TP)) {
            TierRead r = EngineFixture.get(log.read(TP, next, 1 << 18));
            for (RecordBatch b : EngineFixture.batches(r)) {
                assertThat(b.baseOffset()).isEqualTo(next);
                next = b.lastOffset() + 1;
            }
        }
    }

    @Test
    void partitionsTheCatalogDoesNotKnowYetServeFromTheHotTier() throws Exception {
        // A server's registry may open partition 3 before the catalog hears of it.
        org.apache.kafka.common.TopicPartition p3 =
                new org.apache.kafka.common.TopicPartition(TP.topic(), 3);
        log.logManager().getOrCreate(p3);
        assertThat(log.offsets(p3).logStartOffset()).isZero();
        assertThat(log.earliestOffset(p3)).isZero();
        assertThat(EngineFixture.get(log.read(p3, 0, 100)).isEmpty()).isTrue();
        assertThat(log.offsetForTimestamp(p3, 0).get(60, TimeUnit.SECONDS)).isEmpty();
        log.maintain(); // registers it in the catalog
        assertThat(log.catalog().topic(TP.topic()).get().partitions()).isEqualTo(4);
        assertThat(log.verify(false)).isEmpty();
    }

    @Test
    void hotWinsWhereBothTiersHoldAnOffset() throws Exception {
        LogOffsets o = log.offsets(TP);
        long overlap = o.hotLogStartOffset();
        assertThat(overlap).isLessThan(o.coldHighWatermark());
        TierRead r = EngineFixture.get(log.read(TP, overlap, 1 << 20));
        assertThat(r.tier()).isEqualTo(TierRead.Tier.HOT);
        assertThat(r).isInstanceOf(TierRead.Hot.class);
        // A cold read just below stops before the hot start even though its object goes on.
        TierRead c = EngineFixture.get(log.read(TP, overlap - 1, 1 << 20));
        assertThat(c.tier()).isEqualTo(TierRead.Tier.COLD);
        assertThat(c.nextOffset()).isEqualTo(overlap);
    }

    @Test
    void offsetsOutsideTheLogFailWithOffsetOutOfRange() {
        assertThatThrownBy(() -> EngineFixture.get(log.read(TP, -1, 100)))
                .hasCauseInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(() -> EngineFixture.get(log.read(TP, BATCHES * PER_BATCH + 1, 100)))
                .hasCauseInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(
                        () -> log.read(new org.apache.kafka.common.TopicPartition("nope", 0), 0, 1))
                .isInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void readAtHighWatermarkIsEmptyHotRead() throws Exception {
        TierRead r = EngineFixture.get(log.read(TP, BATCHES * PER_BATCH, 100));
        assertThat(r.isEmpty()).isTrue();
        assertThat(r.tier()).isEqualTo(TierRead.Tier.HOT);
        assertThat(r.nextOffset()).isEqualTo((long) BATCHES * PER_BATCH);
    }

    @Test
    void concurrentReadersOfOneChunkShareOneLoad() throws Exception {
        double loadsBefore = log.meterRegistry().counter(MetricNames.COLD_CHUNK_LOADS).count();
        List<CompletableFuture<TierRead>> futures = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            futures.add(log.read(TP, 100, 1 << 20));
        }
        List<Long> nexts = new ArrayList<>();
        for (CompletableFuture<TierRead> f : futures) {
            nexts.add(EngineFixture.get(f).nextOffset());
        }
        assertThat(nexts).containsOnly(nexts.get(0));
        double loads =
                log.meterRegistry().counter(MetricNames.COLD_CHUNK_LOADS).count() - loadsBefore;
        // One load for the chunk (not 16); read-ahead may add up to cold.read.ahead.chunks more.
        assertThat(loads).isBetween(1.0, 4.0);
    }

    @Test
    void sequentialReaderFindsTheNextChunkLoadedAhead() throws Exception {
        TierRead first = EngineFixture.get(log.read(TP, 0, 1 << 20));
        long next = first.nextOffset();
        double ahead = log.meterRegistry().counter(MetricNames.COLD_READ_AHEAD).count();
        assertThat(ahead).isGreaterThanOrEqualTo(1.0);
        // Wait (bounded) for the prefetch to land, then the next read is a cache hit.
        double hits = hits();
        double missesBefore = misses();
        TierRead second =
                Await.until(
                        "a read of offset " + next + " served from the cache",
                        () -> EngineFixture.get(log.read(TP, next, 1 << 20)),
                        r -> hits() > hits,
                        Duration.ofSeconds(30));
        assertThat(second.tier()).isEqualTo(TierRead.Tier.COLD);
        assertThat(misses()).as("the second chunk was loaded ahead").isEqualTo(missesBefore);
    }

    private double misses() {
        return log.meterRegistry()
                .counter(MetricNames.COLD_CACHE_REQUESTS, "result", "miss")
                .count();
    }

    private double hits() {
        return log.meterRegistry()
                .counter(MetricNames.COLD_CACHE_REQUESTS, "result", "hit")
                .count();
    }

    @Test
    void offsetForTimestampLandsOnTheFirstRecordAtOrAfterItInBothTiers() throws Exception {
        long hotStart = log.offsets(TP).hotLogStartOffset();
        long end = (long) BATCHES * PER_BATCH;
        for (long target : new long[] {0, 5, 137, hotStart - 3, hotStart, hotStart + 11, end - 1}) {
            Optional<TimestampOffset> r =
                    log.offsetForTimestamp(TP, BASE_TS + target).get(60, TimeUnit.SECONDS);
            assertThat(r).as("timestamp of offset %d", target).isPresent();
            assertThat(r.get().offset()).isEqualTo(target);
            assertThat(r.get().timestamp()).isEqualTo(BASE_TS + target);
        }
        assertThat(log.offsetForTimestamp(TP, 0).get(60, TimeUnit.SECONDS).get().offset()).isZero();
        assertThat(log.offsetForTimestamp(TP, BASE_TS + end).get(60, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void readFailureOfUnknownOffsetIsNotRetriable() {
        ExecutionException e =
                org.junit.jupiter.api.Assertions.assertThrows(
                        ExecutionException.class, () -> log.read(TP, -5, 10).get());
        assertThat(e.getCause()).isNotInstanceOf(ColdReadException.class);
    }
}

package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background threads (offload loop, housekeeping with local retention) run while a writer
 * appends and readers read from offset 0: every reader sees every record once, in order, whichever
 * tier serves it, while segments move from hot to cold under it.
 */
class BackgroundTieringTest {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;

    @Test
    void readersSeeEveryRecordOnceWhileSegmentsMoveToColdUnderThem() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log =
                        fx.open(
                                Map.of(
                                        "engine.background.enabled", "true",
                                        "offload.interval.ms", "100",
                                        "local.retention.bytes", "20000",
                                        // as in production: a slice handed to a reader stays
                                        // readable while local retention deletes its segment (the
                                        // fixture's 0 deletes under a reader between read and use)
                                        "file.delete.delay.ms", "30s"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            int batches = 300;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer =
                    new Thread(
                            () -> {
                                try {
                                    for (int i = 0; i < batches; i += 10) {
                                        EngineFixture.appendRecords(log, TP, 10, 10, BASE_TS);
                                    }
                                } catch (Throwable t) {
                                    failure.set(t);
                                }
                            });
            writer.start();
            long end = batches * 10L;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int passes = 0;
            boolean sawCold = false;
            // Read from 0 repeatedly until the hot tier has moved on and a pass saw cold data.
            while (System.nanoTime() < deadline && (passes < 2 || !sawCold)) {
                long next = 0;
                while (next < end && System.nanoTime() < deadline) {
                    if (next >= log.latestOffset(TP)) {
                        Thread.onSpinWait(); // the writer is behind this reader
                        continue;
                    }
                    TierRead r = log.read(TP, next, 3000).get(60, TimeUnit.SECONDS);
                    sawCold |= r.tier() == TierRead.Tier.COLD;
                    for (RecordBatch b : EngineFixture.batches(r)) {
                        assertThat(b.baseOffset()).isEqualTo(next);
                        for (Record rec : b) {
                            assertThat(EngineFixture.isExpected(rec, BASE_TS)).isTrue();
                        }
                        next = b.lastOffset() + 1;
                    }
                }
                assertThat(next).isEqualTo(end);
                passes++;
            }
            writer.join();
            assertThat(failure.get()).isNull();
            assertThat(sawCold).as("a pass read offloaded data from the cold tier").isTrue();
            LogOffsets o = log.offsets(TP);
            assertThat(o.hotLogStartOffset())
                    .isPositive()
                    .isLessThanOrEqualTo(o.coldHighWatermark());
            assertThat(log.verify(true)).isEmpty();
        }
    }
}

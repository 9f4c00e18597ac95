package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
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
class BackgroundTieringIT {
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
            int[] passes = {0};
            boolean[] sawCold = {false};
            // Read from 0 repeatedly until the hot tier has moved on and a pass saw cold data.
            Await.until(
                    "two full read passes, one of them reading offloaded data",
                    () -> {
                        long next = 0;
                        while (next < end) {
                            long from = next;
                            Await.until(
                                    "the writer to pass offset " + from,
                                    () -> log.latestOffset(TP) > from,
                                    Duration.ofSeconds(120));
                            TierRead r = log.read(TP, next, 3000).get(60, TimeUnit.SECONDS);
                            sawCold[0] |= r.tier() == TierRead.Tier.COLD;
                            for (RecordBatch b : EngineFixture.batches(r)) {
                                assertThat(b.baseOffset()).isEqualTo(next);
                                for (Record rec : b) {
                                    assertThat(EngineFixture.isExpected(rec, BASE_TS)).isTrue();
                                }
                                next = b.lastOffset() + 1;
                            }
                        }
                        passes[0]++;
                        return passes[0] >= 2 && sawCold[0];
                    },
                    Duration.ofSeconds(120));
            writer.join();
            assertThat(failure.get()).isNull();
            LogOffsets o = log.offsets(TP);
            assertThat(o.hotLogStartOffset())
                    .isPositive()
                    .isLessThanOrEqualTo(o.coldHighWatermark());
            assertThat(log.verify(true)).isEmpty();
        }
    }
}

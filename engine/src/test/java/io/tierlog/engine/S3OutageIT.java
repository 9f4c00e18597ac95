package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.RetriableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3OutageIT {
    private static final long BASE_TS = 1_700_000_000_000L;

    @TempDir Path dir;

    @Test
    void hotKeepsWorkingRetentionPausesColdFailsRetriablyAndAllCatchesUp() throws Exception {
        try (EngineFixture fx = new EngineFixture(dir);
                TieredLog log = fx.open(Map.of("local.retention.bytes", "1"))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            log.maintain();
            LogOffsets before = log.offsets(TP);
            assertThat(before.hotLogStartOffset()).isPositive();

            fx.stopS3();

            // Hot produce and consume go on.
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            assertThat(log.latestOffset(TP)).isEqualTo(2000);
            TierRead hot = EngineFixture.get(log.read(TP, 1500, 1 << 20));
            assertThat(hot.tier()).isEqualTo(TierRead.Tier.HOT);
            assertThat(hot.isEmpty()).isFalse();

            // Offload fails, and local retention does not delete what is not offloaded.
            int segments = log.hotLog(TP).get().segments().size();
            MaintenanceResult m = log.maintain();
            assertThat(m.offload().get().failedPartitions()).isPositive();
            LogOffsets during = log.offsets(TP);
            assertThat(during.coldHighWatermark()).isEqualTo(before.coldHighWatermark());
            assertThat(during.hotLogStartOffset()).isLessThanOrEqualTo(during.coldHighWatermark());
            assertThat(log.hotLog(TP).get().segments()).hasSize(segments);

            // Cold reads fail with a retriable error.
            ExecutionException e =
                    org.junit.jupiter.api.Assertions.assertThrows(
                            ExecutionException.class,
                            () -> log.read(TP, 3, 1 << 20).get(60, TimeUnit.SECONDS));
            assertThat(e.getCause())
                    .isInstanceOf(ColdReadException.class)
                    .isInstanceOf(RetriableException.class);
            assertThat(
                            log
                                    .meterRegistry()
                                    .find(MetricNames.COLD_READ_ERRORS)
                                    .counters()
                                    .stream()
                                    .mapToDouble(io.micrometer.core.instrument.Counter::count)
                                    .sum())
                    .isPositive();

            fx.startS3();

            // Everything catches up.
            log.maintain();
            LogOffsets after = log.offsets(TP);
            long closedEnd =
                    log.hotLog(TP)
                            .get()
                            .segments()
                            .get(log.hotLog(TP).get().segments().size() - 1)
                            .baseOffset();
            assertThat(after.coldHighWatermark()).isEqualTo(closedEnd);
            assertThat(after.hotLogStartOffset()).isGreaterThan(during.hotLogStartOffset());
            TierRead cold = EngineFixture.get(log.read(TP, 3, 1 << 20));
            assertThat(cold.tier()).isEqualTo(TierRead.Tier.COLD);
            long next = 0;
            while (next < 2000) {
                TierRead r = EngineFixture.get(log.read(TP, next, 1 << 16));
                assertThat(r.isEmpty()).isFalse();
                next = r.nextOffset();
            }
            assertThat(log.verify(true)).isEmpty();
        }
    }
}

package io.tierlog.engine;

import static io.tierlog.engine.EngineFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.ColdObject;
import io.tierlog.common.MockTime;
import io.tierlog.hot.SegmentInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention of both tiers on a clock that moves only when the test says so: local retention by age
 * deletes a hot segment on the first millisecond its newest record is older than {@code
 * local.retention.ms}, and only if the cold tier holds it; total retention deletes a cold object on
 * the first millisecond past {@code retention.ms}. Each step is one maintenance pass; nothing waits
 * for real time.
 */
class ManualClockRetentionIT {
    private static final long BASE_TS = 1_700_000_000_000L;
    private static final long MINUTE = 60_000;

    @TempDir Path dir;
    EngineFixture fx;
    final MockTime time = new MockTime(BASE_TS + 5_000); // just after the records' timestamps

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

    /** Moves the clock to {@code ms} (never back). */
    private void clockAt(long ms) {
        assertThat(ms).isGreaterThanOrEqualTo(time.milliseconds());
        time.advance(ms - time.milliseconds());
    }

    @Test
    void anOldHotSegmentGoesOnTheFirstMillisecondPastLocalRetentionMsAndOnlyIfOffloaded()
            throws Exception {
        long offloaded;
        try (TieredLog log = open(Map.of("local.retention.ms", Long.toString(MINUTE)))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            log.maintain();
            offloaded = log.offsets(TP).coldHighWatermark();
            assertThat(offloaded).as("closed segments offloaded").isPositive();
            assertThat(log.offsets(TP).hotLogStartOffset())
                    .as("offloaded, but younger than local.retention.ms")
                    .isZero();
        }
        // Offload off from now on: the records appended next stay in the hot tier only.
        try (TieredLog log =
                open(
                        Map.of(
                                "local.retention.ms",
                                Long.toString(MINUTE),
                                "offload.enabled",
                                "false"))) {
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            long end = log.latestOffset(TP);
            SegmentInfo first = log.hotLog(TP).get().segments().get(0);

            clockAt(first.maxTimestamp() + MINUTE);
            log.maintain();
            assertThat(log.offsets(TP).hotLogStartOffset())
                    .as("exactly local.retention.ms old: kept")
                    .isZero();

            time.advance(1);
            log.maintain();
            long start = log.offsets(TP).hotLogStartOffset();
            assertThat(start).as("one millisecond older: deleted").isPositive();
            assertThat(start).isLessThanOrEqualTo(offloaded);

            // Much later every hot segment is past retention; only the offloaded ones may go.
            time.advance(60 * MINUTE);
            log.maintain();
            LogOffsets o = log.offsets(TP);
            assertThat(o.coldHighWatermark()).isEqualTo(offloaded);
            assertThat(o.hotLogStartOffset()).isLessThanOrEqualTo(offloaded);
            assertThat(log.hotLog(TP).get().segments().get(0).nextOffset())
                    .as("the first segment left holds offsets the cold tier does not")
                    .isGreaterThan(offloaded);
            assertThat(log.latestOffset(TP)).isEqualTo(end);
            // Every offset is still readable, from one tier or the other.
            for (long at : new long[] {0, offloaded - 1, offloaded, end - 1}) {
                TierRead r = EngineFixture.get(log.read(TP, at, 1 << 20));
                assertThat(EngineFixture.batches(r)).isNotEmpty();
                assertThat(r.nextOffset()).isGreaterThan(at);
            }
        }
    }

    @Test
    void aColdObjectGoesOnTheFirstMillisecondPastRetentionMs() throws Exception {
        long hour = 60 * MINUTE;
        try (TieredLog log =
                open(
                        Map.of(
                                "retention.ms",
                                Long.toString(hour),
                                "local.retention.bytes",
                                "1",
                                "offload.target.object.bytes",
                                "1024",
                                // the table's wall-clock roll (target/2) must not offload the
                                // active segment when the clock jumps by retention.ms
                                "iceberg.freshness.target.ms",
                                Long.toString(8 * hour)))) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            MaintenanceResult r = log.maintain();
            assertThat(r.coldObjectsDeleted()).isZero();
            List<ColdObject> objects = log.catalog().objects(TP.topic(), TP.partition());
            assertThat(objects).hasSizeGreaterThan(2);
            ColdObject oldest = objects.get(0);
            assertThat(log.earliestOffset(TP)).isZero();

            clockAt(oldest.maxTimestamp() + hour);
            assertThat(log.maintain().coldObjectsDeleted())
                    .as("exactly retention.ms old: kept")
                    .isZero();
            assertThat(log.earliestOffset(TP)).isZero();

            time.advance(1);
            assertThat(log.maintain().coldObjectsDeleted())
                    .as("one millisecond older: the oldest object, and only it, deleted")
                    .isEqualTo(1);
            assertThat(log.earliestOffset(TP)).isEqualTo(oldest.lastOffset() + 1);
            assertThat(log.catalog().objects(TP.topic(), TP.partition()))
                    .containsExactlyElementsOf(objects.subList(1, objects.size()));
            assertThat(log.verify(false)).isEmpty();
        }
    }

    /**
     * Runs each periodic task once at the moment it is scheduled, as a timer would whose first run
     * comes before the opener's next step: a housekeeping pass scheduled during open runs before
     * open returns.
     */
    private static final class FirstRunAtOnce extends ScheduledThreadPoolExecutor {
        FirstRunAtOnce() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(
                Runnable command, long initialDelay, long delay, TimeUnit unit) {
            command.run();
            return super.scheduleWithFixedDelay(command, initialDelay, delay, unit);
        }
    }

    @Test
    void housekeepingThatRunsTheMomentOpenSchedulesItDeletesNothingTheColdTierLacks()
            throws Exception {
        Map<String, String> noOffload =
                Map.of("offload.enabled", "false", "local.retention.bytes", "1");
        try (TieredLog log = open(noOffload)) {
            log.createTopic(TP.topic(), 1, Map.of());
            EngineFixture.appendRecords(log, TP, 100, 10, BASE_TS);
            assertThat(log.hotLog(TP).get().segments()).hasSizeGreaterThan(3);
        }
        FirstRunAtOnce timer = new FirstRunAtOnce();
        try (TieredLog log =
                TieredLog.builder(
                                fx.config(
                                        Map.of(
                                                "offload.enabled",
                                                "false",
                                                "local.retention.bytes",
                                                "1",
                                                "engine.background.enabled",
                                                "true")))
                        .time(time)
                        .scheduler(timer)
                        .open()) {
            // The pass ran inside open, with local retention due on every closed segment.
            assertThat(log.offsets(TP).hotLogStartOffset())
                    .as("nothing is in the cold tier, so the first pass deleted nothing")
                    .isZero();
            assertThat(log.hotLog(TP).get().segments()).hasSizeGreaterThan(3);
            assertThat(EngineFixture.batches(EngineFixture.get(log.read(TP, 0, 1 << 20))))
                    .isNotEmpty();
            assertThat(timer.isShutdown()).isFalse();
        } finally {
            assertThat(timer.isShutdown()).as("the caller's scheduler outlives the log").isFalse();
            timer.shutdownNow();
        }
    }
}

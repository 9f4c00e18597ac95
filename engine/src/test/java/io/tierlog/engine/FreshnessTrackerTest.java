package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tierlog.common.MockTime;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The freshness of a table partition, on a manual clock. */
class FreshnessTrackerTest {
    final MockTime time = new MockTime(1_700_000_000_000L);
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final TopicPartition tp = new TopicPartition("t", 0);
    final Map<TopicPartition, Long> registered = new ConcurrentHashMap<>();
    long target = 10_000;

    final FreshnessTracker tracker =
            new FreshnessTracker(
                    time,
                    registry,
                    new FreshnessTracker.Topics() {
                        @Override
                        public boolean enabled(String topic) {
                            return topic.equals("t");
                        }

                        @Override
                        public long targetMs(String topic) {
                            return target;
                        }

                        @Override
                        public OptionalLong registeredNext(TopicPartition p) {
                            Long r = registered.get(p);
                            return r == null ? OptionalLong.empty() : OptionalLong.of(r);
                        }
                    },
                    (p, offset) -> -1);

    double gauge() {
        return registry.get(MetricNames.ICEBERG_FRESHNESS_LAG_MS)
                .tag("topic", "t")
                .tag("partition", "0")
                .gauge()
                .value();
    }

    double breaches() {
        return registry.get(MetricNames.ICEBERG_FRESHNESS_BREACHES)
                .tag("topic", "t")
                .counter()
                .count();
    }

    @Test
    void lagIsTheAgeOfTheOldestUnregisteredAppendAndDropsToZeroOnceRegistered() {
        registered.put(tp, 0L);
        tracker.onAppend(tp, 10); // offsets 0..9 now
        time.advance(1000);
        tracker.onAppend(tp, 20); // 10..19 one second later
        time.advance(2000);
        assertThat(gauge()).isEqualTo(3000);
        tracker.onRegistered("t", 0, 10, time.milliseconds());
        assertThat(gauge()).as("10..19 were appended 2 s ago").isEqualTo(2000);
        tracker.onRegistered("t", 0, 20, time.milliseconds());
        assertThat(gauge()).isZero();
        var timer = registry.get(MetricNames.ICEBERG_FRESHNESS).tag("topic", "t").timer();
        assertThat(timer.count()).isEqualTo(2);
        assertThat(timer.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(3000);
    }

    @Test
    void appendsWithin100MsShareASampleAndCountAsTheOlderTime() {
        registered.put(tp, 0L);
        tracker.onAppend(tp, 1);
        time.advance(50);
        tracker.onAppend(tp, 5);
        time.advance(50);
        tracker.onRegistered("t", 0, 1, time.milliseconds());
        // offsets 1..4 came at +50 ms but share the first sample: overestimated, never under
        assertThat(gauge()).isEqualTo(100);
    }

    @Test
    void aBreachIsCountedOnceOnTheEdgeAndAgainAfterRecovery() {
        registered.put(tp, 0L);
        tracker.onAppend(tp, 1);
        time.advance(target);
        tracker.check();
        assertThat(breaches()).as("at the target is no breach").isZero();
        time.advance(1);
        tracker.check();
        time.advance(5000);
        tracker.check();
        assertThat(breaches()).isEqualTo(1);
        tracker.onRegistered("t", 0, 1, time.milliseconds());
        tracker.check();
        assertThat(tracker.freshness("t").get(0).breached()).isFalse();
        tracker.onAppend(tp, 2);
        time.advance(target + 1);
        tracker.check();
        assertThat(breaches()).isEqualTo(2);
        assertThat(tracker.freshness("t").get(0).breached()).isTrue();
    }

    @Test
    void nothingMovesUnlessTheClockDoes() {
        registered.put(tp, 0L);
        tracker.onAppend(tp, 100);
        for (int i = 0; i < 5; i++) {
            tracker.check();
        }
        assertThat(gauge()).isZero();
        assertThat(breaches()).isZero();
    }

    @Test
    void offsetsFromBeforeARestartTakeTheFallbackTime() {
        long created = time.milliseconds() - 30_000;
        FreshnessTracker restarted =
                new FreshnessTracker(
                        time,
                        registry,
                        new FreshnessTracker.Topics() {
                            @Override
                            public boolean enabled(String topic) {
                                return true;
                            }

                            @Override
                            public long targetMs(String topic) {
                                return 60_000;
                            }

                            @Override
                            public OptionalLong registeredNext(TopicPartition p) {
                                return OptionalLong.of(0);
                            }
                        },
                        (p, offset) -> created);
        TopicPartition r = new TopicPartition("r", 0);
        restarted.onAppend(r, 50); // 0..48 came before this process
        assertThat(restarted.freshness("r").get(0).lagMs()).isEqualTo(30_000);
    }

    @Test
    void aTopicThatIsNoTableIsNotTracked() {
        tracker.onAppend(new TopicPartition("other", 0), 10);
        assertThat(tracker.freshness("other")).isEmpty();
    }

    @Test
    void samplesStayBoundedAndStillCoverTheRange() {
        registered.put(tp, 0L);
        for (int i = 1; i <= 5 * FreshnessTracker.MAX_SAMPLES; i++) {
            tracker.onAppend(tp, i);
            time.advance(FreshnessTracker.SAMPLE_EVERY_MS);
        }
        long first = 1_700_000_000_000L;
        assertThat(gauge()).isEqualTo(time.milliseconds() - first);
        tracker.onRegistered("t", 0, 5L * FreshnessTracker.MAX_SAMPLES, time.milliseconds());
        assertThat(gauge()).isZero();
    }
}

package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tierlog.common.Time;
import io.tierlog.iceberg.RegistrationListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The freshness of each Iceberg table partition: how long ago the oldest record not yet queryable
 * in the table was appended. Fed by appends ({@link AppendListener}: a sparse series of (first
 * offset, append time) samples per partition, at most one per {@value #SAMPLE_EVERY_MS} ms, only
 * while unregistered offsets exist, at most {@value #MAX_SAMPLES} of them, thinned by half when
 * full) and by table commits ({@link RegistrationListener}: drops the samples below the registered
 * offset). Exports the gauge {@link MetricNames#ICEBERG_FRESHNESS_LAG_MS}, the timer {@link
 * MetricNames#ICEBERG_FRESHNESS} and the counter {@link MetricNames#ICEBERG_FRESHNESS_BREACHES} (on
 * the edge past the topic's target), and logs a breach at WARN at most once a minute per partition.
 * Offsets appended before this process started have no sample: their append time is taken from
 * {@code restartFallback} (the hot segment's creation time). Every time is the injected clock's.
 *
 * <p>Thread-safe: appends of different partitions call it concurrently, the registrar thread
 * commits, the metrics scrape reads.
 */
final class FreshnessTracker implements AppendListener, RegistrationListener {
    private static final Logger LOG = LoggerFactory.getLogger(FreshnessTracker.class);

    static final long SAMPLE_EVERY_MS = 100;
    static final int MAX_SAMPLES = 1024;
    static final long WARN_EVERY_MS = 60_000;

    /** Where the engine's settings and state come from. */
    interface Topics {
        /** Whether the topic is an Iceberg table now. */
        boolean enabled(String topic);

        /** The topic's {@code iceberg.freshness.target.ms}. */
        long targetMs(String topic);

        /** What the table records as registered (next offset), if known. */
        OptionalLong registeredNext(TopicPartition tp);
    }

    private final Time time;
    private final MeterRegistry registry;
    private final Topics topics;
    private final RestartFallback restartFallback;
    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();

    /**
     * Whether each topic is a table, as last asked (at most once a second: an append must not build
     * the topic's effective config each time).
     */
    private final Map<String, long[]> tableTopics = new ConcurrentHashMap<>();

    private static final long ENABLED_RECHECK_MS = 1000;

    /** The append time of an offset this process has no sample of (appended before it started). */
    @FunctionalInterface
    interface RestartFallback {
        /** Epoch ms, or -1 when unknown (then: the tracker's start). */
        long appendedAtMs(TopicPartition tp, long offset);
    }

    private final long startedMs;

    FreshnessTracker(
            Time time, MeterRegistry registry, Topics topics, RestartFallback restartFallback) {
        this.time = time;
        this.registry = registry;
        this.topics = topics;
        this.restartFallback = restartFallback;
        this.startedMs = time.milliseconds();
    }

    /** One partition's samples; guarded by itself. */
    private final class Partition {
        final TopicPartition tp;
        final long[] starts = new long[MAX_SAMPLES];
        final long[] times = new long[MAX_SAMPLES];
        int head; // index of the oldest sample (samples are [head, head + size) modulo capacity)
        int size;
        long highWatermark = -1;
        long registered = -1; // -1: not known yet
        long lastSampleMs = Long.MIN_VALUE;
        boolean breached;
        long lastWarnMs = Long.MIN_VALUE;
        final Counter breaches;
        final Timer freshness;

        Partition(TopicPartition tp) {
            this.tp = tp;
            this.breaches =
                    Counter.builder(MetricNames.ICEBERG_FRESHNESS_BREACHES)
                            .tag("topic", tp.topic())
                            .register(registry);
            this.freshness =
                    Timer.builder(MetricNames.ICEBERG_FRESHNESS)
                            .tag("topic", tp.topic())
                            .publishPercentiles(0.5, 0.99)
                            .register(registry);
            Gauge.builder(MetricNames.ICEBERG_FRESHNESS_LAG_MS, this, p -> p.lagMs())
                    .tag("topic", tp.topic())
                    .tag("partition", Integer.toString(tp.partition()))
                    .register(registry);
        }

        synchronized void appended(long hw, long now) {
            long before = highWatermark;
            highWatermark = Math.max(highWatermark, hw);
            if (registered < 0) {
                topics.registeredNext(tp).ifPresent(r -> registered = r);
            }
            if (registered >= 0 && hw <= registered) {
                return;
            }
            // the first append seen: only its last record is surely from now (the fallback
            // covers what came before this process)
            long first = before < 0 ? hw - 1 : before;
            if (now - lastSampleMs < SAMPLE_EVERY_MS && size > 0) {
                return; // attributed to the previous sample (an older time: lag overestimated)
            }
            if (size == MAX_SAMPLES) {
                thin();
            }
            int i = (head + size) % MAX_SAMPLES;
            starts[i] = first;
            times[i] = now;
            size++;
            lastSampleMs = now;
        }

        /** Keeps every other sample (the oldest always): coarser, still covering the range. */
        private void thin() {
            int kept = 0;
            for (int k = 0; k < size; k += 2) {
                int from = (head + k) % MAX_SAMPLES;
                int to = (head + kept) % MAX_SAMPLES;
                starts[to] = starts[from];
                times[to] = times[from];
                kept++;
            }
            size = kept;
        }

        /** Offsets below {@code next} are queryable since {@code committedAtMs}. */
        synchronized void registered(long next, long committedAtMs) {
            long before = registered;
            if (next <= before) {
                return;
            }
            long oldest = before < 0 ? -1 : appendedAt(before);
            registered = next;
            if (oldest >= 0 && committedAtMs >= oldest) {
                freshness.record(committedAtMs - oldest, TimeUnit.MILLISECONDS);
            }
            // keep the last sample starting at or below next: it covers the offsets from next on
            while (size > 1 && starts[(head + 1) % MAX_SAMPLES] <= next) {
                head = (head + 1) % MAX_SAMPLES;
                size--;
            }
            if (size == 1 && highWatermark >= 0 && next >= highWatermark) {
                size = 0; // everything registered: no samples while nothing waits
                head = 0;
            }
        }

        /** The append time of {@code offset}: its sample's, else the fallback's. */
        private long appendedAt(long offset) {
            long t = -1;
            for (int k = 0; k < size; k++) {
                int i = (head + k) % MAX_SAMPLES;
                if (starts[i] <= offset) {
                    t = times[i];
                } else {
                    break;
                }
            }
            if (t >= 0) {
                return t;
            }
            long f = restartFallback.appendedAtMs(tp, offset);
            return f < 0 ? startedMs : Math.min(f, time.milliseconds());
        }

        synchronized long lagMs() {
            if (registered < 0) {
                topics.registeredNext(tp).ifPresent(r -> registered = r);
                if (registered < 0) {
                    return 0; // the table not read yet: unknown, not reported as lag
                }
            }
            if (highWatermark < 0 || registered >= highWatermark) {
                return 0;
            }
            return Math.max(0, time.milliseconds() - appendedAt(registered));
        }

        synchronized PartitionFreshness snapshot(long targetMs) {
            return new PartitionFreshness(
                    tp, lagMs(), targetMs, (long) breaches.count(), breached, registered);
        }

        /** Counts a breach on its edge, logs it at most once a minute. */
        synchronized void check(long targetMs, long now) {
            long lag = lagMs();
            if (lag > targetMs) {
                if (!breached) {
                    breached = true;
                    breaches.increment();
                }
                if (now - lastWarnMs >= WARN_EVERY_MS) {
                    lastWarnMs = now;
                    LOG.warn(
                            "{}: records appended {} ms ago are not yet in the Iceberg table"
                                    + " (freshness target {} ms; registered below offset {}, high"
                                    + " watermark {}): offload or registration is behind (an open"
                                    + " transaction, a failing offload or table, or drift)",
                            tp,
                            lag,
                            targetMs,
                            registered,
                            highWatermark);
                }
            } else {
                breached = false;
            }
        }
    }

    /**
     * One partition's freshness.
     *
     * @param lagMs ms since the oldest unregistered record's append (0 when all are registered)
     * @param targetMs the topic's target
     * @param breaches breaches counted so far (this process)
     * @param breached whether the lag is past the target now
     * @param registeredNext the table's next offset as last told, or -1
     */
    record PartitionFreshness(
            TopicPartition tp,
            long lagMs,
            long targetMs,
            long breaches,
            boolean breached,
            long registeredNext) {}

    @Override
    public void onAppend(TopicPartition tp, long highWatermark) {
        try {
            long now = time.milliseconds();
            if (!isTable(tp.topic(), now)) {
                return;
            }
            Partition p = partition(tp);
            p.appended(highWatermark, now);
        } catch (RuntimeException e) {
            LOG.debug("freshness sample of {} failed", tp, e); // never fail an append
        }
    }

    @Override
    public void onRegistered(String topic, int partition, long nextOffset, long committedAtMs) {
        TopicPartition tp = new TopicPartition(topic, partition);
        Partition p = partition(tp);
        p.registered(nextOffset, committedAtMs);
        p.check(topics.targetMs(topic), time.milliseconds());
    }

    /** Checks every tracked partition for a breach (housekeeping calls it every second or so). */
    void check() {
        long now = time.milliseconds();
        for (Partition p : partitions.values()) {
            String topic = p.tp.topic();
            if (topics.enabled(topic)) {
                p.check(topics.targetMs(topic), now);
            }
        }
    }

    /** The freshness of each tracked partition of {@code topic}, by partition. */
    List<PartitionFreshness> freshness(String topic) {
        List<PartitionFreshness> out = new ArrayList<>();
        long target = topics.targetMs(topic);
        for (Partition p : partitions.values()) {
            if (p.tp.topic().equals(topic)) {
                out.add(p.snapshot(target));
            }
        }
        out.sort(java.util.Comparator.comparingInt(f -> f.tp().partition()));
        return out;
    }

    /** Forgets a deleted topic's partitions and meters. */
    void forget(String topic) {
        partitions
                .entrySet()
                .removeIf(
                        e -> {
                            if (!e.getKey().topic().equals(topic)) {
                                return false;
                            }
                            registry.find(MetricNames.ICEBERG_FRESHNESS_LAG_MS)
                                    .tag("topic", topic)
                                    .meters()
                                    .forEach(registry::remove);
                            return true;
                        });
    }

    /** {@code topics.enabled(topic)}, asked again once {@link #ENABLED_RECHECK_MS} passed. */
    private boolean isTable(String topic, long now) {
        long[] e = tableTopics.get(topic);
        if (e == null || now - e[1] >= ENABLED_RECHECK_MS || now < e[1]) {
            e = new long[] {topics.enabled(topic) ? 1 : 0, now};
            tableTopics.put(topic, e);
        }
        return e[0] == 1;
    }

    private Partition partition(TopicPartition tp) {
        return partitions.computeIfAbsent(tp, Partition::new);
    }
}

package io.tierlog.engine;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import java.io.IOException;

/**
 * What a log is opened with besides its config: the clock, the threads, the metrics registry and an
 * already held lock. Not thread-safe; {@link #open()} may be called once per log to open.
 */
public final class TieredLogBuilder {
    private final Config config;
    private Time time = Time.SYSTEM;
    private java.util.concurrent.ScheduledExecutorService scheduler;
    private MeterRegistry registry;
    private io.tierlog.common.DirLock lock;

    TieredLogBuilder(Config config) {
        this.config = java.util.Objects.requireNonNull(config);
    }

    /**
     * The clock of every decision the log makes: segment rolls and flushes, local and total
     * retention, producer expiry, offload retries and sweep grace, cold-read timeouts. Default: the
     * system clock.
     */
    public TieredLogBuilder time(Time time) {
        this.time = java.util.Objects.requireNonNull(time);
        return this;
    }

    /**
     * Runs housekeeping (rolls, flushes, local retention, delayed deletions), total retention and
     * the catalog's health check, when {@code engine.background.enabled} (with it off, {@link
     * TieredLog#maintain()} does the same work on the caller's thread). Owned by the caller: the
     * log cancels its tasks on close but does not shut it down. Default: two threads of the log's
     * own, shut down on close. Tests pass a scheduler driven by a manual clock.
     */
    public TieredLogBuilder scheduler(java.util.concurrent.ScheduledExecutorService scheduler) {
        this.scheduler = java.util.Objects.requireNonNull(scheduler);
        return this;
    }

    /** Where the engine's metrics ({@link MetricNames}) go. Default: a private registry. */
    public TieredLogBuilder meterRegistry(MeterRegistry registry) {
        this.registry = java.util.Objects.requireNonNull(registry);
        return this;
    }

    /**
     * The lock of the hot log dir ({@code <data.dir>/log}, from {@code LogManager.lock}), taken by
     * the caller before it started anything of its own. The log owns the lock from {@link #open()}
     * on (released on {@link TieredLog#close()}, or when opening fails); {@code open} throws {@link
     * IllegalArgumentException} if it is not on {@code <data.dir>/log}. Default: the log takes it
     * first thing.
     */
    public TieredLogBuilder lock(io.tierlog.common.DirLock lock) {
        this.lock = java.util.Objects.requireNonNull(lock);
        return this;
    }

    /**
     * Opens (creating if needed) the log. See {@link EngineOptions}, {@code HotTierOptions}, {@code
     * ColdTierOptions} and {@code CompactorOptions} for the keys; with an empty config everything
     * lives under {@code ./data}.
     *
     * @throws io.tierlog.common.ConfigException for an invalid setting (nothing is started)
     */
    public TieredLog open() throws IOException {
        return new TieredLog(
                EngineResources.open(
                        config,
                        registry != null ? registry : new SimpleMeterRegistry(),
                        time,
                        scheduler,
                        lock));
    }
}

package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogBinding;
import io.tierlog.catalog.CatalogGuard;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.DirLock;
import io.tierlog.common.EmbeddedObjectStore;
import io.tierlog.common.Tasks;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.CompactorOptions;
import io.tierlog.compactor.LogManagerSource;
import io.tierlog.compactor.ObjectReport;
import io.tierlog.compactor.OffloadListener;
import io.tierlog.compactor.PartitionLag;
import io.tierlog.compactor.RegistryTypedColumns;
import io.tierlog.hot.CleanerConfig;
import io.tierlog.hot.CleaningStats;
import io.tierlog.hot.LogCleaner;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.TombstoneGate;
import io.tierlog.iceberg.IcebergOptions;
import io.tierlog.iceberg.TableSetup;
import io.tierlog.iceberg.TopicTables;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.typed.RegistryValueTyper;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything a {@link TieredLog} runs on, opened in dependency order and closed in reverse: the
 * lock of {@code <data.dir>/log} (first, so that a data dir in use fails before anything starts),
 * metrics endpoint, embedded S3 server (when {@code s3.mode} says so), metered object store,
 * catalog, schema registry (over the catalog), the topics' Iceberg tables (over catalog and store,
 * closed before them), hot tier (with local retention bounded by the cold high watermark), cold
 * index and reader, compactor, total retention, and the threads that drive them.
 *
 * <p>Thread-safe (immutable after {@link #open}; {@link #close()} is idempotent).
 */
final class EngineResources implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineResources.class);

    /** How stale a cached cold high watermark may be when bounding local retention. */
    private static final long BOUND_MAX_AGE_MS = 1000;

    /** How often the catalog's health is checked even when nothing asks (for the log and gauge). */
    private static final long CATALOG_CHECK_INTERVAL_MS = 5000;

    private static final long REGISTRY_COPY_INTERVAL_MS = 60_000;

    /** How often each table partition's freshness is compared with its target. */
    private static final long FRESHNESS_CHECK_INTERVAL_MS = 1000;

    private final Config config;
    private final Config storeConfig;
    private final Path dataDir;
    private final ObjectStore store;
    private final Catalog catalog;
    private final CatalogGuard guard;
    private final LogManager logs;
    private final ColdIndex coldIndex;
    private final ColdReader coldReader;
    private final ExecutorService coldExecutor;
    private final ScheduledExecutorService scheduler;
    private final Optional<Compactor> compactor;
    private final ColdRetention retention;
    private final TopicConfigs topicConfigs;
    private final TopicRegistry topics;
    private final CatalogSchemaRegistry schemaRegistry;
    private final MeterRegistry registry;
    private final TopicTables tables;
    private final Time time;
    private final FreshnessTracker freshness;
    private final Deque<AutoCloseable> closeables;
    private final Optional<MetricsEndpoint> metricsEndpoint;
    private boolean closed;

    private EngineResources(Builder b) {
        this.config = b.config;
        this.storeConfig = b.storeConfig;
        this.dataDir = b.dataDir;
        this.store = b.store;
        this.catalog = b.catalog;
        this.guard = b.guard;
        this.logs = b.logs;
        this.coldIndex = b.coldIndex;
        this.coldReader = b.coldReader;
        this.coldExecutor = b.coldExecutor;
        this.scheduler = b.scheduler;
        this.compactor = Optional.ofNullable(b.compactor);
        this.retention = b.retention;
        this.topicConfigs = b.topicConfigs;
        this.topics = b.topics;
        this.schemaRegistry = b.schemaRegistry;
        this.registry = b.registry;
        this.tables = b.tables;
        this.time = b.time;
        this.freshness = b.freshness;
        this.closeables = b.closeables;
        this.metricsEndpoint = Optional.ofNullable(b.metricsEndpoint);
    }

    /** Mutable state while opening; closed in reverse order if opening fails. */
    private static final class Builder {
        Config config;
        Config storeConfig;
        Path dataDir;
        ObjectStore store;
        Catalog catalog;
        CatalogGuard guard;
        LogManager logs;
        ColdIndex coldIndex;
        ColdReader coldReader;
        ExecutorService coldExecutor;
        ScheduledExecutorService scheduler;
        Compactor compactor;
        ColdRetention retention;
        TopicConfigs topicConfigs;
        TopicRegistry topics;
        CatalogSchemaRegistry schemaRegistry;
        MeterRegistry registry;
        MetricsEndpoint metricsEndpoint;
        TopicTables tables = TopicTables.disabled();
        Time time;
        FreshnessTracker freshness;
        DirLock lock;
        final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    }

    /**
     * Opens everything, or nothing (what was opened is closed again when a step fails).
     *
     * @param time the clock of every decision below (rolls, retention, offload, timeouts)
     * @param scheduler runs housekeeping, total retention and the catalog check; null for the
     *     engine's own (shut down on close); a given one is only stripped of the engine's tasks
     * @param heldLock the log dir's lock taken by the caller, or null to take it here
     */
    static EngineResources open(
            Config config,
            MeterRegistry userRegistry,
            Time time,
            ScheduledExecutorService scheduler,
            DirLock heldLock)
            throws IOException {
        Builder b = new Builder();
        b.config = config;
        b.time = time;
        try {
            // Validate everything before starting anything.
            config.validate(EngineOptions.ALL);
            config.validate(IcebergOptions.all());
            LogConfig.from(config);
            ColdTierOptions coldOptions = ColdTierOptions.from(config);
            CompactorOptions.from(config);
            b.dataDir = Path.of(config.get(EngineOptions.DATA_DIR)).toAbsolutePath().normalize();
            // The data dir's lock before anything starts: a second process on the same data dir
            // fails here, having started no S3 server or metrics endpoint and opened no catalog.
            if (heldLock != null) {
                b.lock = heldLock;
            } else {
                Path logDir = b.dataDir.resolve("log");
                Files.createDirectories(logDir);
                b.lock = LogManager.lock(logDir);
            }
            b.closeables.push(b.lock);
            if (!b.lock.dir().equals(b.dataDir.resolve("log"))) {
                throw new IllegalArgumentException(
                        "the lock held is on "
                                + b.lock.dir()
                                + ", not on the log dir of data.dir "
                                + b.dataDir);
            }
            openAll(b, config, userRegistry, time, scheduler, coldOptions);
        } catch (IOException | RuntimeException | Error e) {
            closeAll(b.closeables, e);
            throw e;
        }
        return new EngineResources(b);
    }

    private static void openAll(
            Builder b,
            Config config,
            MeterRegistry userRegistry,
            Time time,
            ScheduledExecutorService givenScheduler,
            ColdTierOptions coldOptions)
            throws IOException {
        boolean tiered = config.get(EngineOptions.TIERED_ENABLED);

        String listen = config.get(EngineOptions.METRICS_LISTEN);
        b.registry = userRegistry;
        if (!listen.isEmpty()) {
            PrometheusMeterRegistry prom;
            if (userRegistry instanceof PrometheusMeterRegistry p) {
                prom = p;
            } else {
                prom = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                CompositeMeterRegistry composite = new CompositeMeterRegistry();
                composite.add(userRegistry);
                composite.add(prom);
                b.registry = composite;
            }
            MetricsEndpoint endpoint = MetricsEndpoint.start(listen, prom);
            b.closeables.push(endpoint);
            b.metricsEndpoint = endpoint;
            LOG.info(
                    "metrics on http://{}:{}/metrics",
                    listen.substring(0, listen.lastIndexOf(':')),
                    endpoint.port());
        }

        if (!tiered) {
            b.storeConfig = config; // hot tier only: no object store, offload or cold reads
        } else if (embeddedS3(config)) {
            EmbeddedObjectStore s3 = EmbeddedObjectStore.start(b.dataDir.resolve("s3"));
            b.closeables.push(s3);
            b.storeConfig = config.with(s3.clientConfig().asMap());
            LOG.info("embedded S3 server on {} storing under {}", s3.endpoint(), s3.dir());
        } else {
            b.storeConfig = config;
        }
        if (tiered) {
            b.store = new MeteredObjectStore(S3ObjectStore.create(b.storeConfig), b.registry);
            b.closeables.push(b.store);
        }

        b.catalog = CatalogBinding.openBound(b.dataDir, catalogUrl(config, b.dataDir), Map.of());
        b.closeables.push(b.catalog);
        b.guard = new CatalogGuard(b.catalog, b.catalog.id(), time::milliseconds);
        // the registry lives in the catalog, so every server and daemon of it shares one
        b.schemaRegistry = CatalogSchemaRegistry.open(b.catalog);
        b.closeables.push(b.schemaRegistry);
        CatalogGuard guard = b.guard;
        b.registry.gauge(MetricNames.CATALOG_HEALTHY, guard, g -> g.healthy() ? 1 : 0);
        io.micrometer.core.instrument.FunctionCounter.builder(
                        MetricNames.CATALOG_REFUSALS, guard, CatalogGuard::refusals)
                .description(
                        "Actions refused because the catalog was missing, replaced or unreadable"
                                + " (local segment deletion, offload commits, sweeps, retention)")
                .register(b.registry);
        // before anything reads topic configs: the topics of an older release's own registry
        LegacyTopicImport.run(b.dataDir, b.catalog);
        b.topicConfigs = new TopicConfigs(config, b.catalog, DynamicBrokerConfigs.open(b.dataDir));
        if (tiered) {
            // after the catalog and store, closed before them (and after the compactor)
            b.tables =
                    openTables(
                            b.storeConfig,
                            b.catalog,
                            b.store,
                            b.dataDir,
                            b.topicConfigs,
                            time,
                            false);
            b.closeables.push(b.tables);
        }
        TopicTables tables = b.tables;
        TopicConfigs topicConfigs = b.topicConfigs;

        boolean background = config.get(EngineOptions.BACKGROUND_ENABLED);
        if (givenScheduler != null) {
            b.scheduler = givenScheduler; // the caller's: our tasks are cancelled, it lives on
        } else {
            b.scheduler = Executors.newScheduledThreadPool(2, threads("tierlog-housekeeping"));
            b.closeables.push(
                    () -> {
                        b.scheduler.shutdownNow();
                        b.scheduler.awaitTermination(30, TimeUnit.SECONDS);
                    });
        }
        Path logDir = b.dataDir.resolve("log");
        b.coldIndex = new ColdIndex(b.catalog);
        ColdIndex index = b.coldIndex;
        // The retention bound is part of opening: housekeeping starts with it in place.
        b.logs =
                LogManager.open(
                        b.lock,
                        b.topicConfigs::logConfig,
                        time,
                        background ? b.scheduler : null,
                        config.get(io.tierlog.hot.HotTierOptions.LOG_OPEN_FILES_MAX),
                        tiered ? tp -> offsetFloor(guard, index, tp) : tp -> 0L,
                        // else the hot tier is the whole log: retention is not bounded by a cold
                        // copy
                        tiered ? log -> retentionBound(guard, index, log) : log -> Long.MAX_VALUE);
        b.closeables.push(b.logs);
        b.registry.gauge(
                MetricNames.HOT_OFFLINE_PARTITIONS,
                b.logs,
                m -> m.partitions().stream().filter(PartitionLog::isOffline).count());
        b.topics =
                TopicRegistry.open(
                        b.catalog,
                        b.logs,
                        b.topicConfigs,
                        b.coldIndex,
                        b.dataDir,
                        (topic, id) -> dropTable(tables, topicConfigs, topic, id));
        LogManager logs = b.logs;
        b.freshness =
                new FreshnessTracker(
                        time,
                        b.registry,
                        new FreshnessTracker.Topics() {
                            @Override
                            public boolean enabled(String topic) {
                                return tables.enabled(topic);
                            }

                            @Override
                            public long targetMs(String topic) {
                                return topicConfigs
                                        .config(topic)
                                        .get(IcebergOptions.FRESHNESS_TARGET_MS)
                                        .toMillis();
                            }

                            @Override
                            public java.util.OptionalLong registeredNext(TopicPartition tp) {
                                return EngineResources.registeredNext(tables, tp);
                            }
                        },
                        (tp, offset) -> segmentCreatedMs(logs, tp, offset, time));
        if (tiered) {
            b.topics.addAppendListener(b.freshness);
            b.tables.addListener(b.freshness);
        }
        startCleaner(b, config, tiered, background, time);
        for (PartitionLog l : b.logs.partitions()) {
            // the cold offsets that offset queries answer from memory
            b.coldIndex.refreshQuietly(l.topicPartition());
            // The catalog is where DeleteRecords made the log start durable: the hot tier forgets
            // it on close, and a crash may have come before it deleted its segments.
            long start = b.coldIndex.bounds(l.topicPartition()).logStartOffset();
            if (start > 0) {
                l.advanceLogStartOffset(start);
            }
        }

        b.coldExecutor =
                Executors.newFixedThreadPool(
                        config.get(EngineOptions.COLD_READ_THREADS), threads("tierlog-cold-read"));
        b.closeables.push(
                () -> {
                    b.coldExecutor.shutdownNow();
                    b.coldExecutor.awaitTermination(30, TimeUnit.SECONDS);
                });
        // Its own thread: housekeeping's may be busy with an offload pass for minutes, and a
        // deadline that fires late is no deadline.
        var coldDeadlines =
                new java.util.concurrent.ScheduledThreadPoolExecutor(
                        1, threads("tierlog-cold-read-deadline"));
        coldDeadlines.setRemoveOnCancelPolicy(true); // most reads finish long before it fires
        b.closeables.push(coldDeadlines::shutdownNow);
        if (tiered) {
            b.coldReader =
                    new ColdReader(
                            b.store,
                            b.coldIndex,
                            b.coldExecutor,
                            config.get(EngineOptions.COLD_READ_CHUNK_BYTES).toIntExact(),
                            config.get(EngineOptions.COLD_READ_AHEAD),
                            config.get(EngineOptions.COLD_READ_AHEAD_CHUNKS),
                            coldOptions.cacheBytes(),
                            config.get(EngineOptions.COLD_METADATA_CACHE_OBJECTS),
                            b.registry,
                            coldDeadlines,
                            config.get(EngineOptions.COLD_READ_TIMEOUT_MS),
                            time,
                            RegistryValueTyper.rebuilder(b.schemaRegistry));
            b.retention =
                    new ColdRetention(
                            b.catalog,
                            b.store,
                            b.logs,
                            b.coldIndex,
                            b.coldReader,
                            b.topicConfigs,
                            time,
                            b.registry);
            b.retention.setTables(b.tables);
            TopicRegistry topics = b.topics;
            ColdRetention deleter = b.retention;
            topics.onDeletedObjects(deleter::deleteObjectsOfDroppedTopic);
        }

        if (tiered && config.get(EngineOptions.OFFLOAD_ENABLED)) {
            Config cc = b.storeConfig;
            if (!cc.contains(CompactorOptions.OFFLOAD_TMP_DIR)) {
                cc =
                        cc.with(
                                CompactorOptions.OFFLOAD_TMP_DIR.key(),
                                b.dataDir.resolve("offload-tmp").toString());
            }
            b.compactor =
                    Compactor.create(
                            new LogManagerSource(b.logs),
                            Optional.of(logDir),
                            b.catalog,
                            b.store,
                            cc,
                            time);
            b.closeables.push(b.compactor);
            b.compactor.setGuard(guard);
            b.compactor.setPins(tables::pinned);
            b.compactor.setTypedColumns(
                    new RegistryTypedColumns(
                            b.schemaRegistry, b.catalog, CompactorOptions.from(cc)));
            b.compactor.addListener(new TypedColumnMetrics(b.registry));
            Counter coldIn = b.registry.counter(MetricNames.BYTES_IN, "tier", "cold");
            b.compactor.addListener(
                    new OffloadListener() {
                        @Override
                        public void onObjectCommitted(ObjectReport report) {
                            index.refreshQuietly(report.tp()); // offsets, from memory
                            coldIn.increment(report.objectBytes());
                            // the table registers it soon (never blocks the offload)
                            tables.onCommitted(report.tp().topic(), report.tp().partition());
                        }
                    });
            Compactor c = b.compactor;
            b.registry.gauge(MetricNames.OFFLOAD_LAG_BYTES, c, Compactor::backlogBytes);
            b.registry.gauge(
                    MetricNames.OFFLOAD_LAG_OFFSETS,
                    c,
                    x -> x.lag().values().stream().mapToLong(PartitionLag::pendingOffsets).sum());
            if (background) {
                b.compactor.start();
            }
        }
        if (background) {
            long every = config.get(EngineOptions.RETENTION_CHECK_INTERVAL_MS).toMillis();
            ColdRetention r = b.retention;
            scheduleGuarded(
                    b,
                    () -> {
                        if (r != null && guard.allows("total retention pass")) {
                            r.apply();
                        }
                    },
                    every,
                    "total retention pass");
            if (tiered) {
                FreshnessTracker f = b.freshness;
                scheduleGuarded(b, f::check, FRESHNESS_CHECK_INTERVAL_MS, "freshness check");
            }
            scheduleGuarded(
                    b,
                    () -> guard.allows("nothing (periodic check)"),
                    CATALOG_CHECK_INTERVAL_MS,
                    "catalog health check");
        }
        if (tiered) {
            // the registry's copy in the bucket, so a catalog rebuilt from the bucket has it too:
            // on each change here, at startup and periodically (changes cut short by a crash and
            // those of other processes on the catalog)
            RegistryExporter exporter =
                    new RegistryExporter(b.catalog.schemas(), b.store, coldOptions.prefix())
                            .listen();
            // at startup even without background work: it repairs what a crash cut short
            b.scheduler.execute(exporter::passQuietly);
            if (background) {
                scheduleGuarded(
                        b,
                        () -> {
                            if (guard.allows("schema registry copy")) {
                                exporter.passQuietly();
                            }
                        },
                        REGISTRY_COPY_INTERVAL_MS,
                        "schema registry copy");
            }
        }
    }

    /**
     * Starts the hot tier's log cleaner (its threads only with background work on) and registers
     * its metrics. With a cold tier, tombstones may go only while the catalog holds no cold object
     * of the partition (a consumer reading from offset 0 reads cold first): asked by the cleaner
     * under the partition's exclusion, which the offload takes too; an untrusted catalog keeps
     * them.
     */
    private static void startCleaner(
            Builder b, Config config, boolean tiered, boolean background, Time time)
            throws IOException {
        CleanerConfig cc = CleanerConfig.from(config);
        if (!background) {
            cc =
                    new CleanerConfig(
                            false,
                            cc.threads(),
                            cc.maxIoBytesPerSecond(),
                            cc.dedupeBufferBytes(),
                            cc.backoff());
        }
        Catalog catalog = b.catalog;
        CatalogGuard guard = b.guard;
        TombstoneGate gate =
                tiered
                        ? tp ->
                                guard.allows("tombstone removal in " + tp)
                                        && catalog.partitionState(tp.topic(), tp.partition())
                                                        .objectCount()
                                                == 0
                        : TombstoneGate.ALWAYS;
        LogCleaner cleaner = b.logs.startCleaner(cc, gate);
        MeterRegistry r = b.registry;
        io.micrometer.core.instrument.FunctionCounter.builder(
                        MetricNames.CLEANER_BYTES_READ, cleaner, c -> c.totals().bytesRead())
                .baseUnit("bytes")
                .register(r);
        io.micrometer.core.instrument.FunctionCounter.builder(
                        MetricNames.CLEANER_BYTES_WRITTEN, cleaner, c -> c.totals().bytesWritten())
                .baseUnit("bytes")
                .register(r);
        io.micrometer.core.instrument.FunctionCounter.builder(
                        MetricNames.CLEANER_PASSES, cleaner, c -> c.totals().passes())
                .register(r);
        r.gauge(
                MetricNames.CLEANER_MAX_DIRTY_RATIO,
                cleaner,
                c -> c.stats().stream().mapToDouble(CleaningStats::dirtyRatio).max().orElse(0));
        r.gauge(
                MetricNames.CLEANER_CLEANABLE_BYTES,
                cleaner,
                c -> c.stats().stream().mapToLong(CleaningStats::cleanableBytes).sum());
        r.gauge(
                MetricNames.CLEANER_MAX_COMPACTION_DELAY_MS,
                cleaner,
                c ->
                        c.stats().stream()
                                .mapToLong(CleaningStats::maxCompactionDelayMs)
                                .max()
                                .orElse(0));
        r.gauge(
                MetricNames.CLEANER_TIME_SINCE_LAST_RUN_MS,
                cleaner,
                c ->
                        c.stats().stream()
                                .mapToLong(
                                        s ->
                                                s.lastCleaningMs() < 0
                                                        ? -1
                                                        : time.milliseconds() - s.lastCleaningMs())
                                .max()
                                .orElse(-1));
    }

    /**
     * Runs {@code task} every {@code everyMs} on the scheduler, kept scheduled whatever it throws
     * (see {@link Tasks}), and cancelled when the resources close.
     */
    private static void scheduleGuarded(Builder b, Runnable task, long everyMs, String what) {
        ScheduledFuture<?> f =
                b.scheduler.scheduleWithFixedDelay(
                        Tasks.guarded(task, e -> LOG.warn("{} failed", what, e)),
                        everyMs,
                        everyMs,
                        TimeUnit.MILLISECONDS);
        b.closeables.push(() -> f.cancel(false));
    }

    /**
     * Opens the topics' Iceberg tables over tierlog's catalog and the cold store (read-only for
     * {@code inspect} and {@code verify}). Every topic's settings are its effective config, asked
     * on each round. Until the iceberg module is implemented (its contract only), a WARN and no
     * tables.
     */
    static TopicTables openTables(
            Config storeConfig,
            Catalog catalog,
            ObjectStore store,
            Path dataDir,
            TopicConfigs topicConfigs,
            Time time,
            boolean readOnly) {
        TableSetup setup =
                new TableSetup(
                        storeConfig,
                        catalog,
                        store,
                        storeConfig.get(ColdTierOptions.S3_BUCKET),
                        dataDir,
                        topicConfigs::config,
                        time);
        try {
            return readOnly ? TopicTables.openReadOnly(setup) : TopicTables.open(setup);
        } catch (UnsupportedOperationException e) {
            LOG.warn("Iceberg tables are not available in this build: {}", e.getMessage());
            return TopicTables.disabled();
        }
    }

    /**
     * A deleted topic's table: dropped, or renamed and kept with its objects when {@code
     * iceberg.drop.table.on.topic.delete=false}. Returns whether the topic's objects may leave the
     * bucket.
     */
    static boolean dropTable(
            TopicTables tables, TopicConfigs configs, String topic, java.util.UUID id) {
        boolean table = tables.enabled(topic);
        tables.dropTable(topic, id); // idempotent; a table turned off is dropped too
        return !table || configs.config(topic).get(IcebergOptions.DROP_TABLE_ON_TOPIC_DELETE);
    }

    /** The next offset a partition's table holds, as of its last round. */
    static java.util.OptionalLong registeredNext(TopicTables tables, TopicPartition tp) {
        return tables.state(tp.topic())
                .flatMap(
                        s ->
                                s.partitions().stream()
                                        .filter(p -> p.partition() == tp.partition())
                                        .findFirst())
                .map(p -> java.util.OptionalLong.of(Math.max(0, p.nextOffset())))
                .orElse(java.util.OptionalLong.empty());
    }

    /**
     * The creation time of the hot segment holding {@code offset} (after a restart, the append time
     * of records this process has no sample of), never later than the clock's now; -1 if unknown.
     */
    static long segmentCreatedMs(LogManager logs, TopicPartition tp, long offset, Time time) {
        Optional<PartitionLog> log = logs.partition(tp);
        if (log.isEmpty()) {
            return -1;
        }
        io.tierlog.hot.SegmentInfo holding = null;
        for (io.tierlog.hot.SegmentInfo s : log.get().segments()) {
            if (s.baseOffset() <= offset) {
                holding = s;
            }
        }
        if (holding == null) {
            return -1;
        }
        try {
            long created =
                    Files.readAttributes(
                                    holding.logFile(),
                                    java.nio.file.attribute.BasicFileAttributes.class)
                            .creationTime()
                            .toMillis();
            return Math.min(created, time.milliseconds());
        } catch (IOException e) {
            return -1;
        }
    }

    /** Whether {@code config} asks for the embedded S3 server under {@code <data.dir>/s3}. */
    static boolean embeddedS3(Config config) {
        String mode = config.get(EngineOptions.S3_MODE);
        return mode.equals("embedded")
                || (mode.equals("auto")
                        && !config.contains(ColdTierOptions.S3_ENDPOINT)
                        && !config.contains(ColdTierOptions.S3_BUCKET));
    }

    /** The catalog's JDBC URL: {@code catalog.url}, or the SQLite file in the data dir. */
    static String catalogUrl(Config config, Path dataDir) {
        String url = config.get(EngineOptions.CATALOG_URL);
        return url.isEmpty() ? "jdbc:sqlite:" + dataDir.resolve("catalog.db") : url;
    }

    /**
     * The offset below which the hot tier must never assign again, and below which a corruption
     * found by recovery drops segments instead of truncating: the cold high watermark, on the same
     * terms as local retention (a catalog that cannot be trusted or read gives no floor).
     */
    private static long offsetFloor(CatalogGuard guard, ColdIndex index, TopicPartition tp) {
        long bound;
        try {
            ColdIndex.Snapshot s = index.snapshot(tp, BOUND_MAX_AGE_MS);
            // offsets below the log start were handed out too, even when their records are gone
            bound = s.known() ? Math.max(s.coldHighWatermark(), s.logStartOffset()) : 0;
        } catch (RuntimeException e) {
            LOG.warn("cannot read the cold high watermark of {}: recovery has no offset floor", tp);
            return 0;
        }
        if (bound > 0 && !guard.allows("recovering " + tp + " with offset floor " + bound)) {
            return 0;
        }
        return Math.max(0, bound);
    }

    /**
     * Local retention may delete a hot segment only below the cold high watermark, and only on the
     * word of the data dir's own catalog while it is durable (invariant 8). If the guard refuses or
     * the catalog cannot be read, nothing is deletable.
     */
    private static long retentionBound(CatalogGuard guard, ColdIndex index, PartitionLog log) {
        TopicPartition tp = log.topicPartition();
        long bound;
        try {
            ColdIndex.Snapshot s = index.snapshot(tp, BOUND_MAX_AGE_MS);
            bound = s.known() ? s.coldHighWatermark() : Long.MIN_VALUE;
        } catch (RuntimeException e) {
            LOG.warn("cannot read the cold high watermark of {}: local retention paused", tp);
            return Long.MIN_VALUE;
        }
        // Only a bound above the log start lets anything go; then the catalog must prove itself
        // (checked on every pass that could delete, not cached: one stat and one SELECT).
        if (bound > log.logStartOffset()
                && !guard.allows("deleting hot segments of " + tp + " below offset " + bound)) {
            return Long.MIN_VALUE;
        }
        return bound;
    }

    private static java.util.concurrent.ThreadFactory threads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static void closeAll(Deque<AutoCloseable> closeables, Throwable failure) {
        while (!closeables.isEmpty()) {
            AutoCloseable c = closeables.pop();
            try {
                c.close();
            } catch (Exception e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    LOG.warn("error while closing", e);
                }
            }
        }
    }

    Config config() {
        return config;
    }

    Config storeConfig() {
        return storeConfig;
    }

    Path dataDir() {
        return dataDir;
    }

    ObjectStore store() {
        return store;
    }

    Catalog catalog() {
        return catalog;
    }

    CatalogGuard guard() {
        return guard;
    }

    LogManager logs() {
        return logs;
    }

    ColdIndex coldIndex() {
        return coldIndex;
    }

    ColdReader coldReader() {
        return coldReader;
    }

    ExecutorService coldExecutor() {
        return coldExecutor;
    }

    Optional<Compactor> compactor() {
        return compactor;
    }

    ColdRetention retention() {
        return retention;
    }

    TopicConfigs topicConfigs() {
        return topicConfigs;
    }

    TopicRegistry topics() {
        return topics;
    }

    CatalogSchemaRegistry schemaRegistry() {
        return schemaRegistry;
    }

    /** The rebuilder of values stored once, over this engine's registry. */
    io.tierlog.common.typed.ValueRebuilder rebuilder() {
        return RegistryValueTyper.rebuilder(schemaRegistry);
    }

    /**
     * Whether the cold tier is served ({@code tiered.enabled}); else store, reader, retention and
     * compactor are absent.
     */
    boolean tiered() {
        return store != null;
    }

    Optional<MetricsEndpoint> metricsEndpoint() {
        return metricsEndpoint;
    }

    MeterRegistry registry() {
        return registry;
    }

    /** The topics' Iceberg tables ({@link TopicTables#disabled()} without a cold tier). */
    TopicTables tables() {
        return tables;
    }

    /** The clock of every decision. */
    Time time() {
        return time;
    }

    /** Each table partition's freshness. */
    FreshnessTracker freshness() {
        return freshness;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeAll(closeables, null);
    }
}

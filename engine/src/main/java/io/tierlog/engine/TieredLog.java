package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.Config;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.PassResult;
import io.tierlog.hot.AppendResult;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.TimestampOffset;
import io.tierlog.hot.TopicNames;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log per partition across two tiers: the embeddable tierlog library.
 *
 * <p><b>Tiers.</b> Appends go to the hot tier (Kafka segment files under {@code data.dir/log}).
 * Closed segments are offloaded by the compactor to Parquet objects in an S3-compatible store,
 * committed in the catalog (embedded default: SQLite {@code data.dir/catalog.db}, s3proxy under
 * {@code data.dir/s3}, offload on). A hot segment is deleted by {@code local.retention.ms/bytes}
 * only once the catalog holds every offset in it; {@code retention.ms/bytes} bound the whole log
 * and delete the oldest cold objects (catalog first, then the object; the orphan sweeper deletes
 * what a crash left behind).
 *
 * <p><b>Reads.</b> {@link #read} serves an offset at or above the hot log start from the hot tier
 * (a zero-copy {@link FileSlice}, completed immediately on the caller's thread, never blocking);
 * below it, from the cold tier through the catalog: completed at once from the decoded-batch cache
 * when it holds the offset, else on the engine's own cold-read executor (the caller's thread, for
 * example a Netty event loop, never waits for S3 or JDBC). Where both tiers hold an offset, the hot
 * tier answers. A cold read stops at the end of its object and before the hot log start, so a
 * reader that continues at {@link TierRead#nextOffset()} crosses into the hot tier with no gap and
 * no duplicate. An offset below the log start (cold log start, or hot log start when the cold tier
 * is empty) or above the high watermark fails with Kafka's {@link OffsetOutOfRangeException}; an
 * unknown partition with {@link UnknownTopicOrPartitionException}; a cold read while the object
 * store or catalog is unavailable with the retriable {@link ColdReadException}, and succeeds again
 * once it is back. Hot appends and reads never depend on S3.
 *
 * <p><b>Offsets.</b> {@link #earliestOffset} is the first offset of either tier, {@link
 * #latestOffset} the hot high watermark; {@link #offsetForTimestamp} searches the cold tier's time
 * ranges (catalog) and the object's records, then the hot time index, and returns the first offset
 * whose record timestamp is at or after the target.
 *
 * <p>The caller closes the log. Thread-safe: every method may be called from any thread.
 */
public final class TieredLog implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TieredLog.class);

    private final EngineResources res;
    private final Catalog catalog;
    private final LogManager logs;
    private final ColdIndex coldIndex;
    private final ColdReader coldReader;
    private final Optional<Compactor> compactor;
    private final ColdRetention retention;
    private final TopicConfigs topicConfigs;
    private final MeterRegistry registry;
    private final Counter hotBytesIn;
    private final Counter hotBytesOut;
    private final Counter coldBytesOut;
    private final Counter hotReads;
    private final Counter coldReads;
    private final int chunkBytes;
    private volatile boolean closed;

    /** Cold reads not yet completed: failed on close so no caller waits forever. */
    private final java.util.Set<CompletableFuture<?>> inFlight =
            java.util.concurrent.ConcurrentHashMap.newKeySet();

    TieredLog(EngineResources res) {
        this.res = res;
        this.catalog = res.catalog();
        this.logs = res.logs();
        this.coldIndex = res.coldIndex();
        this.coldReader = res.coldReader();
        this.compactor = res.compactor();
        this.retention = res.retention();
        this.topicConfigs = res.topicConfigs();
        this.registry = res.registry();
        this.chunkBytes = res.config().get(EngineOptions.COLD_READ_CHUNK_BYTES).toIntExact();
        this.hotBytesIn = registry.counter(MetricNames.BYTES_IN, "tier", "hot");
        this.hotBytesOut = registry.counter(MetricNames.BYTES_OUT, "tier", "hot");
        this.coldBytesOut = registry.counter(MetricNames.BYTES_OUT, "tier", "cold");
        this.hotReads = registry.counter(MetricNames.READS, "tier", "hot");
        this.coldReads = registry.counter(MetricNames.READS, "tier", "cold");
    }

    /**
     * Opens (creating if needed) the log described by {@code config} with a private meter registry.
     * See {@link EngineOptions}, {@code HotTierOptions}, {@code ColdTierOptions} and {@code
     * CompactorOptions} for the keys; with an empty config everything lives under {@code ./data}.
     *
     * @throws io.tierlog.common.ConfigException for an invalid setting (nothing is started)
     */
    public static TieredLog open(Config config) throws IOException {
        return builder(config).open();
    }

    /**
     * As {@link #open(Config)}, registering the engine's metrics ({@link MetricNames}) in {@code
     * registry}.
     */
    public static TieredLog open(Config config, MeterRegistry registry) throws IOException {
        return builder(config).meterRegistry(registry).open();
    }

    /**
     * As {@link #open(Config, MeterRegistry)}, with topic overrides: see {@link
     * TieredLogBuilder#topicConfigs}.
     */
    public static TieredLog open(
            Config config,
            MeterRegistry registry,
            java.util.function.Function<String, Map<String, String>> topicOverrides)
            throws IOException {
        return builder(config).meterRegistry(registry).topicConfigs(topicOverrides).open();
    }

    /**
     * As {@link #open(Config, MeterRegistry, java.util.function.Function)}, with the lock of the
     * hot log dir already taken: see {@link TieredLogBuilder#lock}.
     */
    public static TieredLog open(
            Config config,
            MeterRegistry registry,
            java.util.function.Function<String, Map<String, String>> topicOverrides,
            io.tierlog.common.DirLock lock)
            throws IOException {
        return builder(config)
                .meterRegistry(registry)
                .topicConfigs(topicOverrides)
                .lock(java.util.Objects.requireNonNull(lock))
                .open();
    }

    /**
     * A builder of a log opened with {@code config}: the clock, the threads and the rest of what it
     * runs on, each with a default (see {@link TieredLogBuilder}).
     */
    public static TieredLogBuilder builder(Config config) {
        return new TieredLogBuilder(config);
    }

    // ---------------------------------------------------------------- topics

    /**
     * Creates a topic in both tiers, with topic-level overrides of any hot-tier or retention key.
     * Idempotent when the topic exists with the same partition count and configs.
     *
     * @throws org.apache.kafka.common.errors.InvalidTopicException for a bad name
     * @throws io.tierlog.common.ConfigException for an invalid config value
     * @throws io.tierlog.catalog.TopicConflictException if it exists with other settings
     */
    public void createTopic(String name, int partitions, Map<String, String> configs)
            throws IOException {
        TopicNames.validate(name);
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        topicConfigs.validate(configs);
        catalog.createTopic(name, partitions, configs);
        topicConfigs.put(name, configs);
        for (int p = 0; p < partitions; p++) {
            logs.getOrCreate(new TopicPartition(name, p));
        }
        coldIndex.invalidateTopic(name);
    }

    /** Names of all topics, sorted. */
    public List<String> topics() {
        return catalog.topics().stream().map(TopicRecord::name).toList();
    }

    /** The topic's partition count and configs, if it exists. */
    public Optional<TopicRecord> topic(String name) {
        return catalog.topic(name);
    }

    /**
     * Deletes a topic from both tiers: the hot partitions (folders removed), the catalog rows, then
     * the cold objects (any the store refuses now are orphans the sweeper removes later). No-op for
     * an unknown topic.
     */
    public void deleteTopic(String name) throws IOException {
        Optional<TopicRecord> t = catalog.topic(name);
        int partitions = t.map(TopicRecord::partitions).orElse(0);
        for (PartitionLog l : logs.partitions()) {
            if (l.topicPartition().topic().equals(name)) {
                partitions = Math.max(partitions, l.topicPartition().partition() + 1);
            }
        }
        List<ColdObject> objects = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            logs.delete(new TopicPartition(name, p));
            objects.addAll(catalog.objects(name, p));
        }
        catalog.deleteTopic(name);
        topicConfigs.remove(name);
        coldIndex.invalidateTopic(name);
        retention.deleteObjects(objects);
    }

    // ---------------------------------------------------------------- append

    /**
     * Appends record batches (magic v2, as a producer sends them) to the hot tier: validated,
     * offsets assigned; see {@code PartitionLog.append}.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     * @throws io.tierlog.hot.InvalidBatchException for bad batches (nothing written)
     */
    public AppendResult append(TopicPartition tp, ByteBuffer batches) throws IOException {
        int size = batches.remaining();
        AppendResult r = hot(tp).append(batches);
        if (!r.duplicate()) {
            hotBytesIn.increment(size);
        }
        return r;
    }

    /** As {@link #append(TopicPartition, ByteBuffer)}, with the records' buffer (not consumed). */
    public AppendResult append(TopicPartition tp, MemoryRecords records) throws IOException {
        return append(tp, records.buffer().duplicate());
    }

    // ---------------------------------------------------------------- read

    /**
     * Reads whole batches from the one holding {@code offset}: at most {@code maxBytes} unless the
     * first batch alone is larger (then exactly it), never past the high watermark; empty at the
     * high watermark. Hot reads and cold reads served from the cache complete before this returns;
     * other cold reads complete on the cold-read executor. Failures (see the class comment)
     * complete the future exceptionally, except an unknown partition, which throws.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     */
    public CompletableFuture<TierRead> read(TopicPartition tp, long offset, int maxBytes) {
        PartitionLog log = hot(tp);
        long hotStart = log.logStartOffset();
        long hw = log.highWatermark();
        if (offset >= hotStart) {
            long damagedEnd = log.damagedRangeEnd(offset);
            if (damagedEnd >= 0 && offset < hw) {
                return readDamaged(tp, log, offset, maxBytes, damagedEnd);
            }
            try {
                // a read stops before a damaged range, so that the next one can go to the cold tier
                FileSlice slice =
                        log.read(offset, Math.max(0, maxBytes), log.nextDamagedStart(offset));
                hotReads.increment();
                hotBytesOut.increment(slice.sizeInBytes());
                long reportedHw = Math.max(hw, slice.isEmpty() ? offset : slice.nextOffset());
                return CompletableFuture.completedFuture(
                        new TierRead.Hot(slice, offset, reportedHw, earliestCached(tp, log)));
            } catch (io.tierlog.hot.LogOffsetOutOfRangeException e) {
                if (offset >= log.logStartOffset()) {
                    return CompletableFuture.failedFuture(
                            new OffsetOutOfRangeException(e.getMessage()));
                }
                // Local retention moved the hot start past offset meanwhile: the cold tier has it.
                hotStart = log.logStartOffset();
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        if (offset < 0) {
            return CompletableFuture.failedFuture(
                    new OffsetOutOfRangeException(
                            "Offset " + offset + " of " + tp + " is negative"));
        }
        long stopBefore = hotStart;
        CompletableFuture<TierRead.Cold> cold;
        try {
            cold =
                    coldReader.read(
                            tp,
                            offset,
                            Math.max(0, maxBytes),
                            stopBefore,
                            hw,
                            Math.min(offset, hotStart));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ColdReadException("the log is closing", e));
        }
        return track(cold.handle((r, e) -> coldResult(tp, log, r, e)));
    }

    /**
     * A read of an offset whose hot bytes are known corrupt ({@link PartitionLog#markDamaged}): the
     * cold tier's copy, up to the end of the damaged range; the hot bytes only when the cold tier
     * does not hold the offset (then the consumer sees the corruption, as it would without tiers).
     */
    private CompletableFuture<TierRead> readDamaged(
            TopicPartition tp, PartitionLog log, long offset, int maxBytes, long damagedEnd) {
        CompletableFuture<TierRead.Cold> cold;
        try {
            cold =
                    coldReader.read(
                            tp,
                            offset,
                            Math.max(0, maxBytes),
                            damagedEnd,
                            log.highWatermark(),
                            Math.min(offset, log.logStartOffset()));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ColdReadException("the log is closing", e));
        }
        return track(
                cold.handle(
                                (r, e) -> {
                                    if (e != null
                                            && ColdReader.translate(e)
                                                    instanceof OffsetOutOfRangeException) {
                                        return null; // not in the cold tier: the hot bytes are all
                                        // there is
                                    }
                                    return coldResult(tp, log, r, e);
                                })
                        .thenCompose(
                                t -> {
                                    if (t != null) {
                                        return CompletableFuture.completedFuture(t);
                                    }
                                    try {
                                        FileSlice slice = log.read(offset, Math.max(0, maxBytes));
                                        hotReads.increment();
                                        hotBytesOut.increment(slice.sizeInBytes());
                                        return CompletableFuture.completedFuture(
                                                (TierRead)
                                                        new TierRead.Hot(
                                                                slice,
                                                                offset,
                                                                Math.max(
                                                                        log.highWatermark(),
                                                                        slice.nextOffset()),
                                                                earliestCached(tp, log)));
                                    } catch (IOException | RuntimeException ex) {
                                        return CompletableFuture.failedFuture(ex);
                                    }
                                }));
    }

    /** The answer of a cold read, counted; a failure rethrown as the caller should see it. */
    private TierRead coldResult(TopicPartition tp, PartitionLog log, TierRead.Cold r, Throwable e) {
        if (e != null) {
            throw ColdReader.translate(e); // counted and logged by the cold reader
        }
        coldReads.increment();
        coldBytesOut.increment(r.sizeInBytes());
        long start =
                coldIndex
                        .cached(tp)
                        .filter(s -> !s.isEmpty())
                        .map(s -> Math.min(s.coldLogStartOffset(), log.logStartOffset()))
                        .orElse(r.logStartOffset());
        return new TierRead.Cold(
                r.records(), r.objectKey(), r.nextOffset(), log.highWatermark(), start);
    }

    /** Registers a cold-tier future so that {@link #close()} can fail it if still pending. */
    private <T> CompletableFuture<T> track(CompletableFuture<T> f) {
        CompletableFuture<T> out = new CompletableFuture<>();
        inFlight.add(out);
        f.whenComplete(
                (v, e) -> {
                    inFlight.remove(out);
                    if (e != null) {
                        out.completeExceptionally(ColdReader.unwrap(e));
                    } else {
                        out.complete(v);
                    }
                });
        if (closed) {
            out.completeExceptionally(new ColdReadException("the log is closed", null));
        }
        return out;
    }

    // ---------------------------------------------------------------- offsets

    /**
     * The first offset either tier holds: the cold log start when the cold tier holds data and
     * starts lower, else the hot log start. May query the catalog (cached).
     */
    public long earliestOffset(TopicPartition tp) {
        PartitionLog log = hot(tp);
        ColdIndex.Snapshot s = coldIndex.snapshot(tp, 1000);
        return s.isEmpty()
                ? log.logStartOffset()
                : Math.min(s.coldLogStartOffset(), log.logStartOffset());
    }

    private long earliestCached(TopicPartition tp, PartitionLog log) {
        return coldIndex
                .cached(tp)
                .filter(s -> !s.isEmpty())
                .map(s -> Math.min(s.coldLogStartOffset(), log.logStartOffset()))
                .orElse(log.logStartOffset());
    }

    /** The high watermark: the next offset to be written and read (hot tier end). */
    public long latestOffset(TopicPartition tp) {
        return hot(tp).highWatermark();
    }

    /** Both tiers' offsets of a partition (may query the catalog). */
    public LogOffsets offsets(TopicPartition tp) {
        PartitionLog log = hot(tp);
        ColdIndex.Snapshot s = coldIndex.snapshot(tp, 1000);
        long earliest =
                s.isEmpty()
                        ? log.logStartOffset()
                        : Math.min(s.coldLogStartOffset(), log.logStartOffset());
        return new LogOffsets(
                earliest,
                s.coldLogStartOffset(),
                s.coldHighWatermark(),
                log.logStartOffset(),
                log.highWatermark());
    }

    /**
     * As {@link #offsets}, never blocking the caller: completes at once when the cold tier's state
     * is cached and fresh (under a second old), else on the cold-read executor.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     */
    public CompletableFuture<LogOffsets> offsetsAsync(TopicPartition tp) {
        hot(tp);
        Optional<ColdIndex.Snapshot> s = coldIndex.cached(tp);
        if (s.isPresent() && System.nanoTime() - s.get().loadedAtNanos() < 1_000_000_000L) {
            return CompletableFuture.completedFuture(offsets(tp));
        }
        return CompletableFuture.supplyAsync(() -> offsets(tp), res.coldExecutor());
    }

    /**
     * The first record whose timestamp is at or after {@code timestampMs}, searching the cold tier
     * first (catalog time ranges, then the object's records, on the cold-read executor), then the
     * hot time index. Empty when no record is that recent.
     */
    public CompletableFuture<Optional<TimestampOffset>> offsetForTimestamp(
            TopicPartition tp, long timestampMs) {
        PartitionLog log = hot(tp);
        CompletableFuture<Optional<ColdObject>> first;
        try {
            first =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return catalog.firstObjectReaching(
                                            tp.topic(), tp.partition(), timestampMs);
                                } catch (RuntimeException e) {
                                    throw new ColdReadException("catalog unavailable: " + e, e);
                                }
                            },
                            res.coldExecutor());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new ColdReadException("the log is closing", e));
        }
        return track(first)
                .thenCompose(
                        o -> {
                            if (o.isEmpty() || o.get().firstOffset() >= log.logStartOffset()) {
                                return CompletableFuture.completedFuture(
                                        log.offsetForTimestamp(timestampMs));
                            }
                            return scanCold(tp, log, o.get().firstOffset(), timestampMs);
                        });
    }

    private CompletableFuture<Optional<TimestampOffset>> scanCold(
            TopicPartition tp, PartitionLog log, long offset, long timestampMs) {
        long hotStart = log.logStartOffset();
        if (offset >= hotStart) {
            return CompletableFuture.completedFuture(log.offsetForTimestamp(timestampMs));
        }
        return read(tp, offset, chunkBytes)
                .thenCompose(
                        r -> {
                            for (MutableRecordBatch b : r.toMemoryRecordsUnchecked().batches()) {
                                if (b.maxTimestamp() < timestampMs) {
                                    continue;
                                }
                                for (Record rec : b) {
                                    if (rec.timestamp() >= timestampMs) {
                                        return CompletableFuture.completedFuture(
                                                Optional.of(
                                                        new TimestampOffset(
                                                                rec.timestamp(), rec.offset())));
                                    }
                                }
                            }
                            if (r.isEmpty() || r.nextOffset() <= offset) {
                                return CompletableFuture.completedFuture(
                                        log.offsetForTimestamp(timestampMs));
                            }
                            return scanCold(tp, log, r.nextOffset(), timestampMs);
                        });
    }

    /** The largest record timestamp and its batch's last offset (Kafka's ListOffsets -3). */
    public Optional<TimestampOffset> maxTimestamp(TopicPartition tp) {
        PartitionLog log = hot(tp);
        Optional<TimestampOffset> hotMax = log.maxTimestamp();
        ColdIndex.Snapshot s = coldIndex.snapshot(tp, 1000);
        Optional<TimestampOffset> coldMax =
                s.objects().values().stream()
                        .max((a, b) -> Long.compare(a.maxTimestamp(), b.maxTimestamp()))
                        .map(o -> new TimestampOffset(o.maxTimestamp(), o.lastOffset()));
        if (hotMax.isEmpty()) {
            return coldMax;
        }
        if (coldMax.isEmpty() || hotMax.get().timestamp() >= coldMax.get().timestamp()) {
            return hotMax;
        }
        return coldMax;
    }

    // ---------------------------------------------------------------- maintenance

    /**
     * Runs the background work once, now, in this thread: hot housekeeping (rolls, flushes), one
     * offload pass (if offload is enabled), total retention on the cold tier, then local retention
     * again (segments just offloaded may go). For tests, CLIs and {@code
     * engine.background.enabled=false}.
     */
    public MaintenanceResult maintain() throws IOException, InterruptedException {
        logs.runHousekeeping();
        PassResult pass = null;
        if (compactor.isPresent()) {
            pass = compactor.get().runOnce();
            for (PartitionLog l : logs.partitions()) {
                coldIndex.invalidate(l.topicPartition());
            }
        }
        int deleted = res.guard().allows("total retention pass") ? retention.apply() : 0;
        logs.runHousekeeping();
        return new MaintenanceResult(Optional.ofNullable(pass), deleted);
    }

    /** Sweeps orphaned objects now (normally done by the offload loop every sweep interval). */
    public int sweepOrphans() throws IOException {
        return compactor.isPresent() ? compactor.get().sweepOrphans().deleted() : 0;
    }

    /** Per-partition state of both tiers, for {@code tierlog inspect}. */
    public List<PartitionReport> inspect(Optional<String> topic) {
        try (ReadOnlyLogDir hot = ReadOnlyLogDir.open(logs.logDir())) {
            return new Inspector(catalog, coldIndex, hot).inspect(topic);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks the invariants of both tiers (see {@link Verifier}); an empty list means all hold.
     *
     * @param deep also read every cold object in full and compare it with the hot tier where both
     *     hold offsets (otherwise only the footer and first batch of each object are read)
     */
    public List<Violation> verify(boolean deep) {
        try (ReadOnlyLogDir hot = ReadOnlyLogDir.open(logs.logDir())) {
            // what a deep check finds corrupt in the hot tier is read from the cold tier from now
            return new Verifier(catalog, res.store(), hot)
                    .onHotDamage(
                            (tp, d) ->
                                    logs.partition(tp)
                                            .ifPresent(
                                                    l ->
                                                            l.markDamaged(
                                                                    d.from(),
                                                                    d.to(),
                                                                    d.description())))
                    .verify(deep);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- accessors

    /** The hot tier (for the server: listeners, producer state). */
    public LogManager logManager() {
        return logs;
    }

    /** The catalog this log commits to. */
    public Catalog catalog() {
        return catalog;
    }

    /** The registry holding the engine's metrics. */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    /** The port of the Prometheus endpoint, if {@code metrics.listen} is set. */
    public Optional<Integer> metricsPort() {
        return res.metricsEndpoint().map(MetricsEndpoint::port);
    }

    /** The hot log of a partition, if it exists. */
    public Optional<PartitionLog> hotLog(TopicPartition tp) {
        return logs.partition(tp);
    }

    /** The endpoint of the object store (the embedded server's when embedded). */
    public Config objectStoreConfig() {
        return res.storeConfig();
    }

    /** Stops background work, then closes the hot tier (clean shutdown), catalog and store. */
    @Override
    public void close() throws IOException {
        closed = true;
        try {
            res.close();
        } finally {
            for (CompletableFuture<?> f : inFlight) {
                f.completeExceptionally(new ColdReadException("the log was closed", null));
            }
            inFlight.clear();
        }
    }

    private PartitionLog hot(TopicPartition tp) {
        if (closed) {
            throw new org.apache.kafka.common.errors.KafkaStorageException("the log is closed");
        }
        return logs.partition(tp)
                .orElseThrow(() -> new UnknownTopicOrPartitionException("Unknown partition " + tp));
    }
}

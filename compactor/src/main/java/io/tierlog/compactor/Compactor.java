package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigException;
import io.tierlog.common.Time;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offload loop: finds closed segments of a {@link SegmentSource} whose offsets the {@link
 * Catalog} does not hold yet, turns them into Parquet objects in the {@link ObjectStore} (see
 * {@link PartitionOffloader} for the crash-safe order of steps), and sweeps orphaned objects.
 *
 * <p>{@link #runOnce()} runs one pass over all partitions ({@code offload.threads} partitions in
 * parallel, each partition by one thread); {@link #start()} runs passes in a background thread
 * every {@code offload.interval.ms}, earlier when a segment rolls, and sweeps orphans every {@code
 * offload.sweep.interval.ms}. Object-store and catalog failures are retried with backoff; a
 * partition that still fails keeps its error in {@link #lag()} and is retried on the next pass. The
 * source is only read.
 *
 * <p>The caller owns (and closes) the source, catalog and store. Thread-safe.
 */
public final class Compactor implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

    private static final java.util.Comparator<TopicPartition> BY_TOPIC_THEN_PARTITION =
            java.util.Comparator.comparing(TopicPartition::topic)
                    .thenComparingInt(TopicPartition::partition);

    private final SegmentSource source;
    private final Catalog catalog;
    private final CompactorOptions options;
    private final ColdTierOptions coldOptions;
    private final Time time;
    private final PartitionOffloader.Env env;
    private final OrphanSweeper sweeper;
    private final ExecutorService workers;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Semaphore wakeUps = new Semaphore(0);
    private final List<OffloadListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<TopicPartition, PartitionLag> lag = new ConcurrentHashMap<>();
    private final Map<String, Integer> knownTopics = new ConcurrentHashMap<>();

    /** When a tombstone kept by the last cold compaction of a partition may go. */
    private final Map<TopicPartition, Long> tombstoneHorizons = new ConcurrentHashMap<>();

    private final Object passLock = new Object();

    /** False once the catalog said it cannot merge objects (a wrapper without mergeObjects). */
    private volatile boolean mergeSupported = true;

    private final java.util.regex.Pattern excluded;
    private volatile Thread loop;
    private volatile io.tierlog.catalog.CatalogGuard guard;
    private volatile TypedColumnsSource typed = TypedColumnsSource.NONE;

    private Compactor(
            SegmentSource source, Catalog catalog, ObjectStore store, Config config, Time time) {
        this.source = source;
        this.catalog = catalog;
        this.options = CompactorOptions.from(config);
        this.coldOptions = ColdTierOptions.from(config);
        this.time = time;
        this.excluded = options.topicsExclude();
        Retrier retrier =
                new Retrier(
                        new Backoff(options.retryBackoff(), options.retryBackoffMax()),
                        options.retryTimeout(),
                        time,
                        stopped);
        Optional<UploadRateLimiter> limiter =
                options.uploadRateBytes().map(r -> new UploadRateLimiter(r, time));
        this.env =
                new PartitionOffloader.Env(
                        source,
                        catalog,
                        store,
                        options,
                        coldOptions,
                        limiter,
                        retrier,
                        time,
                        new Broadcast(),
                        () -> guard,
                        () -> typed);
        this.sweeper =
                new OrphanSweeper(
                        catalog,
                        store,
                        coldOptions.prefix(),
                        options.orphanGrace(),
                        time,
                        Optional.of(source));
        AtomicInteger n = new AtomicInteger();
        this.workers =
                Executors.newFixedThreadPool(
                        options.threads(),
                        r -> {
                            Thread t = new Thread(r, "tierlog-offload-" + n.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        source.onSegmentClosed(this::wakeUp);
    }

    /**
     * A compactor over {@code source}, configured by {@code config} ({@code offload.*}, {@code
     * s3.prefix}, {@code cold.*}).
     *
     * @param sourceDir the directory the source reads, if any: the temp dir must not be inside it
     * @throws ConfigException for invalid settings
     */
    public static Compactor create(
            SegmentSource source,
            Optional<Path> sourceDir,
            Catalog catalog,
            ObjectStore store,
            Config config,
            Time time)
            throws IOException {
        CompactorOptions options = CompactorOptions.from(config);
        Path tmp = options.tmpDir().toAbsolutePath().normalize();
        if (sourceDir.isPresent() && tmp.startsWith(sourceDir.get().toAbsolutePath().normalize())) {
            throw new ConfigException(
                    "offload.tmp.dir "
                            + tmp
                            + " is inside the source log dir "
                            + sourceDir.get()
                            + ": the compactor never writes there");
        }
        TempFiles.deleteStale(tmp);
        return new Compactor(source, catalog, store, config, time);
    }

    /**
     * Makes every pass, commit and orphan sweep ask {@code g} first: while it refuses (the catalog
     * is missing, replaced or unreadable) nothing is uploaded, committed or swept. Set it before
     * {@link #start()}.
     */
    public void setGuard(io.tierlog.catalog.CatalogGuard g) {
        this.guard = g;
    }

    /**
     * Where each object's typed columns come from ({@link TypedColumnsSource#NONE} until set: no
     * typed columns). Set it before {@link #start()}; cold compaction reads values stored once
     * through its rebuilder.
     */
    public void setTypedColumns(TypedColumnsSource source) {
        this.typed = java.util.Objects.requireNonNull(source, "source");
    }

    /**
     * Objects referenced outside the catalog (Iceberg tables): never deleted by the orphan sweeper
     * (nor, once merging exists, by a merge) while pinned. Set it before {@link #start()}.
     */
    public void setPins(ObjectPins pins) {
        sweeper.setPins(pins);
    }

    public void addListener(OffloadListener listener) {
        listeners.add(listener);
    }

    /** Runs one pass over every partition; returns when it is done (or the compactor stopped). */
    public PassResult runOnce() throws InterruptedException {
        synchronized (passLock) {
            return pass();
        }
    }

    private PassResult pass() throws InterruptedException {
        io.tierlog.catalog.CatalogGuard g = guard;
        if (g != null && !g.allows("offload of " + source.describe())) {
            PassResult r = new PassResult(0, 0, 0, 0, 1, backlogBytes());
            listeners.forEach(l -> l.onPassFinished(r));
            return r;
        }
        List<TopicPartition> partitions;
        try {
            partitions = new ArrayList<>(source.partitions());
            partitions.removeIf(tp -> excluded.matcher(tp.topic()).matches());
        } catch (IOException e) {
            LOG.warn("cannot list partitions of {}: {}", source.describe(), e.toString());
            PassResult r = new PassResult(0, 0, 0, 0, 1, backlogBytes());
            listeners.forEach(l -> l.onPassFinished(r));
            return r;
        }
        partitions.sort(BY_TOPIC_THEN_PARTITION);
        Map<TopicPartition, PartitionOffloader.Plan> plans = new LinkedHashMap<>();
        int failed = 0;
        for (TopicPartition tp : partitions) {
            try {
                ensureTopic(tp);
                PartitionOffloader.Plan plan = new PartitionOffloader(env, tp).plan();
                lag.put(tp, plan.lag());
                if (!plan.pending().isEmpty()) {
                    plans.put(tp, plan);
                }
            } catch (Exception e) {
                failed++;
                fail(tp, e);
            }
        }
        long backlog = plans.values().stream().mapToLong(p -> p.lag().pendingBytes()).sum();
        listeners.forEach(l -> l.onPassStarted(backlog));
        Map<TopicPartition, Future<PartitionOffloader.Outcome>> futures = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, PartitionOffloader.Plan> e : plans.entrySet()) {
            TopicPartition tp = e.getKey();
            futures.put(
                    tp,
                    workers.submit(
                            () -> {
                                // planned again under the exclusion: a log cleaner may have
                                // replaced the planned segments since
                                try (SegmentSource.Exclusion x = source.exclusive(tp)) {
                                    PartitionOffloader off = new PartitionOffloader(env, tp);
                                    return off.offload(off.plan());
                                }
                            }));
        }
        long objects = 0;
        long records = 0;
        long sourceBytes = 0;
        long objectBytes = 0;
        for (Map.Entry<TopicPartition, Future<PartitionOffloader.Outcome>> e : futures.entrySet()) {
            TopicPartition tp = e.getKey();
            try {
                PartitionOffloader.Outcome o = e.getValue().get();
                objects += o.objects();
                records += o.records();
                sourceBytes += o.sourceBytes();
                objectBytes += o.objectBytes();
                refreshLag(tp, o.objects() > 0 ? time.milliseconds() : -1);
            } catch (ExecutionException ex) {
                failed++;
                Exception cause =
                        ex.getCause() instanceof Exception c
                                ? c
                                : new RuntimeException(ex.getCause());
                refreshLag(tp, -1);
                fail(tp, cause);
            }
        }
        if (options.coldCleanerEnabled()) {
            failed += compactCold().failedPartitions();
        }
        if (options.mergeEnabled()) {
            failed += mergeSmall().failedPartitions();
        }
        PassResult result =
                new PassResult(objects, records, sourceBytes, objectBytes, failed, backlogBytes());
        listeners.forEach(l -> l.onPassFinished(result));
        return result;
    }

    /** What one cold compaction round over every compacted topic did. */
    public record ColdCompactionResult(
            int partitionsCleaned,
            int runsCommitted,
            int objectsReplaced,
            long tombstonesRemoved,
            int failedPartitions) {}

    /**
     * Compacts the cold objects of every partition of every compacted topic that is due for it (see
     * {@link ColdPartitionCleaner}), partitions in parallel on the offload threads. The offload
     * loop runs it after each pass while {@code cold.cleaner.enable}; a partition that fails (or
     * whose run changed under it) is re-planned on the next pass.
     */
    public ColdCompactionResult runColdCompactionOnce() throws InterruptedException {
        synchronized (passLock) {
            return compactCold();
        }
    }

    private ColdCompactionResult compactCold() throws InterruptedException {
        io.tierlog.catalog.CatalogGuard g = guard;
        if (g != null && !g.allows("cold compaction")) {
            return new ColdCompactionResult(0, 0, 0, 0, 1);
        }
        Map<TopicPartition, Future<ColdPartitionCleaner.Outcome>> futures = new LinkedHashMap<>();
        int failed = 0;
        List<TopicRecord> topics;
        try {
            topics = catalog.topics();
        } catch (RuntimeException e) {
            LOG.warn("cold compaction cannot list topics: {}", e.toString());
            return new ColdCompactionResult(0, 0, 0, 0, 1);
        }
        for (TopicRecord t : topics) {
            CompactionConfig cc = CompactionConfig.of(t, options.config());
            if (!cc.compact() || excluded.matcher(t.name()).matches()) {
                continue;
            }
            for (int p = 0; p < t.partitions(); p++) {
                TopicPartition tp = new TopicPartition(t.name(), p);
                try {
                    ColdPartitionCleaner cleaner =
                            new ColdPartitionCleaner(env, tp, cc, options.coldCleanerDedupeBytes());
                    Optional<ColdPartitionCleaner.Plan> plan =
                            cleaner.plan(tombstoneHorizon(tp, cc));
                    if (plan.isPresent()) {
                        futures.put(tp, workers.submit(() -> cleaner.clean(plan.get())));
                    }
                } catch (RuntimeException e) {
                    failed++;
                    LOG.warn("cold compaction of {} cannot plan: {}", tp, e.toString());
                }
            }
        }
        int cleaned = 0;
        int runs = 0;
        int replaced = 0;
        long tombstones = 0;
        for (Map.Entry<TopicPartition, Future<ColdPartitionCleaner.Outcome>> e :
                futures.entrySet()) {
            try {
                ColdPartitionCleaner.Outcome o = e.getValue().get();
                cleaned++;
                runs += o.runsCommitted();
                replaced += o.objectsReplaced();
                tombstones += o.tombstonesRemoved();
                tombstoneHorizons.put(e.getKey(), o.nextHorizonMs());
            } catch (ExecutionException ex) {
                failed++;
                Throwable cause = ex.getCause();
                if (cause instanceof ColdPartitionCleaner.ReplanException) {
                    LOG.info(
                            "cold compaction of {}: {}; re-planned next pass",
                            e.getKey(),
                            cause.getMessage());
                } else {
                    LOG.warn(
                            "cold compaction of {} failed; retrying next pass: {}",
                            e.getKey(),
                            String.valueOf(cause));
                    LOG.debug("cold compaction failure of {}", e.getKey(), cause);
                }
            }
        }
        return new ColdCompactionResult(cleaned, runs, replaced, tombstones, failed);
    }

    /** What one small-object merge round over every topic did. */
    public record MergeResult(
            int partitionsMerged,
            int runsMerged,
            int objectsReplaced,
            int conflicts,
            int failedPartitions) {}

    /**
     * Merges the small cold objects of every partition of every topic (compacted or not; see {@link
     * SmallObjectMerger}), partitions in parallel on the offload threads. The offload loop runs it
     * after each pass's cold compaction while {@code offload.merge.enabled}; a partition that
     * fails, or whose run changed under it, is planned again on the next pass.
     */
    public MergeResult runMergeOnce() throws InterruptedException {
        synchronized (passLock) {
            return mergeSmall();
        }
    }

    private MergeResult mergeSmall() throws InterruptedException {
        if (!mergeSupported) {
            return new MergeResult(0, 0, 0, 0, 0);
        }
        io.tierlog.catalog.CatalogGuard g = guard;
        if (g != null && !g.allows("small-object merge")) {
            return new MergeResult(0, 0, 0, 0, 1);
        }
        List<TopicRecord> topics;
        try {
            topics = catalog.topics();
        } catch (RuntimeException e) {
            LOG.warn("small-object merge cannot list topics: {}", e.toString());
            return new MergeResult(0, 0, 0, 0, 1);
        }
        Map<TopicPartition, Future<SmallObjectMerger.Outcome>> futures = new LinkedHashMap<>();
        int failed = 0;
        for (TopicRecord t : topics) {
            if (excluded.matcher(t.name()).matches()) {
                continue;
            }
            for (int p = 0; p < t.partitions(); p++) {
                TopicPartition tp = new TopicPartition(t.name(), p);
                try {
                    SmallObjectMerger merger = new SmallObjectMerger(env, tp);
                    List<List<io.tierlog.catalog.ColdObject>> runs = merger.plan();
                    if (!runs.isEmpty()) {
                        futures.put(tp, workers.submit(() -> merger.merge(runs)));
                    }
                } catch (RuntimeException e) {
                    failed++;
                    LOG.warn("small-object merge of {} cannot plan: {}", tp, e.toString());
                }
            }
        }
        int partitions = 0;
        int runs = 0;
        int replaced = 0;
        int conflicts = 0;
        for (Map.Entry<TopicPartition, Future<SmallObjectMerger.Outcome>> e : futures.entrySet()) {
            try {
                SmallObjectMerger.Outcome o = e.getValue().get();
                if (o.runsMerged() > 0) {
                    partitions++;
                }
                runs += o.runsMerged();
                replaced += o.objectsReplaced();
                conflicts += o.conflicts();
            } catch (ExecutionException ex) {
                Throwable cause = ex.getCause();
                if (cause instanceof UnsupportedOperationException) {
                    mergeSupported = false;
                    LOG.warn("small-object merge off: {}", cause.getMessage());
                    continue;
                }
                failed++;
                LOG.warn(
                        "small-object merge of {} failed; retrying next pass: {}",
                        e.getKey(),
                        String.valueOf(cause));
                LOG.debug("small-object merge failure of {}", e.getKey(), cause);
            }
        }
        return new MergeResult(partitions, runs, replaced, conflicts, failed);
    }

    /**
     * When a tombstone of {@code tp} kept by its last cold compaction may go: known from this
     * process's last pass, else (after a restart) assumed one delete.retention.ms after the last
     * cleaning the catalog recorded.
     */
    private long tombstoneHorizon(TopicPartition tp, CompactionConfig cc) {
        Long known = tombstoneHorizons.get(tp);
        if (known != null) {
            return known;
        }
        long last = catalog.partitionState(tp.topic(), tp.partition()).lastColdCleaningMs();
        if (last < 0) {
            return Long.MAX_VALUE;
        }
        long due = last + cc.deleteRetentionMs();
        return due < last ? Long.MAX_VALUE : due;
    }

    private void fail(TopicPartition tp, Exception e) {
        LOG.warn("offload of {} failed; retrying next pass: {}", tp, e.toString());
        LOG.debug("offload failure of {}", tp, e);
        lag.compute(
                tp,
                (k, v) ->
                        (v == null ? new PartitionLag(tp, 0, 0, 0, 0, 0, -1, Optional.empty()) : v)
                                .withError(String.valueOf(e.getMessage())));
        listeners.forEach(l -> l.onPartitionFailed(tp, e));
    }

    private void refreshLag(TopicPartition tp, long commitMs) {
        try {
            PartitionLag fresh = new PartitionOffloader(env, tp).plan().lag();
            long last = commitMs >= 0 ? commitMs : lastCommit(tp);
            lag.put(
                    tp,
                    new PartitionLag(
                            tp,
                            fresh.coldHighWatermark(),
                            fresh.closedEndOffset(),
                            fresh.pendingOffsets(),
                            fresh.pendingBytes(),
                            fresh.activeBytes(),
                            last,
                            Optional.empty(),
                            fresh.heldBack()));
        } catch (Exception e) {
            lag.computeIfPresent(tp, (k, v) -> v.withError(String.valueOf(e.getMessage())));
        }
    }

    private long lastCommit(TopicPartition tp) {
        PartitionLag old = lag.get(tp);
        return old == null ? -1 : old.lastCommitMs();
    }

    /** Registers the partition's topic in the catalog (a foreign log dir has no other way in). */
    private void ensureTopic(TopicPartition tp) {
        Integer known = knownTopics.get(tp.topic());
        if (known != null && known > tp.partition()) {
            return;
        }
        synchronized (knownTopics) {
            TopicRecord r = catalog.ensureTopic(tp.topic(), tp.partition() + 1);
            knownTopics.put(tp.topic(), r.partitions());
        }
    }

    /** Deletes orphaned objects older than {@code offload.orphan.grace.ms}. */
    public OrphanSweeper.SweepResult sweepOrphans() throws IOException {
        io.tierlog.catalog.CatalogGuard g = guard;
        if (g != null && !g.allows("orphan sweep")) {
            return new OrphanSweeper.SweepResult(0, 0, 0, 0);
        }
        return sweeper.sweep();
    }

    /** The lag of every partition seen, by partition. */
    public Map<TopicPartition, PartitionLag> lag() {
        Map<TopicPartition, PartitionLag> out = new TreeMap<>(BY_TOPIC_THEN_PARTITION);
        out.putAll(lag);
        return out;
    }

    /** Closed-segment bytes not yet in the cold tier, over all partitions. */
    public long backlogBytes() {
        return lag.values().stream().mapToLong(PartitionLag::pendingBytes).sum();
    }

    /** Makes the background loop run a pass now (called when a segment rolls). */
    public void wakeUp() {
        wakeUps.release();
    }

    /** Starts the background loop; its first orphan sweep is one sweep interval away. */
    public void start() {
        start(false);
    }

    /**
     * Starts the background loop. Nothing S3 or the catalog does ends it: a failing pass or sweep
     * is logged (rate-limited, see {@link FailureLog}) and retried with backoff, and the loop
     * catches up once they answer again.
     *
     * @param sweepFirst whether the loop sweeps orphaned objects before its first pass (the daemon
     *     does, at start); a failed sweep there is retried like any other
     */
    public synchronized void start(boolean sweepFirst) {
        if (loop != null) {
            return;
        }
        Thread t = new Thread(() -> runLoop(sweepFirst), "tierlog-offload-loop");
        t.setDaemon(true);
        loop = t;
        t.start();
    }

    private void runLoop(boolean sweepFirst) {
        FailureLog passFailures = new FailureLog(LOG, "offload pass", time);
        FailureLog sweepFailures = new FailureLog(LOG, "orphan sweep", time);
        Backoff backoff = new Backoff(options.retryBackoff(), options.retryBackoffMax());
        long sweepEvery = options.sweepInterval().toMillis();
        long nextSweep = sweepFirst ? time.milliseconds() : time.milliseconds() + sweepEvery;
        while (stopped.getCount() > 0) {
            try {
                if (sweepFirst || time.milliseconds() >= nextSweep) {
                    sweepFirst = false;
                    nextSweep = sweepOnce(sweepFailures, backoff, sweepEvery);
                }
                wakeUps.drainPermits();
                boolean failed;
                try {
                    PassResult r = runOnce();
                    // A pass where partitions failed and nothing was committed (S3 or the catalog
                    // down, the guard refusing) backs off; partial progress keeps the interval.
                    failed = r.failedPartitions() > 0 && r.objects() == 0;
                    if (failed) {
                        passFailures.failed(r.failedPartitions() + " partitions failed", null);
                    } else {
                        passFailures.succeeded();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Throwable e) { // any throwable: the loop must outlive S3 and the catalog
                    failed = true;
                    passFailures.failed("the pass threw", e);
                }
                if (stopped.getCount() == 0) {
                    break;
                }
                if (failed) {
                    // Backoff ignores wake-ups: segments rolling during an outage must not make
                    // the loop hammer a store that is down; close() still ends the wait.
                    long wait = Math.max(1, backoff.delayMs(passFailures.consecutive()));
                    stopped.await(wait, TimeUnit.MILLISECONDS);
                } else {
                    wakeUps.tryAcquire(options.interval().toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable e) {
                // Not expected (the steps above catch their own), but the loop never dies.
                LOG.error("offload loop step failed; continuing", e);
                try {
                    stopped.await(options.interval().toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One orphan sweep of the loop; returns when the next one is due. */
    private long sweepOnce(FailureLog failures, Backoff backoff, long sweepEvery) {
        try {
            OrphanSweeper.SweepResult r = sweepOrphans();
            failures.succeeded();
            if (r.deleted() > 0 || r.retiredDeleted() > 0) {
                LOG.info("orphan sweep: {}", r);
            } else {
                LOG.debug("orphan sweep: {}", r);
            }
            return time.milliseconds() + sweepEvery;
        } catch (Throwable e) { // any throwable, as for a pass
            failures.failed("the sweep threw", e);
            return time.milliseconds()
                    + Math.min(sweepEvery, backoff.delayMs(failures.consecutive()));
        }
    }

    /** Stops the loop and the workers; an object in flight is abandoned (crash-safe). */
    @Override
    public void close() {
        stopped.countDown();
        wakeUp();
        Thread t = loop;
        workers.shutdown();
        try {
            if (t != null) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (!workers.awaitTermination(60, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Forwards events to every registered listener. */
    private final class Broadcast implements OffloadListener {
        @Override
        public void onObjectCommitted(ObjectReport report) {
            PartitionLag old = lag.get(report.tp());
            if (old != null) {
                lag.put(
                        report.tp(),
                        new PartitionLag(
                                old.tp(),
                                report.lastOffset() + 1,
                                old.closedEndOffset(),
                                Math.max(0, old.closedEndOffset() - report.lastOffset() - 1),
                                Math.max(0, old.pendingBytes() - report.sourceBytes()),
                                old.activeBytes(),
                                time.milliseconds(),
                                Optional.empty(),
                                old.heldBack()));
            }
            listeners.forEach(l -> l.onObjectCommitted(report));
        }

        @Override
        public void onTypedColumns(TopicPartition tp, io.tierlog.cold.TypedCounts counts) {
            if (counts.valuesTyped() + counts.keysTyped() > 0
                    || !counts.valueFailures().isEmpty()
                    || !counts.keyFailures().isEmpty()) {
                listeners.forEach(l -> l.onTypedColumns(tp, counts));
            }
        }

        @Override
        public void onObjectsMerged(
                TopicPartition tp, List<String> replacedKeys, ObjectReport replacement) {
            listeners.forEach(l -> l.onObjectsMerged(tp, replacedKeys, replacement));
        }
    }
}

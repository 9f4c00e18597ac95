package io.tierlog.hot;

import io.tierlog.common.Time;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's log cleaner for one log dir: {@code log.cleaner.threads} threads of their own (never an
 * append or fetch thread) each pick the dirtiest cleanable compacted partition ({@link LogToClean}:
 * above {@code min.cleanable.dirty.ratio}, or past {@code max.compaction.lag.ms}), clean it ({@link
 * Cleaner}) and start again, sleeping {@code log.cleaner.backoff.ms} when none needs cleaning. All
 * threads together read and write at most {@code log.cleaner.io.max.bytes.per.second}. Appends and
 * fetches go on during a cleaning: the cleaner only reads closed segments and takes the append lock
 * for the swap alone.
 *
 * <p>A partition is cleaned by one thread at a time, and only while the cleaner holds its exclusion
 * ({@link PartitionLog#tryExclusive()}, which the offload path takes too); the {@link
 * TombstoneGate} is asked under it.
 *
 * <p>Files in the log dir, in Kafka's checkpoint format ({@link RecoveryPointCheckpoint}): {@code
 * cleaner-offset-checkpoint} (Kafka's: the first dirty offset of each partition) and tierlog's
 * {@code cleaner-last-cleaning-checkpoint} (when each partition was last cleaned, ms since the
 * epoch). Both are rewritten after every cleaning.
 *
 * <p>Thread-safe.
 */
public final class LogCleaner implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(LogCleaner.class);

    static final String CHECKPOINT_FILE = "cleaner-offset-checkpoint";
    static final String LAST_CLEANING_FILE = "cleaner-last-cleaning-checkpoint";

    private final Path logDir;
    private final Supplier<Collection<PartitionLog>> logs;
    private final CleanerConfig config;
    private final TombstoneGate gate;
    private final Time time;
    private final Throttler throttler;
    private final RecoveryPointCheckpoint checkpointFile;
    private final RecoveryPointCheckpoint lastCleaningFile;
    private final Map<TopicPartition, Long> checkpoints = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> lastCleaning = new ConcurrentHashMap<>();
    private final Set<TopicPartition> inProgress = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private final ReentrantLock sleepLock = new ReentrantLock();
    private final Condition wake = sleepLock.newCondition();
    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong recordsRead = new AtomicLong();
    private final AtomicLong recordsRetained = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile double lastMapUtilization;
    private volatile boolean stopping;

    /**
     * A cleaner of the partitions {@code logs} lists (the log manager's), reading its checkpoints
     * from {@code logDir}. No thread runs until {@link #start()}.
     */
    LogCleaner(
            Path logDir,
            Supplier<Collection<PartitionLog>> logs,
            CleanerConfig config,
            TombstoneGate gate,
            Time time)
            throws IOException {
        this.logDir = logDir;
        this.logs = logs;
        this.config = config;
        this.gate = gate;
        this.time = time;
        this.throttler = new Throttler(config.maxIoBytesPerSecond(), time);
        this.checkpointFile = new RecoveryPointCheckpoint(logDir, CHECKPOINT_FILE);
        this.lastCleaningFile = new RecoveryPointCheckpoint(logDir, LAST_CLEANING_FILE);
        checkpoints.putAll(checkpointFile.read());
        try {
            lastCleaning.putAll(lastCleaningFile.read());
        } catch (IOException e) {
            LOG.warn("Ignoring unreadable {}: {}", LAST_CLEANING_FILE, e.getMessage());
        }
    }

    /** Starts the threads ({@code log.cleaner.enable} and {@code log.cleaner.threads}). */
    synchronized void start() {
        if (!config.enabled() || stopping || !threads.isEmpty()) {
            return;
        }
        long mapBytes = config.mapBytesPerThread();
        for (int i = 0; i < config.threads(); i++) {
            Thread t =
                    new Thread(
                            () -> run(mapBytes), "log-cleaner-" + i + "-" + logDir.getFileName());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        LOG.info(
                "Log cleaner of {}: {} threads, {} bytes of offset map each",
                logDir,
                config.threads(),
                mapBytes);
    }

    private void run(long mapBytes) {
        OffsetMap map = null; // allocated on the first cleaning: a dir without compaction pays none
        while (!stopping) {
            try {
                Optional<LogToClean> next = grabDirtiest();
                if (next.isEmpty()) {
                    backoff();
                    continue;
                }
                if (map == null) {
                    map = new OffsetMap(mapBytes);
                }
                try {
                    cleanOne(next.get(), map);
                } finally {
                    inProgress.remove(next.get().log().topicPartition());
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                LOG.error("Log cleaner thread of {} failed; continuing", logDir, t);
                try {
                    backoff();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void backoff() throws InterruptedException {
        sleepLock.lock();
        try {
            if (!stopping) {
                wake.await(config.backoff().toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            sleepLock.unlock();
        }
    }

    /**
     * One synchronous round for tests and tools: cleans every cleanable partition once, dirtiest
     * first, on the calling thread.
     *
     * @return the number of partitions cleaned
     */
    public int cleanAllOnce() throws IOException, InterruptedException {
        OffsetMap map = new OffsetMap(config.mapBytesPerThread());
        int n = 0;
        Set<TopicPartition> done = new java.util.HashSet<>();
        while (true) {
            Optional<LogToClean> next = grabDirtiest(done);
            if (next.isEmpty()) {
                return n;
            }
            TopicPartition tp = next.get().log().topicPartition();
            done.add(tp);
            try {
                if (cleanOne(next.get(), map)) {
                    n++;
                }
            } finally {
                inProgress.remove(tp);
            }
        }
    }

    private Optional<LogToClean> grabDirtiest() throws IOException {
        return grabDirtiest(Set.of());
    }

    /** The dirtiest cleanable partition not being cleaned, marked in progress. */
    private synchronized Optional<LogToClean> grabDirtiest(Set<TopicPartition> skip) {
        long now = time.milliseconds();
        LogToClean best = null;
        for (PartitionLog log : logs.get()) {
            TopicPartition tp = log.topicPartition();
            if (!log.config().compact()
                    || log.isClosed()
                    || log.isOffline()
                    || inProgress.contains(tp)
                    || skip.contains(tp)) {
                continue;
            }
            try {
                LogToClean c = LogToClean.of(log, checkpoints.getOrDefault(tp, -1L), now);
                if (c.cleanable() && (best == null || c.dirtyRatio() > best.dirtyRatio())) {
                    best = c;
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("Cannot measure dirtiness of {}: {}", tp, e.toString());
            }
        }
        if (best != null) {
            inProgress.add(best.log().topicPartition());
        }
        return Optional.ofNullable(best);
    }

    /** Cleans one partition under its exclusion; false when it was busy or gone. */
    private boolean cleanOne(LogToClean c, OffsetMap map) throws InterruptedException {
        PartitionLog log = c.log();
        TopicPartition tp = log.topicPartition();
        PartitionLog.Exclusion x = log.tryExclusive();
        if (x == null) {
            return false; // being offloaded: next round
        }
        try (x) {
            // measured again under the exclusion: an offload or retention may have moved things
            LogToClean now =
                    LogToClean.of(log, checkpoints.getOrDefault(tp, -1L), time.milliseconds());
            boolean drop;
            try {
                drop = gate.mayDropTombstones(tp);
            } catch (Exception e) {
                LOG.warn("{}: tombstone gate failed ({}); keeping tombstones", tp, e.toString());
                drop = false;
            }
            long start = time.milliseconds();
            Cleaner cleaner = new Cleaner(map, throttler, () -> stopping || log.isClosed());
            Cleaner.Result r =
                    cleaner.clean(log, now.firstDirty(), now.firstUncleanable(), drop, start);
            bytesRead.addAndGet(r.bytesRead());
            bytesWritten.addAndGet(r.bytesWritten());
            recordsRead.addAndGet(r.recordsRead());
            recordsRetained.addAndGet(r.recordsRetained());
            lastMapUtilization = r.mapUtilization();
            if (r.endOffset() > now.firstDirty() || r.groups() > 0) {
                checkpoints.put(tp, r.endOffset());
                long end = time.milliseconds();
                lastCleaning.put(tp, end);
                passes.incrementAndGet();
                writeCheckpoints();
                LOG.info(
                        "Cleaned {}: dirty ratio {}, {} groups, {} of {} records kept, {} bytes"
                                + " read, {} written, in {} ms; first dirty offset now {}",
                        tp,
                        String.format("%.2f", now.dirtyRatio()),
                        r.groups(),
                        r.recordsRetained(),
                        r.recordsRead(),
                        r.bytesRead(),
                        r.bytesWritten(),
                        end - start,
                        r.endOffset());
                return true;
            }
            return false;
        } catch (Cleaner.AbortedException e) {
            LOG.info("Cleaning of {} aborted", tp);
            return false;
        } catch (IOException | RuntimeException e) {
            failures.incrementAndGet();
            LOG.warn("Cleaning of {} failed; retried later", tp, e);
            return false;
        }
    }

    private synchronized void writeCheckpoints() {
        Set<TopicPartition> present = new java.util.HashSet<>();
        for (PartitionLog l : logs.get()) {
            present.add(l.topicPartition());
        }
        checkpoints.keySet().retainAll(present);
        lastCleaning.keySet().retainAll(present);
        try {
            checkpointFile.write(new HashMap<>(checkpoints));
            lastCleaningFile.write(new HashMap<>(lastCleaning));
        } catch (IOException e) {
            LOG.warn("Cannot write the cleaner checkpoints of {}", logDir, e);
        }
    }

    /** Forgets a deleted partition (its checkpoint goes with the next write). */
    void forget(TopicPartition tp) {
        checkpoints.remove(tp);
        lastCleaning.remove(tp);
    }

    /** The cleaner's view of every compacted partition now. */
    public List<CleaningStats> stats() {
        List<CleaningStats> out = new ArrayList<>();
        for (PartitionLog log : logs.get()) {
            if (log.config().compact()) {
                stats(log).ifPresent(out::add);
            }
        }
        return out;
    }

    /** The cleaner's view of one partition, empty when it is not compacted or not open. */
    public Optional<CleaningStats> stats(TopicPartition tp) {
        for (PartitionLog log : logs.get()) {
            if (log.topicPartition().equals(tp) && log.config().compact()) {
                return stats(log);
            }
        }
        return Optional.empty();
    }

    private Optional<CleaningStats> stats(PartitionLog log) {
        TopicPartition tp = log.topicPartition();
        try {
            LogToClean c =
                    LogToClean.of(log, checkpoints.getOrDefault(tp, -1L), time.milliseconds());
            return Optional.of(
                    new CleaningStats(
                            tp,
                            c.dirtyRatio(),
                            c.cleanableBytes(),
                            c.firstDirty(),
                            c.firstUncleanable(),
                            lastCleaning.getOrDefault(tp, -1L),
                            c.maxCompactionDelayMs()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    public CleanerTotals totals() {
        return new CleanerTotals(
                passes.get(),
                bytesRead.get(),
                bytesWritten.get(),
                recordsRead.get(),
                recordsRetained.get(),
                failures.get(),
                lastMapUtilization);
    }

    /** The first dirty offset of {@code tp} as checkpointed, if any. */
    public Optional<Long> checkpoint(TopicPartition tp) {
        return Optional.ofNullable(checkpoints.get(tp));
    }

    /**
     * The first dirty offset of each partition as {@code cleaner-offset-checkpoint} in {@code
     * logDir} holds it (empty without the file): for read-only tools such as {@code tierlog
     * inspect}, which must not open the log dir.
     */
    public static Map<TopicPartition, Long> readCheckpoint(Path logDir) throws IOException {
        return new RecoveryPointCheckpoint(logDir, CHECKPOINT_FILE).read();
    }

    /** When each partition was last cleaned (ms since the epoch), as the cleaner last wrote it. */
    public static Map<TopicPartition, Long> readLastCleanings(Path logDir) throws IOException {
        return new RecoveryPointCheckpoint(logDir, LAST_CLEANING_FILE).read();
    }

    /**
     * The dirty ratio of a partition from its segments (oldest first, the last active) and its
     * first dirty offset (-1 or out of range: the log start), by whole closed segments as the
     * cleaner counts them, without the {@code min.compaction.lag.ms} bound: for read-only tools.
     */
    public static double dirtyRatio(List<SegmentInfo> segments, long firstDirty) {
        long clean = 0;
        long dirty = 0;
        if (segments.isEmpty()) {
            return 0;
        }
        long start = segments.get(0).baseOffset();
        long from = firstDirty < start ? start : firstDirty;
        for (int i = 0; i < segments.size() - 1; i++) {
            SegmentInfo s = segments.get(i);
            long end = Math.max(s.nextOffset(), segments.get(i + 1).baseOffset());
            if (end <= from) {
                clean += s.sizeInBytes();
            } else {
                dirty += s.sizeInBytes();
            }
        }
        return clean + dirty == 0 ? 0 : (double) dirty / (clean + dirty);
    }

    /** Wakes the sleeping threads (a topic became compacted, tests). */
    public void wakeUp() {
        sleepLock.lock();
        try {
            wake.signalAll();
        } finally {
            sleepLock.unlock();
        }
    }

    /** Stops the threads, aborting a cleaning in progress (its {@code .cleaned} files go). */
    @Override
    public void close() {
        List<Thread> ts;
        synchronized (this) {
            stopping = true;
            ts = new ArrayList<>(threads);
        }
        // no interrupt: it would close the shared segment channels a cleaner thread is reading
        wakeUp();
        for (Thread t : ts) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

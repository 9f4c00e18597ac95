package io.tierlog.hot;

import io.tierlog.common.DirLock;
import io.tierlog.common.Tasks;
import io.tierlog.common.Time;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens every partition folder {@code <topic>-<partition>} under a log dir (recovering after an
 * unclean stop), creates and deletes partitions, and runs housekeeping on the injected scheduler
 * every {@link #HOUSEKEEPING_INTERVAL_MS}: {@code segment.ms} rolls, {@code flush.ms} flushes,
 * local retention (bounded per partition by the retention bound given at open), idle producer
 * expiry and the recovery-point checkpoint. Housekeeping is scheduled only once every partition is
 * open and the bound is in place, so no pass ever runs without it.
 *
 * <p>The log dir layout is Kafka's: partition folders, {@code recovery-point-offset-checkpoint}
 * and, between a clean close and the next open, the {@code .kafka_cleanshutdown} marker. Folders
 * ending in {@code -delete} are leftovers of deletions and are removed on open. While open, the
 * manager holds an exclusive lock on {@code .lock} (as Kafka does), so that no other process (and
 * no second manager in this one) opens the same log dir; the file itself stays, empty.
 *
 * <p>Thread-safe.
 */
public final class LogManager implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(LogManager.class);

    /** No bound on local retention: for a log dir with no cold tier behind it. */
    private static final ToLongFunction<PartitionLog> UNBOUNDED = log -> Long.MAX_VALUE;

    /** The file locked while a manager has the log dir open. */
    public static final String LOCK_FILE = ".lock";

    /** Period of the housekeeping task. */
    public static final long HOUSEKEEPING_INTERVAL_MS = 1000;

    private final Path logDir;
    private final Function<String, LogConfig> topicConfigs;
    private final Time time;
    private final ScheduledExecutorService scheduler;
    private final RecoveryPointCheckpoint checkpoint;
    private final RecoveryPointCheckpoint logEnds;
    private final ToLongFunction<TopicPartition> offsetFloor;
    private final Map<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    private final ToLongFunction<PartitionLog> retentionBound;
    private volatile ScheduledFuture<?> housekeeping;
    private final DirLock lock;
    private final OpenFiles files;
    private volatile boolean closed;
    private volatile LogCleaner cleaner;

    private LogManager(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            DirLock lock,
            OpenFiles files,
            ToLongFunction<TopicPartition> offsetFloor,
            ToLongFunction<PartitionLog> retentionBound) {
        this.logDir = logDir;
        this.files = files;
        this.offsetFloor = offsetFloor;
        this.retentionBound = retentionBound;
        this.logEnds =
                new RecoveryPointCheckpoint(logDir, RecoveryPointCheckpoint.LOG_END_FILE_NAME);
        this.lock = lock;
        this.topicConfigs = topicConfigs;
        this.time = time;
        this.scheduler = scheduler;
        this.checkpoint = new RecoveryPointCheckpoint(logDir);
    }

    /** Schedules housekeeping: last step of opening, once the partitions are in. */
    private void startHousekeeping() {
        if (scheduler != null) {
            housekeeping =
                    scheduler.scheduleWithFixedDelay(
                            Tasks.guarded(
                                    this::housekeepingQuietly,
                                    e -> LOG.error("Housekeeping of {} failed", logDir, e)),
                            HOUSEKEEPING_INTERVAL_MS,
                            HOUSEKEEPING_INTERVAL_MS,
                            TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Opens every partition under {@code logDir} (created when absent).
     *
     * @throws IOException also when another process or manager holds the log dir's {@link
     *     #LOCK_FILE}
     * @param topicConfigs configuration of each topic (called on open and create)
     * @param scheduler runs housekeeping and delayed deletions; null for none (tests call {@link
     *     #runHousekeeping()} by hand)
     */
    public static LogManager open(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler)
            throws IOException {
        return open(logDir, topicConfigs, time, scheduler, 0, tp -> 0L);
    }

    /** As below, with no offset floor. */
    public static LogManager open(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            int maxOpenFiles)
            throws IOException {
        return open(logDir, topicConfigs, time, scheduler, maxOpenFiles, tp -> 0L);
    }

    /** As below, with the open-file bound derived from the descriptor limit. */
    public static LogManager open(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            ToLongFunction<TopicPartition> offsetFloor)
            throws IOException {
        return open(logDir, topicConfigs, time, scheduler, 0, offsetFloor);
    }

    /**
     * As {@link #open(Path, Function, Time, ScheduledExecutorService)}, holding at most {@code
     * maxOpenFiles} segment files open ({@link HotTierOptions#LOG_OPEN_FILES_MAX}; 0 derives the
     * bound from the process's descriptor limit), with a floor per partition: no partition opened
     * or created by this manager assigns an offset below its floor (the cold tier's high
     * watermark), and a corruption that recovery finds below it drops the segments up to it rather
     * than truncating the log there (see {@link PartitionLog#open(Path, LogConfig, Time,
     * ScheduledExecutorService, long, boolean, long, long, OpenFiles)}).
     *
     * @param offsetFloor called once per partition when it is opened or created; a floor that
     *     cannot be read (the function throws) counts as 0, with a WARN
     */
    public static LogManager open(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            int maxOpenFiles,
            ToLongFunction<TopicPartition> offsetFloor)
            throws IOException {
        Files.createDirectories(logDir);
        return open(
                lock(logDir), topicConfigs, time, scheduler, maxOpenFiles, offsetFloor, UNBOUNDED);
    }

    /**
     * As {@link #open(Path, Function, Time, ScheduledExecutorService, int, ToLongFunction)}, with
     * local retention bounded as in {@link #open(DirLock, Function, Time, ScheduledExecutorService,
     * int, ToLongFunction, ToLongFunction)}.
     */
    public static LogManager open(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            int maxOpenFiles,
            ToLongFunction<TopicPartition> offsetFloor,
            ToLongFunction<PartitionLog> retentionBound)
            throws IOException {
        Files.createDirectories(logDir);
        return open(
                lock(logDir),
                topicConfigs,
                time,
                scheduler,
                maxOpenFiles,
                offsetFloor,
                retentionBound);
    }

    /**
     * As {@link #open(Path, Function, Time, ScheduledExecutorService, int, ToLongFunction,
     * ToLongFunction)}, for the log dir of {@code lock} ({@link #lock(Path)}), taken by the caller
     * before it started anything else (the manager owns the lock from this call on: it releases it
     * on {@link #close()}, and when this call fails), with local retention bounded per partition:
     * housekeeping deletes no segment holding an offset at or above {@code retentionBound} of its
     * partition (for a tiered log, the cold high watermark: what is safely in the cold tier). The
     * bound is part of opening, so that no housekeeping pass, however early, runs without it.
     *
     * @param retentionBound called on every housekeeping pass, per partition; {@link
     *     Long#MIN_VALUE} (or anything at or below the log start) deletes nothing; a throw skips
     *     the partition's pass with a WARN
     */
    public static LogManager open(
            DirLock lock,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            int maxOpenFiles,
            ToLongFunction<TopicPartition> offsetFloor,
            ToLongFunction<PartitionLog> retentionBound)
            throws IOException {
        try {
            if (!lock.held()) {
                throw new IllegalStateException("the lock of " + lock.dir() + " is not held");
            }
            OpenFiles files = OpenFiles.bounded(maxOpenFiles);
            return open(
                    lock.dir(),
                    topicConfigs,
                    time,
                    scheduler,
                    lock,
                    files,
                    offsetFloor,
                    java.util.Objects.requireNonNull(retentionBound));
        } catch (IOException | RuntimeException | Error e) {
            unlock(lock, e);
            throw e;
        }
    }

    private static LogManager open(
            Path logDir,
            Function<String, LogConfig> topicConfigs,
            Time time,
            ScheduledExecutorService scheduler,
            DirLock lock,
            OpenFiles files,
            ToLongFunction<TopicPartition> offsetFloor,
            ToLongFunction<PartitionLog> retentionBound)
            throws IOException {
        Path marker = logDir.resolve(RecoveryPointCheckpoint.CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        RecoveryPointCheckpoint cp = new RecoveryPointCheckpoint(logDir);
        Map<TopicPartition, Long> points;
        try {
            points = cp.read();
        } catch (IOException e) {
            LOG.warn("Ignoring unreadable recovery-point checkpoint; recovering everything", e);
            points = new HashMap<>();
            clean = false;
        }
        Map<TopicPartition, Long> ends;
        try {
            ends =
                    new RecoveryPointCheckpoint(logDir, RecoveryPointCheckpoint.LOG_END_FILE_NAME)
                            .read();
        } catch (IOException e) {
            LOG.warn("Ignoring unreadable log-end checkpoint of {}", logDir, e);
            ends = new HashMap<>();
        }
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(logDir, Files::isDirectory)) {
            for (Path d : ds) {
                dirs.add(d);
            }
        }
        Map<TopicPartition, PartitionLog> opened = new HashMap<>();
        try {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (name.endsWith(TopicNames.DELETE_DIR_SUFFIX)) {
                    try {
                        deleteRecursively(d);
                    } catch (IOException e) {
                        // a leftover of a deletion must never keep the server from starting
                        LOG.warn(
                                "Cannot remove {} left by a partition deletion: {}",
                                d,
                                e.toString());
                    }
                    continue;
                }
                TopicPartition tp;
                try {
                    tp = TopicNames.parseDirName(name);
                } catch (InvalidTopicException e) {
                    LOG.warn("Ignoring {} in log dir: not a partition folder", d);
                    continue;
                }
                long rp = points.getOrDefault(tp, 0L);
                opened.put(
                        tp,
                        PartitionLog.open(
                                d,
                                topicConfigs.apply(tp.topic()),
                                time,
                                scheduler,
                                rp,
                                clean,
                                floorOf(offsetFloor, tp),
                                ends.getOrDefault(tp, 0L),
                                files));
            }
        } catch (IOException | RuntimeException e) {
            for (PartitionLog l : opened.values()) {
                try {
                    l.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            throw e;
        }
        // A crash from now on must be seen as unclean.
        Files.deleteIfExists(marker);
        RecoveryPointCheckpoint.fsyncDir(logDir);
        LogManager m =
                new LogManager(
                        logDir,
                        topicConfigs,
                        time,
                        scheduler,
                        lock,
                        files,
                        offsetFloor,
                        retentionBound);
        LOG.info(
                "Opened {} partitions in {}; {} segment files open (log.open.files.max={})",
                opened.size(),
                logDir,
                files.openCount(),
                files.max());
        m.logs.putAll(opened);
        m.checkpointRecoveryPoints();
        m.startHousekeeping();
        return m;
    }

    /**
     * Takes the exclusive lock on {@code logDir/.lock} (the directory must exist), for {@link
     * #open(DirLock, Function, Time, ScheduledExecutorService, int, ToLongFunction)}.
     *
     * @throws DirLock.InUseException if another process or manager holds it
     */
    public static DirLock lock(Path logDir) throws IOException {
        return DirLock.acquire(logDir, LOCK_FILE, "log dir");
    }

    private static void unlock(DirLock lock, Throwable failure) {
        try {
            lock.close();
        } catch (IOException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            } else {
                LOG.warn("Cannot release the lock of a log dir", e);
            }
        }
    }

    public Path logDir() {
        return logDir;
    }

    /** The bound on open segment files of this log dir (and how many are open). */
    public OpenFiles openFiles() {
        return files;
    }

    /**
     * Gives every open partition of {@code topic} (every partition when null) its current config
     * from the topic-config function this manager was opened with.
     */
    public void reconfigure(String topic) {
        for (PartitionLog pl : partitions()) {
            if (topic == null || pl.topicPartition().topic().equals(topic)) {
                pl.reconfigure(topicConfigs.apply(pl.topicPartition().topic()));
            }
        }
    }

    /** The log of {@code tp}, created (folder and first segment) if it does not exist. */
    public PartitionLog getOrCreate(TopicPartition tp) throws IOException {
        String name = TopicNames.dirName(tp);
        PartitionLog existing = logs.get(tp);
        if (existing != null) {
            return existing;
        }
        synchronized (this) {
            ensureOpen();
            existing = logs.get(tp);
            if (existing != null) {
                return existing;
            }
            Path dir = logDir.resolve(name).normalize();
            if (!dir.getParent().equals(logDir.normalize())) {
                throw new InvalidTopicException("Partition folder escapes the log dir: " + name);
            }
            // clean: a new partition has nothing to recover; the floor still applies (a
            // folder lost while the cold tier kept its offsets must not hand them out again)
            PartitionLog log =
                    PartitionLog.open(
                            dir,
                            topicConfigs.apply(tp.topic()),
                            time,
                            scheduler,
                            0,
                            true,
                            floorOf(offsetFloor, tp),
                            0,
                            files);
            logs.put(tp, log);
            return log;
        }
    }

    public Optional<PartitionLog> partition(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    public Collection<PartitionLog> partitions() {
        return List.copyOf(logs.values());
    }

    /**
     * Starts this log dir's log cleaner ({@code log.cleaner.enable}: with it off the cleaner only
     * reports dirtiness); stopped by {@link #close()} before any log closes. At most one per
     * manager: a second call returns the first.
     *
     * @param gate whether a partition's tombstones may be removed ({@link TombstoneGate#ALWAYS}
     *     without a cold tier)
     */
    public synchronized LogCleaner startCleaner(CleanerConfig config, TombstoneGate gate)
            throws IOException {
        ensureOpen();
        if (cleaner == null) {
            cleaner = new LogCleaner(logDir, this::partitions, config, gate, time);
            cleaner.start();
        }
        return cleaner;
    }

    /** The cleaner {@link #startCleaner} started, if any. */
    public Optional<LogCleaner> cleaner() {
        return Optional.ofNullable(cleaner);
    }

    /** Closes the log and removes its folder (renamed to {@code *-delete} first). */
    public synchronized void delete(TopicPartition tp) throws IOException {
        PartitionLog log = logs.remove(tp);
        Path dir = logDir.resolve(TopicNames.dirName(tp));
        PartitionLog.Exclusion x = null;
        if (log != null) {
            try {
                log.close();
            } catch (LogOfflineException e) {
                // Its files are being deleted anyway; an offline log must not block that.
                LOG.warn("Deleting {}, which is offline: {}", tp, e.getMessage());
            }
            // a cleaning of the closed log aborts at its next chunk; its files must be gone
            // before the folder is
            x = log.exclusive(java.time.Duration.ofSeconds(30));
        }
        LogCleaner c = cleaner;
        if (c != null) {
            c.forget(tp);
        }
        if (x != null) {
            x.close();
        }
        if (Files.exists(dir)) {
            Path tomb = logDir.resolve(TopicNames.deleteDirName(tp, UUID.randomUUID()));
            Files.move(dir, tomb);
            RecoveryPointCheckpoint.fsyncDir(logDir);
            deleteRecursively(tomb);
        }
        // forget its log end at once: a partition created again under the name starts at 0
        checkpointRecoveryPoints();
    }

    /**
     * One housekeeping pass: recovery of offline partitions, rolls, flushes, retention, checkpoint.
     * Also run by the scheduler. A partition whose housekeeping fails (with any throwable) is
     * logged and skipped, so it neither stops the others nor the next pass.
     *
     * @throws IOException only when the checkpoint cannot be written
     */
    public void runHousekeeping() throws IOException {
        for (PartitionLog log : partitions()) {
            if (closed) {
                return;
            }
            Tasks.runGuarded(
                    () -> housekeep(log),
                    e ->
                            LOG.warn(
                                    "Housekeeping of {} failed: {}",
                                    log.topicPartition(),
                                    e.toString(),
                                    e));
        }
        checkpointRecoveryPoints();
    }

    private void housekeep(PartitionLog log) {
        try {
            if (!log.maybeRecover()) {
                return; // still offline: nothing else to do on it
            }
            log.maybeRoll();
            log.maybeFlush();
            log.maybeDeleteSegments(retentionBound.applyAsLong(log));
            log.maybeExpireProducers();
        } catch (LogOfflineException e) {
            LOG.debug("{} went offline during housekeeping", log.topicPartition());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void housekeepingQuietly() {
        try {
            runHousekeeping();
        } catch (IOException e) {
            LOG.warn("Cannot write the recovery-point checkpoint of {}: {}", logDir, e.toString());
        }
    }

    /**
     * Writes the recovery point of every partition to the checkpoint file, and its log end offset
     * to the log-end checkpoint (the log end first: it must never lag the recovery point).
     */
    public synchronized void checkpointRecoveryPoints() throws IOException {
        Map<TopicPartition, Long> points = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (PartitionLog log : logs.values()) {
            points.put(log.topicPartition(), log.recoveryPoint());
            ends.put(log.topicPartition(), log.logEndOffset());
        }
        logEnds.write(ends);
        checkpoint.write(points);
    }

    private static long floorOf(ToLongFunction<TopicPartition> offsetFloor, TopicPartition tp) {
        try {
            return Math.max(0, offsetFloor.applyAsLong(tp));
        } catch (RuntimeException e) {
            LOG.warn("Cannot read the offset floor of {}; opening it without one", tp, e);
            return 0;
        }
    }

    /**
     * Flushes and closes every log, writes the checkpoint and the clean-shutdown marker, and
     * releases the log dir's lock.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (housekeeping != null) {
            housekeeping.cancel(false);
        }
        if (cleaner != null) {
            cleaner.close(); // before the logs close: a cleaning in progress aborts
        }
        boolean allClosed = true;
        for (PartitionLog log : logs.values()) {
            try {
                log.close();
            } catch (IOException | RuntimeException e) {
                allClosed = false;
                LOG.error("Cannot close {}", log, e);
            }
        }
        try {
            Map<TopicPartition, Long> points = new HashMap<>();
            for (PartitionLog log : logs.values()) {
                points.put(log.topicPartition(), log.logEndOffset());
            }
            logEnds.write(points);
            checkpoint.write(points);
            if (allClosed) {
                Files.write(
                        logDir.resolve(RecoveryPointCheckpoint.CLEAN_SHUTDOWN_FILE),
                        "{\"version\":0,\"brokerEpoch\":-1}".getBytes(StandardCharsets.UTF_8));
                RecoveryPointCheckpoint.fsyncDir(logDir);
            }
        } catch (IOException e) {
            LOG.error("Cannot write the clean-shutdown state of {}", logDir, e);
        } finally {
            unlock(lock, null);
        }
    }

    /**
     * Releases the log dir's lock and nothing else, as a crash would: for tests that reopen a log
     * dir in the same JVM after an unclean stop.
     */
    void releaseLockAsCrashWould() {
        unlock(lock, null);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("LogManager of " + logDir + " is closed");
        }
    }

    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(
                root,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                            throws IOException {
                        Files.delete(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, IOException exc)
                            throws IOException {
                        Files.delete(dir);
                        return FileVisitResult.CONTINUE;
                    }
                });
    }
}

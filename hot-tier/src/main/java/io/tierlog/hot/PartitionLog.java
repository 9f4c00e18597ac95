package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import io.tierlog.common.Time;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's segmented log in a folder {@code <topic>-<partition>}: append, zero-copy reads,
 * roll, durability, recovery, local retention.
 *
 * <p>Thread-safe: appends, rolls and deletions are serialised by an internal lock; reads are
 * lock-free against a volatile array of segments and only see batches below the high watermark and
 * the segment's published size (both published after the write, or after the fsync in {@link
 * Durability#FSYNC} mode).
 *
 * <p><b>Storage faults.</b> A failed write, fsync or roll (disk full, I/O error, or any throwable
 * from the file system path) takes the log <em>offline</em>, as Kafka takes a log dir offline: the
 * failed append is rolled back (nothing of it stays in the files or the indexes) and reported, and
 * every later append and read fails with {@link LogOfflineException} (the server answers {@code
 * KAFKA_STORAGE_ERROR}). Unlike Kafka, no restart is needed: {@link #maybeRecover()} (called by
 * {@link LogManager}'s housekeeping) periodically reopens the segments from disk, recovers them,
 * truncates everything after the last acknowledged offset (the high watermark) and puts the log
 * back online; while the disk is still full, rebuilding the indexes fails and the log stays
 * offline. Each change of state is logged.
 */
public final class PartitionLog implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    /** Leader epoch value meaning "leave the batch's partition leader epoch as sent". */
    public static final int NO_PARTITION_LEADER_EPOCH = -1;

    private final Path dir;
    private final TopicPartition tp;

    /** Replaced whole by {@link #reconfigure}; each operation reads it once where it matters. */
    private volatile LogConfig config;

    /**
     * The log may hold cleaned segments (offset gaps): set when opened from a log dir whose cleaner
     * checkpoints name it, and before the cleaner's first swap. Never cleared, whatever {@link
     * #reconfigure} does to {@code cleanup.policy}, so that recovery keeps accepting the gaps.
     */
    private volatile boolean cleaned;

    private final Time time;
    private final ReentrantLock lock = new ReentrantLock();
    private final ProducerStateManager producers = new ProducerStateManager();
    private final List<LogListener> listeners = new CopyOnWriteArrayList<>();
    private final SegmentDeleter deleter;
    private final ScheduledExecutorService scheduler;
    private final GroupCommit groupCommit;
    private final OpenFiles files;

    private volatile LogSegment[] segments;
    private final DamagedRanges damaged = new DamagedRanges();
    private volatile long logStartOffset;

    /** The highest start given to {@link #advanceLogStartOffset} (0 if none): kept by reloads. */
    private volatile long requestedLogStart;

    private volatile long logEndOffset;
    private volatile long highWatermark;
    private volatile long recoveryPoint;
    private volatile boolean closed;
    private long unflushedRecords;

    /** Offsets of the producer snapshots on disk, ascending; null until listed. Under the lock. */
    private List<Long> snapshotOffsets;

    private volatile long lastFlushMs;

    private final OfflineState offlineState;

    /**
     * The exclusion between the log cleaner and the offload of this partition: whoever holds it may
     * replace (cleaner) or read by path (offloader) the closed segments.
     */
    private final java.util.concurrent.Semaphore exclusive = new java.util.concurrent.Semaphore(1);

    private PartitionLog(
            Path dir,
            TopicPartition tp,
            LogConfig config,
            Time time,
            ScheduledExecutorService scheduler,
            List<LogSegment> loaded,
            OpenFiles files) {
        this.dir = dir;
        this.files = files;
        this.tp = tp;
        this.config = config;
        this.time = time;
        this.segments = loaded.toArray(new LogSegment[0]);
        this.deleter = new SegmentDeleter(scheduler, time, config.fileDeleteDelay());
        this.scheduler = scheduler;
        LogSegment active = segments[segments.length - 1];
        this.logStartOffset = segments[0].baseOffset;
        this.logEndOffset = active.nextOffset();
        this.highWatermark = logEndOffset;
        this.recoveryPoint = logEndOffset;
        this.lastFlushMs = time.milliseconds();
        this.groupCommit = new GroupCommit(this::capture, this::publishDurable, logEndOffset);
        this.offlineState = new OfflineState(tp, time);
    }

    /**
     * Opens (or creates) the log in {@code dir}, a folder named {@code <topic>-<partition>},
     * recovering every segment (as after an unclean stop). Used by tools and tests that own one
     * partition; {@link LogManager} passes its recovery point and shutdown state instead.
     */
    public static PartitionLog open(Path dir, LogConfig config, Time time) throws IOException {
        return open(dir, config, time, null, 0, false);
    }

    /**
     * Opens (or creates) the log in {@code dir} with a bound of open files of its own and no offset
     * floor (tools and tests).
     *
     * @param scheduler runs delayed file deletions; null to delete on the next retention pass
     * @param recoveryPoint offset below which data is known to be fsynced (with its indexes)
     * @param hadCleanShutdown true when the log dir's clean-shutdown marker was present: no segment
     *     is recovered unless its indexes are missing or corrupt
     */
    public static PartitionLog open(
            Path dir,
            LogConfig config,
            Time time,
            ScheduledExecutorService scheduler,
            long recoveryPoint,
            boolean hadCleanShutdown)
            throws IOException {
        return open(dir, config, time, scheduler, recoveryPoint, hadCleanShutdown, 0, 0);
    }

    /** As below, with a bound of open files of its own (tools and tests). */
    public static PartitionLog open(
            Path dir,
            LogConfig config,
            Time time,
            ScheduledExecutorService scheduler,
            long recoveryPoint,
            boolean hadCleanShutdown,
            long offsetFloor,
            long knownLogEnd)
            throws IOException {
        return open(
                dir,
                config,
                time,
                scheduler,
                recoveryPoint,
                hadCleanShutdown,
                offsetFloor,
                knownLogEnd,
                OpenFiles.bounded(0));
    }

    /**
     * As {@link #open(Path, LogConfig, Time, ScheduledExecutorService, long, boolean)}, never
     * assigning an offset below {@code offsetFloor} or {@code knownLogEnd} again: the log continues
     * at or above both, whatever recovery had to drop (see {@code LogLoader}). A corruption whose
     * offsets are below the floor drops the segments up to it instead of truncating the log.
     *
     * @param offsetFloor the first offset not held elsewhere (the cold high watermark); 0 for none
     * @param knownLogEnd the log end offset last checkpointed for this partition; 0 if unknown
     * @param files the bound on open segment files, shared by the log dir's partitions
     */
    public static PartitionLog open(
            Path dir,
            LogConfig config,
            Time time,
            ScheduledExecutorService scheduler,
            long recoveryPoint,
            boolean hadCleanShutdown,
            long offsetFloor,
            long knownLogEnd,
            OpenFiles files)
            throws IOException {
        TopicPartition tp = TopicNames.parseDirName(dir.getFileName().toString());
        Path logDir = dir.toAbsolutePath().getParent();
        boolean cleaned = logDir != null && LogCleaner.namedInCheckpoints(logDir).test(tp);
        return open(
                dir,
                config,
                time,
                scheduler,
                recoveryPoint,
                hadCleanShutdown,
                offsetFloor,
                knownLogEnd,
                files,
                cleaned);
    }

    /**
     * As {@link #open(Path, LogConfig, Time, ScheduledExecutorService, long, boolean, long, long,
     * OpenFiles)}, told (rather than reading the log dir's cleaner checkpoints) whether the log may
     * hold cleaned segments.
     *
     * @param cleaned the log dir's cleaner checkpoints name this partition: recovery accepts offset
     *     gaps between batches even if the topic is not compacted now (see {@link
     *     #mayHaveOffsetGaps()})
     */
    public static PartitionLog open(
            Path dir,
            LogConfig config,
            Time time,
            ScheduledExecutorService scheduler,
            long recoveryPoint,
            boolean hadCleanShutdown,
            long offsetFloor,
            long knownLogEnd,
            OpenFiles files,
            boolean cleaned)
            throws IOException {
        TopicPartition tp = TopicNames.parseDirName(dir.getFileName().toString());
        List<LogSegment> loaded =
                LogLoader.load(
                        dir,
                        config,
                        recoveryPoint,
                        hadCleanShutdown,
                        cleaned || config.compact(),
                        offsetFloor,
                        knownLogEnd,
                        files);
        try {
            PartitionLog log = new PartitionLog(dir, tp, config, time, scheduler, loaded, files);
            log.cleaned = cleaned;
            LogLoader.rebuildProducerState(dir, loaded, log.producers);
            return log;
        } catch (IOException | RuntimeException e) {
            for (LogSegment s : loaded) {
                s.closeQuietly();
            }
            throw e;
        }
    }

    public TopicPartition topicPartition() {
        return tp;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /**
     * Takes a topic's changed config (AlterConfigs, dynamic broker configs): later appends, rolls,
     * flushes and retention passes use it; open segments keep the index size they were made with.
     */
    public void reconfigure(LogConfig newConfig) {
        this.config = newConfig;
    }

    /**
     * Whether the log may hold segments with offset gaps between batches (its topic is compacted
     * now, or the cleaner has cleaned it since its cleaner checkpoint entry was made, whatever its
     * policy is now): recovery then requires only ascending offsets. A log that was never cleaned
     * is recovered with contiguous offsets, which also catches a damaged base offset (a field
     * outside the CRC).
     */
    public boolean mayHaveOffsetGaps() {
        return cleaned || config.compact();
    }

    /**
     * Records that the log is about to get cleaned segments; the caller has made that durable first
     * (the log dir's cleaner checkpoint names the partition).
     */
    void markCleaned() {
        cleaned = true;
    }

    /**
     * Validates (magic 2, CRC-32C, lengths, record count, offset deltas, timestamps, size vs
     * message.max.bytes), assigns offsets by rewriting each base offset in place, applies
     * LogAppendTime if configured (timestamp-type attribute, max timestamp, CRC), checks idempotent
     * producer sequences and writes. Under a {@code compression.type} other than {@code producer},
     * batches in another codec are first rebuilt in that codec ({@link Recompressor}) and checked
     * again, size included, as written. A retried idempotent batch (same producer id, epoch and
     * sequence range as one of that producer's last 5 batches) is not written again: its original
     * offsets are returned with {@code duplicate() == true}. Invalid input leaves the log untouched
     * (the request's base offsets may have been rewritten). In {@link Durability#FSYNC} mode
     * returns only after the batches are fsynced. {@code batches} (position to limit) must be a
     * writable buffer: offsets are assigned in place, and it is not retained after the call.
     *
     * @throws InvalidBatchException when a batch is invalid
     * @throws ProducerStateException when an idempotent producer's sequence or epoch is wrong
     */
    public AppendResult append(ByteBuffer batches) throws IOException {
        return append(batches, NO_PARTITION_LEADER_EPOCH);
    }

    /**
     * As {@link #append(ByteBuffer)}, also stamping {@code partitionLeaderEpoch} into every batch
     * (a field outside the CRC, as a Kafka leader does) unless it is {@link
     * #NO_PARTITION_LEADER_EPOCH}, which keeps the producer's value.
     */
    public AppendResult append(ByteBuffer batches, int partitionLeaderEpoch) throws IOException {
        return append(batches, partitionLeaderEpoch, true, VerificationGuard.SENTINEL);
    }

    /**
     * As {@link #append(ByteBuffer, int)} if that can be done without blocking the calling thread,
     * else nothing: returns null, having written nothing and changed no state (the buffer's
     * partition leader epochs may have been stamped), and the caller appends again from a thread
     * that may block. What blocks, and so is never done here: waiting for the append lock (its
     * holder may be rolling), rolling a segment (creating its files, writing a producer snapshot),
     * allocating index pages, reopening a file the open-files bound closed, an fsync ({@link
     * Durability#FSYNC}, or {@code flush.messages} reached), recompressing a batch into the topic's
     * {@code compression.type} (CPU-bound). What is done: validation, offsets and producer state in
     * memory, and the write into the active segment's page cache (no fsync). This keeps a server's
     * common append on its event loop while every roll happens elsewhere.
     *
     * @return the result, or null when the append must be done by {@link #append(ByteBuffer, int)}
     */
    public AppendResult appendWithoutBlocking(ByteBuffer batches, int partitionLeaderEpoch)
            throws IOException {
        if (config.durability() == Durability.FSYNC) {
            return null;
        }
        return append(batches, partitionLeaderEpoch, false, VerificationGuard.SENTINEL);
    }

    private AppendResult append(
            ByteBuffer batches, int partitionLeaderEpoch, boolean mayBlock, VerificationGuard guard)
            throws IOException {
        Compression target = config.targetCompression().orElse(null);
        if (!mayBlock && Recompressor.mayBeNeeded(batches, target)) {
            return null; // decompressing and compressing is CPU work a non-blocking caller avoids
        }
        long now = time.milliseconds();
        ValidatedBatches vb = BatchValidator.validate(batches, config, now);
        if (Recompressor.needed(batches, vb, target)) {
            // As Kafka: max.message.bytes applies to the batch as received and as written.
            batches = Recompressor.recompress(batches, vb, target);
            vb = BatchValidator.validate(batches, config, now);
        }
        if (partitionLeaderEpoch != NO_PARTITION_LEADER_EPOCH) {
            for (int i = 0; i < vb.count; i++) {
                batches.putInt(
                        vb.position[i] + PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
            }
        }
        boolean logAppendTime = config.messageTimestampType() == TimestampType.LOG_APPEND_TIME;
        AppendResult result;
        long durableTarget;
        if (mayBlock) {
            lock.lock();
        } else if (!lock.tryLock()) {
            return null; // the holder may be rolling or deleting: waiting could wait on I/O
        }
        try {
            ensureOpen();
            ensureOnline();
            ProducerEntry.BatchMetadata dup = producers.findDuplicate(vb);
            if (dup != null) {
                result =
                        new AppendResult(
                                dup.firstOffset(),
                                dup.lastOffset(),
                                -1,
                                logStartOffset,
                                (int) vb.totalRecords,
                                true);
                durableTarget = dup.lastOffset() + 1;
            } else if (mayBlock) {
                result = appendLocked(batches, vb, now, logAppendTime, guard, null);
                durableTarget = result.lastOffset() + 1;
            } else {
                LogSegment seg = activeSegment();
                if (appendMayBlockLocked(seg, batches.remaining(), vb, now) || !seg.pinIfOpen()) {
                    return null;
                }
                try {
                    result = appendLocked(batches, vb, now, logAppendTime, guard, null);
                } finally {
                    seg.unpin();
                }
                durableTarget = result.lastOffset() + 1;
            }
        } finally {
            lock.unlock();
        }
        if (config.durability() == Durability.FSYNC) {
            try {
                groupCommit.awaitDurable(durableTarget);
            } catch (LogOfflineException e) {
                throw e;
            } catch (IOException | RuntimeException | Error e) {
                // Not acknowledged: recovery truncates to the high watermark, below this batch.
                throw offline("fsync", e);
            }
        }
        notifyAppended(result);
        return result;
    }

    private void notifyAppended(AppendResult result) {
        if (!result.duplicate()) {
            long hw = highWatermark;
            for (LogListener l : listeners) {
                try {
                    l.onAppend(this, hw);
                } catch (RuntimeException e) {
                    LOG.warn("Listener failed on append to {}", tp, e);
                }
            }
        }
    }

    /**
     * Whether appending {@code vb} ({@code bytes} bytes) now would do more than write into the
     * active segment's page cache: roll, allocate index pages, or flush ({@code flush.messages}).
     */
    private boolean appendMayBlockLocked(LogSegment seg, int bytes, ValidatedBatches vb, long now) {
        long last = logEndOffset - 1;
        for (int i = 0; i < vb.count; i++) {
            last += vb.lastOffsetDelta[i] + 1L;
        }
        return seg.shouldRoll(bytes, vb.count, last, now, config.wallClockRollMs())
                || seg.appendMayAllocate(vb)
                || unflushedRecords + vb.totalRecords >= config.flushMessages();
    }

    /**
     * Writes validated batches at the log end. {@code marker} is set (and then {@code buf} is one
     * control batch) for {@link #appendEndTxnMarker}, already checked.
     */
    private AppendResult appendLocked(
            ByteBuffer buf,
            ValidatedBatches vb,
            long now,
            boolean logAppendTime,
            VerificationGuard guard,
            MarkerAppend marker)
            throws IOException {
        long offset = logEndOffset;
        long first = offset;
        ProducerStateManager.Pending pending = null;
        for (int i = 0; i < vb.count; i++) {
            int p = vb.position[i];
            long last = offset + vb.lastOffsetDelta[i];
            buf.putLong(p + BASE_OFFSET_OFFSET, offset);
            if (logAppendTime) {
                short attributes = buf.getShort(p + ATTRIBUTES_OFFSET);
                buf.putShort(p + ATTRIBUTES_OFFSET, (short) (attributes | TIMESTAMP_TYPE_MASK));
                buf.putLong(p + MAX_TIMESTAMP_OFFSET, now);
                writeCrc(buf, p, vb.size[i]);
            }
            if (vb.producerId[i] >= 0 && marker == null) {
                if (pending == null) {
                    pending = new ProducerStateManager.Pending();
                }
                producers.checkAndStage(
                        pending,
                        vb.producerId[i],
                        vb.producerEpoch[i],
                        vb.baseSequence[i],
                        ProducerStateManager.lastSequence(
                                vb.baseSequence[i], vb.lastOffsetDelta[i]),
                        offset,
                        last,
                        buf.getLong(p + MAX_TIMESTAMP_OFFSET),
                        TxnMarkers.isTransactional(vb.attributes[i]),
                        guard);
            }
            offset = last + 1;
        }
        int bytes = buf.remaining();
        LogSegment seg = activeSegment();
        int newSize;
        try {
            if (seg.shouldRoll(bytes, vb.count, offset - 1, now, config.wallClockRollMs())) {
                seg = rollLocked();
            }
            newSize = seg.append(buf, vb, now);
        } catch (IOException | RuntimeException | Error e) {
            // seg.append undid its writes; a failed roll or rollback leaves state that only a
            // recovery from disk sorts out, so every storage fault takes the log offline.
            throw offline("append at offset " + logEndOffset, e);
        }
        if (pending != null) {
            producers.commit(pending);
        }
        if (marker != null) {
            completeTxnLocked(seg, marker, first, now);
        }
        logEndOffset = offset;
        if (config.durability() == Durability.PAGE_CACHE) {
            seg.publish(newSize);
            highWatermark = offset;
            unflushedRecords += vb.totalRecords;
            if (unflushedRecords >= config.flushMessages()) {
                try {
                    flushSegmentsLocked();
                } catch (IOException | RuntimeException | Error e) {
                    // The batch is written and visible, so the producer is told so (the truth);
                    // the log goes offline and recovery keeps it (it is below the watermark).
                    offline("flush after append", e);
                }
            }
        }
        return new AppendResult(
                first,
                offset - 1,
                logAppendTime ? now : -1,
                logStartOffset,
                (int) vb.totalRecords,
                false);
    }

    private GroupCommit.Capture capture() throws IOException {
        lock.lock();
        try {
            ensureOnline(); // an fsync after a failed fsync may "succeed" without the data
            LogSegment s = activeSegment();
            return new GroupCommit.Capture(s, s.size(), s.nextOffset());
        } finally {
            lock.unlock();
        }
    }

    private void publishDurable(LogSegment segment, int position, long nextOffset) {
        segment.publish(position);
        if (nextOffset > highWatermark) {
            highWatermark = nextOffset;
            // a marker that became durable releases its transaction from the LSO; pruned later
        }
        if (nextOffset > recoveryPoint) {
            recoveryPoint = nextOffset;
        }
    }

    private LogSegment rollLocked() throws IOException {
        LogSegment old = activeSegment();
        if (config.durability() == Durability.FSYNC) {
            old.flush();
            groupCommit.markDurable(old, old.size(), old.nextOffset());
        }
        old.closeForAppend();
        LogSegment next = LogSegment.create(dir, old.nextOffset(), config, files);
        writeProducerSnapshot(old.nextOffset());
        if (config.durability() == Durability.FSYNC) {
            fsyncDir();
        }
        LogSegment[] s = Arrays.copyOf(segments, segments.length + 1);
        s[s.length - 1] = next;
        segments = s;
        if (scheduler != null && config.durability() == Durability.PAGE_CACHE) {
            scheduleFlushUpTo(next.baseOffset);
        }
        SegmentInfo info = old.info(tp, false);
        for (LogListener l : listeners) {
            try {
                l.onSegmentClosed(this, info);
            } catch (RuntimeException e) {
                LOG.warn("Listener failed on segment close of {}", tp, e);
            }
        }
        return next;
    }

    /**
     * As Kafka after a roll: fsyncs the closed segments in the background and moves the recovery
     * point to their end, so an unclean restart only rescans the active segment.
     */
    private void scheduleFlushUpTo(long target) {
        try {
            scheduler.execute(
                    () -> {
                        try {
                            flushUpTo(target);
                        } catch (IOException | RuntimeException | Error e) {
                            LOG.warn("Background flush of {} up to {} failed", tp, target, e);
                        }
                    });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.debug("Scheduler stopped; {} is flushed on close", tp);
        }
    }

    /** Fsyncs every segment below {@code target} (closed ones) and advances the recovery point. */
    void flushUpTo(long target) throws IOException {
        if (closed || target <= recoveryPoint) {
            return;
        }
        LogSegment[] segs = segments;
        for (int i = LogReads.floorIndex(segs, recoveryPoint); i < segs.length; i++) {
            LogSegment s = segs[i];
            if (s.baseOffset >= target) {
                break;
            }
            try {
                s.flush();
            } catch (java.nio.channels.ClosedChannelException e) {
                return; // the log was closed (flushed there) or the segment deleted
            } catch (IOException | RuntimeException | Error e) {
                lock.lock();
                try {
                    if (!closed) {
                        throw offline("background flush up to " + target, e);
                    }
                    throw e;
                } finally {
                    lock.unlock();
                }
            }
        }
        lock.lock();
        try {
            if (!closed && target > recoveryPoint) {
                recoveryPoint = target;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A snapshot only shortens the next open; failing to write one must not fail the log. The
     * offsets of the snapshots on disk are listed once and then kept (under the lock): a roll would
     * otherwise read the whole folder to find the one snapshot to delete.
     */
    private void writeProducerSnapshot(long offset) {
        try {
            if (snapshotOffsets == null) {
                snapshotOffsets = ProducerSnapshots.list(dir);
            }
            ProducerSnapshots.write(dir, offset, producers.entries(), snapshotOffsets);
        } catch (IOException e) {
            snapshotOffsets = null; // listed again next time
            LOG.warn("Cannot write producer snapshot of {} at {}", tp, offset, e);
        }
    }

    private void fsyncDir() {
        RecoveryPointCheckpoint.fsyncDir(dir);
    }

    /**
     * Batches from the one containing {@code startOffset}, ending on a batch boundary at or below
     * the high watermark, at most {@code maxBytes} unless the first batch alone is larger (then
     * exactly that batch). {@code startOffset == highWatermark} gives an empty slice.
     *
     * @throws LogOffsetOutOfRangeException outside [logStartOffset, highWatermark]
     */
    public FileSlice read(long startOffset, int maxBytes) throws IOException {
        ensureOnline();
        long hw = highWatermark;
        LogSegment[] segs = segments;
        return LogReads.read(tp, segs, logStartOffset, hw, startOffset, maxBytes);
    }

    /**
     * As {@link #read(long, int)}, not including batches at or past {@code maxOffset} (unless
     * {@code maxOffset <= startOffset}: then empty).
     */
    public FileSlice read(long startOffset, int maxBytes, long maxOffset) throws IOException {
        long hw = highWatermark;
        if (maxOffset <= startOffset && startOffset >= logStartOffset && startOffset <= hw) {
            return FileSlice.emptyAt(startOffset);
        }
        LogSegment[] segs = segments;
        return LogReads.read(tp, segs, logStartOffset, hw, startOffset, maxBytes, maxOffset);
    }

    /**
     * Records that the hot bytes of offsets {@code [from, to)} are known to be corrupt (found by
     * the offloader or a deep verify), so that a reader that has another copy (the cold tier) uses
     * it. Kept in memory only: after a restart the range is reported again when found again.
     */
    public void markDamaged(long from, long to, String reason) {
        if (damaged.mark(from, to)) {
            LOG.error("Hot copy of offsets [{}, {}) of {} is corrupt: {}", from, to, tp, reason);
        }
    }

    /** One past the end of the damaged range holding {@code offset}, or -1 if it is not damaged. */
    public long damagedRangeEnd(long offset) {
        return damaged.endOf(offset);
    }

    /** Start of the first damaged range above {@code offset}, or {@code Long.MAX_VALUE}. */
    public long nextDamagedStart(long offset) {
        return damaged.nextStart(offset);
    }

    // ---------------------------------------------------------------- transactions

    /**
     * The last stable offset: the first offset of the oldest open transaction (or of a completed
     * one whose marker is not yet below the high watermark, FSYNC mode), else the high watermark;
     * never below the log start. Lock-free.
     */
    public long lastStableOffset() {
        return Math.max(logStartOffset, producers.lastStableOffset(highWatermark));
    }

    /**
     * Aborted transactions a {@code read_committed} reader of {@code [from, upTo)} must know
     * (Kafka's {@code collectAbortedTxns}): entries of the segments' {@code .txnindex} files with
     * {@code lastOffset >= from} and {@code firstOffset < upTo}, in index order, from the segment
     * holding {@code from} on, up to the first entry whose last stable offset reaches {@code upTo}.
     * Lock-free.
     */
    public java.util.List<AbortedTxn> abortedTransactions(long from, long upTo) throws IOException {
        return TxnMarkers.collect(segments, from, upTo);
    }

    /** The transactions open in this partition, oldest first. */
    public java.util.List<OngoingTxn> ongoingTransactions() {
        lock.lock();
        try {
            return producers.ongoingTransactions();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts KIP-890 verification of a producer's transactional batch: the guard to hand back with
     * the append once the coordinator confirmed the partition, or {@link
     * VerificationGuard#SENTINEL} when the producer's transaction is already ongoing here (then no
     * coordinator call is needed). Takes the append lock: may wait for a roll.
     */
    public VerificationGuard maybeStartTxnVerification(
            long producerId, int baseSequence, short producerEpoch, boolean supportsEpochBump) {
        lock.lock();
        try {
            return producers.maybeStartVerification(
                    producerId,
                    baseSequence,
                    producerEpoch,
                    supportsEpochBump,
                    time.milliseconds());
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #maybeStartTxnVerification} if the append lock is free now (an event loop must not
     * wait for a roll holding it), else null: the caller asks again from a thread that may block.
     */
    public VerificationGuard maybeStartTxnVerificationWithoutBlocking(
            long producerId, int baseSequence, short producerEpoch, boolean supportsEpochBump) {
        if (!lock.tryLock()) {
            return null;
        }
        try {
            return producers.maybeStartVerification(
                    producerId,
                    baseSequence,
                    producerEpoch,
                    supportsEpochBump,
                    time.milliseconds());
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #append(ByteBuffer, int)}, with the KIP-890 guard of a transactional batch: a
     * transactional batch that starts a transaction here needs the guard {@link
     * #maybeStartTxnVerification} handed out for its producer (and not cleared since by a marker or
     * an append), else {@link ProducerStateException.Kind#INVALID_TXN_STATE}; the plain {@code
     * append} passes {@link VerificationGuard#SENTINEL}, which verifies nothing.
     */
    public AppendResult append(
            ByteBuffer batches, int partitionLeaderEpoch, VerificationGuard guard)
            throws IOException {
        return append(batches, partitionLeaderEpoch, true, guard);
    }

    /** As {@link #appendWithoutBlocking(ByteBuffer, int)}, with the KIP-890 guard. */
    public AppendResult appendWithoutBlocking(
            ByteBuffer batches, int partitionLeaderEpoch, VerificationGuard guard)
            throws IOException {
        if (config.durability() == Durability.FSYNC) {
            return null;
        }
        return append(batches, partitionLeaderEpoch, false, guard);
    }

    /** A checked marker on its way into the log. */
    private record MarkerAppend(
            long producerId, short producerEpoch, int coordinatorEpoch, boolean commit) {}

    /**
     * Appends a commit or abort marker (control batch) ending {@code producerId}'s transaction, as
     * Kafka's {@code appendAsLeader(origin = COORDINATOR)}: checks the coordinator epoch and the
     * producer epoch (TV2: above the current one, or equal with no open transaction: a retry),
     * completes the transaction, records an aborted one in the active segment's {@code .txnindex},
     * and advances the last stable offset. A marker for a producer with no open transaction here is
     * written too (Kafka does): it only updates the producer's epochs. In {@link Durability#FSYNC}
     * mode returns once the marker is durable.
     *
     * @throws ProducerStateException when fenced (coordinator epoch) or the epoch is stale
     */
    public AppendResult appendEndTxnMarker(
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            int transactionVersion)
            throws IOException {
        AppendResult result;
        lock.lock();
        try {
            ensureOpen();
            ensureOnline();
            producers.checkMarker(producerId, producerEpoch, coordinatorEpoch, transactionVersion);
            long now = time.milliseconds();
            ByteBuffer buf =
                    TxnMarkers.build(
                            logEndOffset,
                            now,
                            0,
                            producerId,
                            producerEpoch,
                            coordinatorEpoch,
                            commit);
            ValidatedBatches vb = BatchValidator.validate(buf, config, now, true);
            boolean logAppendTime = config.messageTimestampType() == TimestampType.LOG_APPEND_TIME;
            result =
                    appendLocked(
                            buf,
                            vb,
                            now,
                            logAppendTime,
                            VerificationGuard.SENTINEL,
                            new MarkerAppend(producerId, producerEpoch, coordinatorEpoch, commit));
        } finally {
            lock.unlock();
        }
        if (config.durability() == Durability.FSYNC) {
            try {
                groupCommit.awaitDurable(result.lastOffset() + 1);
            } catch (LogOfflineException e) {
                throw e;
            } catch (IOException | RuntimeException | Error e) {
                throw offline("fsync", e);
            }
        }
        notifyAppended(result);
        return result;
    }

    /**
     * Applies a written marker to the producer state and, for an aborted transaction, appends its
     * entry to the txn index of {@code seg} (the segment the marker went to). Under the lock.
     */
    private void completeTxnLocked(LogSegment seg, MarkerAppend m, long markerOffset, long now)
            throws IOException {
        long lsoAfter = producers.lastStableOffsetAfter(m.producerId(), markerOffset);
        ProducerStateManager.CompletedTxn done =
                producers.applyMarker(
                        m.producerId(),
                        m.producerEpoch(),
                        m.coordinatorEpoch(),
                        m.commit(),
                        markerOffset,
                        now,
                        // also in page-cache mode: the transaction stays in the LSO until the high
                        // watermark passes the marker, so that a lock-free reader never sees the
                        // LSO move past data whose abort entry it cannot see yet
                        true);
        producers.pruneUnstable(highWatermark);
        if (done != null && done.aborted()) {
            try {
                seg.txnIndex()
                        .append(
                                new AbortedTxn(
                                        done.producerId(),
                                        done.firstOffset(),
                                        markerOffset,
                                        lsoAfter));
            } catch (IOException | RuntimeException e) {
                // the marker is in the log: recovery rebuilds the index from it
                throw offline("txn index append at offset " + markerOffset, e);
            }
        }
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The highest start given to {@link #advanceLogStartOffset} (capped at the high watermark
     * then), 0 if none: unlike {@link #logStartOffset()}, not moved by retention or by offload.
     */
    public long requestedLogStartOffset() {
        return requestedLogStart;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    /** Readable end: = logEndOffset in PAGE_CACHE mode; the fsynced end in FSYNC mode. */
    public long highWatermark() {
        return highWatermark;
    }

    /** Offset below which data and indexes are fsynced (for the recovery-point checkpoint). */
    public long recoveryPoint() {
        return recoveryPoint;
    }

    /** First record whose timestamp is {@code >= timestampMs} (Kafka's ListOffsets semantics). */
    public Optional<TimestampOffset> offsetForTimestamp(long timestampMs) {
        long hw = highWatermark;
        return LogReads.offsetForTimestamp(segments, hw, timestampMs);
    }

    /**
     * The largest timestamp in the log and the offset of the first record carrying it (ListOffsets
     * MAX_TIMESTAMP, as Kafka 3.8+ answers it: a record offset, not a batch's last offset).
     */
    public Optional<TimestampOffset> maxTimestamp() {
        long hw = highWatermark;
        return LogReads.maxTimestamp(segments, hw);
    }

    /** Snapshot of the segments, oldest first; the last one is active. */
    public List<SegmentInfo> segments() {
        LogSegment[] segs = segments;
        List<SegmentInfo> out = new ArrayList<>(segs.length);
        for (int i = 0; i < segs.length; i++) {
            out.add(segs[i].info(tp, i == segs.length - 1));
        }
        return out;
    }

    public void addListener(LogListener l) {
        listeners.add(l);
    }

    public void removeListener(LogListener l) {
        listeners.remove(l);
    }

    /**
     * Rolls the active segment if {@code segment.ms} passed since its first batch, or the config's
     * {@link LogConfig#wallClockRollMs} since its first append (housekeeping calls it for every
     * partition, idle ones too). An empty active segment never rolls.
     */
    public void maybeRoll() throws IOException {
        lock.lock();
        try {
            if (!closed
                    && !offlineState.isOffline()
                    && activeSegment().timeToRoll(time.milliseconds(), config.wallClockRollMs())) {
                try {
                    rollLocked();
                } catch (IOException | RuntimeException | Error e) {
                    throw offline("time-based roll", e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deletes the oldest closed segments that are beyond {@code local.retention.ms} (by their
     * largest timestamp) or {@code local.retention.bytes}, but never one whose next offset is above
     * {@code maxDeletableOffset}. Advances the log start offset. Deleted files are renamed to
     * {@code .deleted} and removed after {@code file.delete.delay.ms}.
     *
     * @return the number of segments deleted
     */
    public int maybeDeleteSegments(long maxDeletableOffset) throws IOException {
        deleter.deleteDue();
        if (config.localRetentionMs().isEmpty() && config.localRetentionBytes().isEmpty()) {
            return 0;
        }
        long now = time.milliseconds();
        lock.lock();
        try {
            if (closed || offlineState.isOffline()) {
                return 0;
            }
            LogSegment[] segs = segments;
            int n =
                    LocalRetention.deletablePrefix(
                            // the LSO, not only the high watermark: an open transaction's first
                            // offset stays readable, so a read_committed reader can still skip it
                            segs, config, now, maxDeletableOffset, lastStableOffset());
            if (n == 0) {
                return 0;
            }
            segments = Arrays.copyOfRange(segs, n, segs.length);
            logStartOffset = Math.max(segments[0].baseOffset, requestedLogStart);
            for (int i = 0; i < n; i++) {
                segs[i].renameToDeleted();
                deleter.schedule(segs[i]);
            }
            LOG.info("Deleted {} segments of {}; log start offset {}", n, tp, logStartOffset);
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves the log start offset up to {@code offset} (at most the last stable offset; Kafka's
     * DeleteRecords): reads below it fail with {@link LogOffsetOutOfRangeException}, and the closed
     * segments wholly below it (whose successor starts at or below it) are deleted as retention
     * deletes them (renamed, removed after {@code file.delete.delay.ms}). The active segment always
     * stays. Never moves the start back. Not durable by itself: the caller records the start
     * elsewhere and gives it again after every open.
     *
     * @return the log start offset now
     */
    public long advanceLogStartOffset(long offset) throws IOException {
        lock.lock();
        try {
            if (closed) {
                throw new IOException(tp + " is closed");
            }
            // Kafka caps at the high watermark; the LSO keeps an open transaction's start (and
            // so its abort entry's first offset) inside the log
            long start = Math.min(offset, lastStableOffset());
            requestedLogStart = Math.max(requestedLogStart, start);
            if (start <= logStartOffset) {
                return logStartOffset;
            }
            LogSegment[] segs = segments;
            int n = 0;
            while (n < segs.length - 1 && segs[n + 1].baseOffset <= start) {
                n++;
            }
            if (n > 0) {
                segments = Arrays.copyOfRange(segs, n, segs.length);
                for (int i = 0; i < n; i++) {
                    segs[i].renameToDeleted();
                    deleter.schedule(segs[i]);
                }
            }
            logStartOffset = Math.max(segments[0].baseOffset, start);
            LOG.info(
                    "Log start offset of {} moved to {} ({} segments deleted)",
                    tp,
                    logStartOffset,
                    n);
            return logStartOffset;
        } finally {
            lock.unlock();
        }
    }

    /** Fsyncs every segment with unflushed data and advances the recovery point. */
    public void flush() throws IOException {
        if (closed) {
            return;
        }
        if (config.durability() == Durability.FSYNC) {
            ensureOnline();
            try {
                groupCommit.awaitDurable(logEndOffset);
            } catch (LogOfflineException e) {
                throw e;
            } catch (IOException | RuntimeException | Error e) {
                throw offline("fsync", e);
            }
            return;
        }
        lock.lock();
        try {
            if (!closed) {
                ensureOnline();
                try {
                    flushSegmentsLocked();
                } catch (IOException | RuntimeException | Error e) {
                    throw offline("flush", e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Flushes when {@code flush.ms} has passed since the last flush (called by the scheduler). */
    public void maybeFlush() throws IOException {
        Optional<java.time.Duration> ms = config.flushMs();
        if (ms.isPresent()
                && !offlineState.isOffline()
                && logEndOffset > recoveryPoint
                && time.milliseconds() - lastFlushMs >= ms.get().toMillis()) {
            flush();
        }
    }

    private void flushSegmentsLocked() throws IOException {
        long target = logEndOffset;
        LogSegment[] segs = segments;
        for (int i = LogReads.floorIndex(segs, recoveryPoint); i < segs.length; i++) {
            segs[i].flush();
        }
        recoveryPoint = Math.max(recoveryPoint, target);
        unflushedRecords = 0;
        lastFlushMs = time.milliseconds();
    }

    /** Forgets idempotent producers idle for {@code producer.id.expiration.ms} (scheduler). */
    public int maybeExpireProducers() {
        lock.lock();
        try {
            return producers.expire(time.milliseconds(), config.producerIdExpiration().toMillis());
        } finally {
            lock.unlock();
        }
    }

    /** The idempotent state of a producer (epoch and last batches), if known. */
    public Optional<ProducerEntry> producerState(long producerId) {
        lock.lock();
        try {
            return producers.entry(producerId);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Every idempotent producer this partition remembers (Kafka's active producers, as
     * DescribeProducers lists them), in no particular order.
     */
    public java.util.List<ProducerEntry> producerStates() {
        lock.lock();
        try {
            return producers.entries();
        } finally {
            lock.unlock();
        }
    }

    /** Number of fsyncs done by FSYNC-mode flushers so far (group commit observability). */
    public long groupCommitFsyncs() {
        return groupCommit.fsyncs();
    }

    /**
     * The exclusion between the log cleaner and a reader of this partition's closed segment files
     * (the offloader): while held, the cleaner replaces no segment of this partition, so the files
     * {@link #segments()} names keep their content. Blocks while a cleaning of this partition runs
     * (one group at most is being swapped, but a whole cleaning may take a while). Release with
     * {@link Exclusion#close()}, from any thread.
     */
    public Exclusion exclusive() throws InterruptedException {
        exclusive.acquire();
        return new Exclusion(exclusive);
    }

    /** As {@link #exclusive()}, waiting at most {@code wait}; null when it did not come. */
    Exclusion exclusive(java.time.Duration wait) {
        try {
            return exclusive.tryAcquire(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                    ? new Exclusion(exclusive)
                    : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** As {@link #exclusive()} if free now, else null (the cleaner skips a busy partition). */
    public Exclusion tryExclusive() {
        return exclusive.tryAcquire() ? new Exclusion(exclusive) : null;
    }

    /** A held {@link #exclusive()}; closing it twice releases it once. */
    public static final class Exclusion implements AutoCloseable {
        private final java.util.concurrent.Semaphore semaphore;
        private final java.util.concurrent.atomic.AtomicBoolean held =
                new java.util.concurrent.atomic.AtomicBoolean(true);

        private Exclusion(java.util.concurrent.Semaphore semaphore) {
            this.semaphore = semaphore;
        }

        @Override
        public void close() {
            if (held.compareAndSet(true, false)) {
                semaphore.release();
            }
        }
    }

    /** Fault injection at the steps of {@link #replaceSegments} (crash-point tests). */
    @FunctionalInterface
    interface SwapSteps {
        SwapSteps NONE = step -> {};

        /** Called at each named step; a throwable there is a crash at that point. */
        void reached(String step) throws IOException;
    }

    private volatile SwapSteps swapSteps = SwapSteps.NONE;

    void swapSteps(SwapSteps steps) {
        this.swapSteps = steps;
    }

    /** The segment array as readers see it now (oldest first, last active). */
    LogSegment[] segmentArray() {
        return segments;
    }

    /** The time source of this log. */
    Time time() {
        return time;
    }

    /** The open-files bound the segments of this log count against. */
    OpenFiles openFiles() {
        return files;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Every remembered producer's state: the cleaner keeps each one's last batch (possibly
     * emptied), or its last marker, so that a reopened log rebuilds every producer's sequence and
     * epoch.
     */
    java.util.Map<Long, ProducerEntry> lastOffsetsOfProducers() {
        lock.lock();
        try {
            java.util.Map<Long, ProducerEntry> out = new java.util.HashMap<>();
            for (ProducerEntry e : producers.entries()) {
                out.put(e.producerId(), e);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Replaces {@code group} (consecutive closed segments of this log) by the finished cleaned
     * segment of base offset {@code group[0].baseOffset}: the only step of a cleaning under the
     * append lock. In this order, as Kafka's {@code replaceSegments}: the {@code .cleaned} files
     * become {@code .swap} (the commit point: recovery completes the swap from here) and the folder
     * is fsynced; the old segments' files are renamed to {@code .deleted} (their channels stay open
     * for in-flight reads, and {@code file.delete.delay.ms} later they go); the {@code .swap} files
     * take their final names, the folder is fsynced; the new segment is opened and published in the
     * segment array. A storage fault during these steps takes the log offline (its reload completes
     * or discards the swap as recovery does).
     *
     * @return false, changing nothing, when the group is no longer part of the log (retention,
     *     DeleteRecords or a reload removed one of them) or the log is closed or offline
     */
    boolean replaceSegments(LogSegment[] group) throws IOException {
        long base = group[0].baseOffset;
        cleaned = true; // a reload from disk must accept the gaps from the commit point on
        lock.lock();
        try {
            if (closed || offlineState.isOffline()) {
                return false;
            }
            LogSegment[] segs = segments;
            int at = -1;
            for (int i = 0; i < segs.length; i++) {
                if (segs[i] == group[0]) {
                    at = i;
                    break;
                }
            }
            if (at < 0 || at + group.length >= segs.length) {
                return false; // gone, or it would reach the active segment
            }
            for (int k = 0; k < group.length; k++) {
                if (segs[at + k] != group[k]) {
                    return false;
                }
            }
            LogSegment fresh;
            SwapSteps steps = swapSteps;
            try {
                steps.reached("cleaned");
                CleanedSegment.rename(
                        dir, base, CleanedSegment.CLEANED_SUFFIX, CleanedSegment.SWAP_SUFFIX);
                fsyncDir();
                steps.reached("swap");
                for (int k = 0; k < group.length; k++) {
                    group[k].renameToDeleted();
                    steps.reached("deleted-" + k);
                }
                CleanedSegment.rename(dir, base, CleanedSegment.SWAP_SUFFIX, "");
                fsyncDir();
                steps.reached("final");
                fresh = LogSegment.open(dir, base, config, false, false, true, files);
            } catch (IOException | RuntimeException | Error e) {
                throw offline("swap of the cleaned segment " + base, e);
            }
            LogSegment[] next = new LogSegment[segs.length - group.length + 1];
            System.arraycopy(segs, 0, next, 0, at);
            next[at] = fresh;
            System.arraycopy(
                    segs, at + group.length, next, at + 1, segs.length - at - group.length);
            segments = next;
            for (LogSegment old : group) {
                deleter.schedule(old);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    private LogSegment activeSegment() {
        LogSegment[] s = segments;
        return s[s.length - 1];
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("Log " + tp + " is closed");
        }
    }

    private void ensureOnline() throws LogOfflineException {
        offlineState.check();
    }

    /** True while a storage fault keeps the log offline (until {@link #maybeRecover()}). */
    public boolean isOffline() {
        return offlineState.isOffline();
    }

    /** Takes the log offline after {@code cause}; returns the exception to throw. */
    private LogOfflineException offline(String what, Throwable cause) {
        lock.lock();
        try {
            return offlineState.takeOffline(what, cause, logEndOffset, highWatermark);
        } finally {
            lock.unlock();
        }
    }

    /**
     * If the log is offline and its retry delay has passed, reopens it from disk ({@link
     * OfflineState#reload}: recovered, truncated after the last acknowledged offset, producer state
     * rebuilt) and puts it back online. A failure (the disk still full) keeps it offline and
     * doubles the delay. Called by {@link LogManager}'s housekeeping.
     *
     * @return true when the log is online after the call
     */
    public boolean maybeRecover() {
        if (!offlineState.isOffline()) {
            return true;
        }
        lock.lock();
        try {
            if (closed || !offlineState.attemptDue()) {
                return !offlineState.isOffline();
            }
            for (LogSegment s : segments) {
                s.closeQuietly(); // in-flight reads of these fail; new ones are refused
            }
            OfflineState.Reloaded r;
            try {
                r =
                        OfflineState.reload(
                                dir,
                                config,
                                mayHaveOffsetGaps(),
                                recoveryPoint,
                                highWatermark,
                                producers,
                                files);
            } catch (IOException | RuntimeException | Error e) {
                offlineState.attemptFailed(e);
                return false;
            }
            LogSegment[] segs = r.segments().toArray(new LogSegment[0]);
            segments = segs;
            if (Math.max(segs[0].baseOffset, requestedLogStart) != logStartOffset) {
                LOG.warn(
                        "{}: log start offset {} after recovery from disk (was {})",
                        tp,
                        segs[0].baseOffset,
                        logStartOffset);
                logStartOffset = Math.max(segs[0].baseOffset, requestedLogStart);
            }
            logEndOffset = segs[segs.length - 1].nextOffset();
            highWatermark = logEndOffset;
            recoveryPoint = logEndOffset;
            unflushedRecords = 0;
            lastFlushMs = time.milliseconds();
            groupCommit.reset(logEndOffset);
            snapshotOffsets = null; // the reload may have deleted some
            offlineState.online(logEndOffset, r.droppedBytes());
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Flushes, trims the active indexes and closes every file; deletes pending segments now. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (offlineState.isOffline()) {
                offlineState
                        .attemptNow(); // a last attempt, so a restart finds the log as acknowledged
                maybeRecover();
            }
            if (offlineState.isOffline()) {
                closed = true;
                for (LogSegment s : segments) {
                    s.closeQuietly();
                }
                // No clean-shutdown marker then: the next open recovers from disk.
                offlineState.check();
            }
            flushSegmentsLocked();
            writeProducerSnapshot(logEndOffset);
            closed = true;
            for (LogSegment s : segments) {
                s.close();
            }
            deleter.deleteAllNow();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "PartitionLog{" + tp + ", [" + logStartOffset + ", " + logEndOffset + ")}";
    }
}

package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * One segment: {@code <20-digit base offset>.log} (record batches back to back, written through a
 * {@link FileChannel}, never mmapped) with its {@link OffsetIndex} and {@link TimeIndex}. The
 * channel belongs to a {@link SegmentFile}: opened on use and closed while idle by the log dir's
 * {@link OpenFiles} bound; every method that touches it pins it for its duration.
 *
 * <p>Thread-safety: mutators are called by one thread at a time (the log's append lock); readers
 * call {@link #read} and {@link #findOffsetByTimestamp} without locks and only see bytes below the
 * volatile {@link #readableSize}, which is published after the bytes were written.
 */
final class LogSegment {
    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";
    static final String DELETED_SUFFIX = ".deleted";
    static final String TXN_INDEX_SUFFIX = ".txnindex";

    /** Every file a segment may have; the txn index only once an abort was written. */
    static final String[] ALL_SUFFIXES = {
        LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX
    };

    /** Bytes of a batch header read when scanning for offsets: base offset .. lastOffsetDelta. */
    private static final int SCAN_HEADER = LAST_OFFSET_DELTA_OFFSET + 4;

    final long baseOffset;
    private final Path dir;
    private final LogConfig config;
    private volatile Path logFile;
    private final SegmentFile file;
    private OffsetIndex offsetIndex;
    private TimeIndex timeIndex;
    private TxnIndex txnIndex;

    /**
     * The txn index may not match the log (the segment was recovered or truncated, or the file
     * failed its check): the loader rebuilds it from the producer state replay.
     */
    boolean txnIndexStale;

    private int size;
    private volatile int readableSize;
    private volatile long nextOffset;
    private volatile long maxTimestamp = -1;
    private volatile long offsetOfMaxTimestamp = -1;
    private int bytesSinceLastIndexEntry;
    private long rollingBaseMs = -1;

    /**
     * The log clock's time of the first append into this segment, or of the first roll check that
     * found it holding records (a segment recovered at startup); -1 while empty. For {@link
     * LogConfig#wallClockRollMs}: never taken from record timestamps.
     */
    private long firstAppendWallMs = -1;

    /** How long before segment.ms this segment rolls (segment.jitter.ms, drawn once). */
    private final long rollJitterMs;

    private volatile boolean closed;

    /** Set once the files were renamed to {@code .deleted}: only those may be deleted then. */
    private volatile boolean renamedToDeleted;

    /** Bytes cut off by the last {@link #recover()}, or -1 when not recovered. */
    long truncatedByRecovery = -1;

    /** What the last {@link #recover()} found invalid, or null when every byte was valid. */
    SegmentCorruption corruption;

    /** Set by {@link #open} before recovery, which reads it: see there. */
    private boolean offsetGaps;

    private LogSegment(Path dir, long baseOffset, LogConfig config, SegmentFile file) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.config = config;
        this.file = file;
        this.logFile = file.path();
        this.nextOffset = baseOffset;
        this.rollJitterMs = config.randomSegmentJitterMs();
    }

    static String fileName(long offset) {
        return String.format("%020d", offset);
    }

    /** Creates a new, empty active segment (replacing leftover files of the same name). */
    static LogSegment create(Path dir, long baseOffset, LogConfig config, OpenFiles files)
            throws IOException {
        Path log = dir.resolve(fileName(baseOffset) + LOG_SUFFIX);
        FileChannel ch;
        try {
            ch = createChannel(log);
        } catch (IOException e) {
            if (!OpenFiles.isOutOfDescriptors(e)) {
                throw e;
            }
            files.evict(0); // give back every idle descriptor of the log dir, then try once more
            ch = createChannel(log);
        }
        LogSegment s = new LogSegment(dir, baseOffset, config, SegmentFile.opened(files, log, ch));
        try {
            s.txnIndex = TxnIndex.empty(dir.resolve(fileName(baseOffset) + TXN_INDEX_SUFFIX));
            s.txnIndex.deleteIfExists();
            s.openIndexes(true, true);
        } catch (IOException | RuntimeException e) {
            s.closeQuietly();
            throw e;
        }
        s.file.markUnflushed();
        return s;
    }

    private static FileChannel createChannel(Path log) throws IOException {
        return FileChannel.open(
                log,
                StandardOpenOption.CREATE,
                StandardOpenOption.READ,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
    }

    /**
     * Opens an existing segment. With {@code recover}, every batch is validated, the file is
     * truncated after the last valid one and both indexes are rebuilt. Without it, the indexes are
     * loaded and checked.
     *
     * @param offsetGaps whether recovery accepts offset gaps between batches (the segment may have
     *     been cleaned): then a batch must only start above the previous one's last offset;
     *     otherwise exactly at the next offset, which also catches a damaged base offset (a field
     *     outside the CRC)
     * @throws CorruptIndexException (only without recover) when an index is missing or insane
     */
    static LogSegment open(
            Path dir,
            long baseOffset,
            LogConfig config,
            boolean active,
            boolean recover,
            boolean offsetGaps,
            OpenFiles files)
            throws IOException {
        Path log = dir.resolve(fileName(baseOffset) + LOG_SUFFIX);
        LogSegment s = new LogSegment(dir, baseOffset, config, SegmentFile.lazy(files, log));
        s.offsetGaps = offsetGaps;
        // pinned while loading; afterwards the bound may close the channel until the next use
        s.file.acquire();
        boolean ok = false;
        try {
            Path txn = dir.resolve(fileName(baseOffset) + TXN_INDEX_SUFFIX);
            if (recover) {
                s.txnIndex = TxnIndex.empty(txn);
                s.openIndexes(true, true);
                s.recover();
                if (!active) {
                    s.closeForAppend();
                }
            } else {
                s.loadExisting(active);
                try {
                    s.txnIndex = TxnIndex.load(txn, baseOffset, s.nextOffset);
                } catch (CorruptIndexException e) {
                    s.txnIndex = TxnIndex.empty(txn);
                    s.txnIndexStale = true;
                    LoggerHolder.LOG.warn("Rebuilding {}: {}", txn, e.getMessage());
                }
            }
            ok = true;
            return s;
        } finally {
            s.file.release();
            if (!ok) {
                s.closeQuietly();
            }
        }
    }

    private void openIndexes(boolean writable, boolean fresh) throws IOException {
        String name = fileName(baseOffset);
        offsetIndex =
                new OffsetIndex(
                        dir.resolve(name + INDEX_SUFFIX),
                        baseOffset,
                        config.segmentIndexBytes(),
                        writable,
                        fresh,
                        file.limiter());
        timeIndex =
                new TimeIndex(
                        dir.resolve(name + TIME_INDEX_SUFFIX),
                        baseOffset,
                        config.segmentIndexBytes(),
                        writable,
                        fresh,
                        file.limiter());
    }

    private void loadExisting(boolean active) throws IOException {
        String name = fileName(baseOffset);
        if (!Files.exists(dir.resolve(name + INDEX_SUFFIX))
                || !Files.exists(dir.resolve(name + TIME_INDEX_SUFFIX))) {
            throw new CorruptIndexException("Missing index files of segment " + logFile);
        }
        openIndexes(active, false);
        FileChannel channel = file.pinnedChannel();
        size = (int) Math.min(channel.size(), Integer.MAX_VALUE);
        offsetIndex.sanityCheck(size);
        int n = offsetIndex.entries();
        long scanFrom = n == 0 ? 0 : offsetIndex.position(n - 1);
        long expected = n == 0 ? baseOffset : -1;
        LogScanner sc = new LogScanner(channel, scanFrom, size, expected, false, false);
        long next = n == 0 ? baseOffset : baseOffset + offsetIndex.relativeOffset(n - 1) + 1;
        long maxTs = timeIndex.lastTimestamp();
        long maxOff =
                timeIndex.entries() == 0
                        ? -1
                        : baseOffset + timeIndex.relativeOffset(timeIndex.entries() - 1);
        long bytesAfterEntry = 0;
        while (sc.next()) {
            next = sc.lastOffset + 1;
            if (sc.maxTimestamp > maxTs) {
                maxTs = sc.maxTimestamp;
                maxOff = sc.lastOffset;
            }
            bytesAfterEntry += sc.size;
        }
        if (sc.validEnd() != size) {
            throw new CorruptIndexException(
                    "Segment "
                            + logFile
                            + " has an invalid batch after its last index entry: "
                            + sc.stopReason());
        }
        nextOffset = next;
        maxTimestamp = maxTs;
        offsetOfMaxTimestamp = maxOff;
        readableSize = size;
        bytesSinceLastIndexEntry = (int) Math.min(bytesAfterEntry, Integer.MAX_VALUE);
        rollingBaseMs = firstBatchTimestamp();
        closed = !active;
    }

    /**
     * Validates every batch, truncates the file after the last valid one and rebuilds the indexes.
     * Returns the number of bytes truncated.
     */
    long recover() throws IOException {
        file.acquire();
        try {
            return recoverPinned();
        } finally {
            file.release();
        }
    }

    private long recoverPinned() throws IOException {
        truncatedByRecovery = -1;
        offsetIndex.reset();
        timeIndex.reset();
        long maxTs = -1;
        long maxOff = -1;
        bytesSinceLastIndexEntry = 0;
        FileChannel channel = file.pinnedChannel();
        long fileSize = channel.size();
        // A cleaned segment has offset gaps between its batches (and before its first one), so
        // only ascending offsets are required there; the topic's policy now is not enough to know
        // (compact may have been switched back to delete after a cleaning).
        LogScanner sc = new LogScanner(channel, 0, fileSize, baseOffset, true, !offsetGaps);
        long next = baseOffset;
        while (sc.next()) {
            if (sc.maxTimestamp > maxTs) {
                maxTs = sc.maxTimestamp;
                maxOff = sc.lastOffset;
            }
            if (bytesSinceLastIndexEntry > config.indexIntervalBytes() && !offsetIndex.isFull()) {
                offsetIndex.append(sc.lastOffset, (int) sc.position);
                if (!timeIndex.isFull()) {
                    timeIndex.maybeAppend(maxTs, maxOff);
                }
                bytesSinceLastIndexEntry = 0;
            }
            bytesSinceLastIndexEntry += sc.size;
            next = sc.lastOffset + 1;
        }
        long valid = sc.validEnd();
        corruption = null;
        if (valid < fileSize) {
            // before the bytes go: offsets of whole batches after the corruption were assigned
            long endAfter = SegmentCorruption.highestEndAfter(channel, valid + 1, fileSize, next);
            corruption =
                    new SegmentCorruption(
                            logFile, valid, next, sc.stopReason(), fileSize - valid, endAfter);
            channel.truncate(valid);
        }
        file.markUnflushed();
        size = (int) valid;
        readableSize = size;
        nextOffset = next;
        maxTimestamp = maxTs;
        offsetOfMaxTimestamp = maxOff;
        rollingBaseMs = firstBatchTimestamp();
        truncatedByRecovery = fileSize - valid;
        txnIndexStale = true;
        return fileSize - valid;
    }

    private long firstBatchTimestamp() throws IOException {
        if (size < HEADER_SIZE) {
            return -1;
        }
        ByteBuffer h = ByteBuffer.allocate(HEADER_SIZE);
        file.pinnedChannel().read(h, 0);
        return h.getLong(MAX_TIMESTAMP_OFFSET);
    }

    /**
     * Whether the next append of {@code batches} batches ({@code bytes} bytes, ending at {@code
     * lastOffset}) must roll.
     */
    boolean shouldRoll(int bytes, int batches, long lastOffset, long now) {
        return shouldRoll(bytes, batches, lastOffset, now, -1);
    }

    /**
     * As {@link #shouldRoll(int, int, long, long)}, also rolling once {@code wallClockRollMs} (when
     * positive) passed since the first append into the segment.
     */
    boolean shouldRoll(int bytes, int batches, long lastOffset, long now, long wallClockRollMs) {
        if (size == 0) {
            return false;
        }
        if (wallClockDue(now, wallClockRollMs)) {
            return true;
        }
        // each batch may add one entry to each index; the time index keeps one slot for the roll
        return size > config.segmentBytes() - bytes
                || (rollingBaseMs >= 0 && now - rollingBaseMs >= rollAfterMs())
                || offsetIndex.entries() + batches > offsetIndex.maxEntries
                || timeIndex.entries() + batches >= timeIndex.maxEntries
                || lastOffset - baseOffset > Integer.MAX_VALUE;
    }

    /**
     * Pins the log file if its channel is open right now, so that {@link #append} finds it open (a
     * pinned file is never evicted); false when using it would first have to open it again. The
     * caller ends the pin with {@link #unpin()}.
     */
    boolean pinIfOpen() {
        return file.acquireIfOpen() != null;
    }

    /**
     * Whether appending {@code vb} could touch the file system beyond writing into already
     * allocated pages: an index entry landing in a page not yet allocated (its zero write and, on
     * the first one, opening the index's write channel). Counts the entries {@link #append} would
     * add (one where {@code index.interval.bytes} have passed since the last), so that the appends
     * between two entries never count.
     */
    boolean appendMayAllocate(ValidatedBatches vb) {
        int entries = 0;
        long since = bytesSinceLastIndexEntry;
        for (int i = 0; i < vb.count; i++) {
            if (since > config.indexIntervalBytes()) {
                entries++;
                since = 0;
            }
            since += vb.size[i];
        }
        return entries > 0 && (offsetIndex.mayAllocate(entries) || timeIndex.mayAllocate(entries));
    }

    /** Whether segment.ms has passed since the first batch (for the scheduler's roll). */
    boolean timeToRoll(long now) {
        return timeToRoll(now, -1);
    }

    /**
     * As {@link #timeToRoll(long)}, or {@code wallClockRollMs} (when positive) passed since the
     * first append into the segment by the log's clock. Never true for an empty segment.
     */
    boolean timeToRoll(long now, long wallClockRollMs) {
        if (size == 0) {
            return false;
        }
        return wallClockDue(now, wallClockRollMs)
                || (rollingBaseMs >= 0 && now - rollingBaseMs >= rollAfterMs());
    }

    private boolean wallClockDue(long now, long wallClockRollMs) {
        if (wallClockRollMs <= 0 || size == 0) {
            return false;
        }
        if (firstAppendWallMs < 0) {
            firstAppendWallMs = now; // recovered with records: its age counts from now
            return false;
        }
        return now - firstAppendWallMs >= wallClockRollMs;
    }

    /** The log clock's time of the first append into this segment (see the field), or -1. */
    long firstAppendWallMs() {
        return firstAppendWallMs;
    }

    /** Age of the first batch at which this segment rolls: segment.ms less its jitter. */
    long rollAfterMs() {
        return config.maxSegmentMs() - rollJitterMs;
    }

    /**
     * Writes the validated batches of {@code buf} (position..limit, offsets already assigned) at
     * the end of the file and indexes them. Does not publish them to readers.
     *
     * <p>All or nothing: when any write fails (log or index, ENOSPC or other), the log file is
     * truncated back to its size before the call and both indexes keep only their earlier entries,
     * so a batch reported as failed leaves nothing behind.
     *
     * @return the new written size
     * @throws RollbackFailedException (an IOException) when the rollback itself failed: the files
     *     may then hold bytes past the last good position, which only a recovery can cut
     */
    int append(ByteBuffer buf, ValidatedBatches vb, long now) throws IOException {
        int start = buf.position();
        int filePos = size;
        int offsetEntries = offsetIndex.entries();
        int timeEntries = timeIndex.entries();
        int bytesSince = bytesSinceLastIndexEntry;
        long maxTs = maxTimestamp;
        long maxOff = offsetOfMaxTimestamp;
        long last = nextOffset - 1;
        FileChannel channel = file.acquire();
        try {
            ByteBuffer d = buf.duplicate();
            long p = filePos;
            while (d.hasRemaining()) {
                p += channel.write(d, p);
            }
            for (int i = 0; i < vb.count; i++) {
                int bp = vb.position[i];
                last = buf.getLong(bp + BASE_OFFSET_OFFSET) + vb.lastOffsetDelta[i];
                long ts = buf.getLong(bp + MAX_TIMESTAMP_OFFSET);
                if (ts > maxTs) {
                    maxTs = ts;
                    maxOff = last;
                }
                // a full index only makes the index sparser (one huge request on a fresh segment)
                if (bytesSinceLastIndexEntry > config.indexIntervalBytes()
                        && !offsetIndex.isFull()
                        && timeIndex.entries() < timeIndex.maxEntries - 1) {
                    offsetIndex.append(last, filePos + (bp - start));
                    timeIndex.maybeAppend(maxTs, maxOff);
                    bytesSinceLastIndexEntry = 0;
                }
                bytesSinceLastIndexEntry += vb.size[i];
            }
        } catch (IOException | RuntimeException | Error e) {
            offsetIndex.truncateToEntries(offsetEntries);
            timeIndex.truncateToEntries(timeEntries);
            bytesSinceLastIndexEntry = bytesSince;
            try {
                channel.truncate(filePos);
            } catch (IOException | RuntimeException | Error t) {
                RollbackFailedException r =
                        new RollbackFailedException(
                                "Cannot truncate " + logFile + " back to " + filePos, e);
                r.addSuppressed(t);
                throw r;
            }
            throw e;
        } finally {
            file.markUnflushed();
            file.release();
        }
        if (size == 0 && rollingBaseMs < 0) {
            rollingBaseMs = now;
        }
        if (filePos == 0 && firstAppendWallMs < 0) {
            firstAppendWallMs = now;
        }
        size = filePos + (buf.limit() - start);
        maxTimestamp = maxTs;
        offsetOfMaxTimestamp = maxOff;
        nextOffset = last + 1;
        return size;
    }

    /** An append failed and could not be undone: the segment's files are in an unknown state. */
    static final class RollbackFailedException extends IOException {
        RollbackFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Cuts the segment at the first batch whose base offset is {@code >= offset} (batch boundaries
     * only) and rebuilds its indexes; used to drop what was written past the last acknowledged
     * offset before a storage fault. Not for segments with concurrent readers.
     *
     * @return bytes cut off
     */
    long truncateToOffset(long offset) throws IOException {
        FileChannel channel = file.acquire();
        try {
            return truncateToOffset(channel, offset);
        } finally {
            file.release();
        }
    }

    private long truncateToOffset(FileChannel channel, long offset) throws IOException {
        long fileSize = channel.size();
        long cut = -1;
        LogScanner sc = new LogScanner(channel, 0, fileSize, -1, false, false);
        while (sc.next()) {
            if (sc.baseOffset >= offset) {
                cut = sc.position;
                break;
            }
        }
        if (cut < 0) {
            cut = sc.validEnd(); // nothing at or past offset: drop only a torn tail
        }
        if (cut < fileSize) {
            channel.truncate(cut);
        }
        txnIndex.truncateTo(offset);
        if (closed) {
            reactivate();
        }
        recover();
        return fileSize - cut;
    }

    /** Makes bytes below {@code position} visible to readers. */
    void publish(int position) {
        if (position > readableSize) {
            readableSize = position;
        }
    }

    /**
     * Batches starting with the one holding {@code startOffset}, up to {@code maxBytes} (at least
     * one batch), not including batches at or past {@code maxOffset}.
     *
     * <p>Finding the end on a batch boundary does not read every header in between: once the first
     * batch is found, the offset index (which names batch start positions) skips to the last
     * indexed batch that still lies wholly inside the byte limit, and only the headers from there
     * on are read, typically two or three instead of one per batch (64 per MiB of 16 KiB batches).
     *
     * @return the slice, or null when this segment has no readable batch ending at or after {@code
     *     startOffset}
     */
    FileSlice read(long startOffset, int maxBytes, long maxOffset) throws IOException {
        FileChannel ch = file.acquire();
        try {
            FileSlice s = read(ch, startOffset, maxBytes, maxOffset, true);
            // A skip is only taken over published, indexed batches; should the batch the index
            // points at not read back as expected (a concurrent truncation), scan header by header.
            return s != SKIP_FAILED ? s : read(ch, startOffset, maxBytes, maxOffset, false);
        } finally {
            file.release();
        }
    }

    /** Marker: the index skip landed on something that was not a whole batch. */
    private static final FileSlice SKIP_FAILED = new FileSlice((FileChannel) null, 0, 0, -1, -1);

    private FileSlice read(
            FileChannel ch, long startOffset, int maxBytes, long maxOffset, boolean useIndex)
            throws IOException {
        int end = readableSize;
        int pos = startOffset <= baseOffset ? 0 : offsetIndex.lookup(startOffset);
        ByteBuffer h = ByteBuffer.allocate(SCAN_HEADER);
        int startPos = -1;
        long first = -1;
        long next = -1;
        int total = 0;
        boolean skipped = false;
        while (pos < end && end - pos >= HEADER_SIZE) {
            h.clear();
            readFully(ch, h, pos);
            long base = h.getLong(BASE_OFFSET_OFFSET);
            int bsize = h.getInt(LENGTH_OFFSET) + LOG_OVERHEAD;
            long last = base + h.getInt(LAST_OFFSET_DELTA_OFFSET);
            if (base >= maxOffset || bsize > end - pos || bsize < HEADER_SIZE) {
                if (skipped) {
                    return SKIP_FAILED;
                }
                break;
            }
            skipped = false;
            if (startPos < 0) {
                if (last >= startOffset) {
                    startPos = pos;
                    first = base;
                    total = bsize;
                    next = last + 1;
                }
            } else {
                if ((long) total + bsize > maxBytes) {
                    break;
                }
                total += bsize;
                next = last + 1;
            }
            if (startPos >= 0 && total >= maxBytes) {
                break;
            }
            pos += bsize;
            if (useIndex && startPos >= 0) {
                int to =
                        skipTarget(pos, (int) Math.min(end, (long) startPos + maxBytes), maxOffset);
                if (to > pos) {
                    total += to - pos;
                    pos = to;
                    skipped = true;
                }
                useIndex = false;
            }
        }
        if (startPos < 0) {
            return null;
        }
        return new FileSlice(file, startPos, total, first, next);
    }

    /**
     * The start of the last indexed batch that is followed by another indexed batch at or below
     * {@code limit} (so that it and every batch between {@code from} and it end within the limit)
     * and whose records all lie below {@code maxOffset}; or {@code from} when the index offers no
     * such batch after {@code from}.
     */
    private int skipTarget(int from, int limit, long maxOffset) {
        OffsetIndex idx = offsetIndex;
        // Entries name a batch's last offset: below maxOffset means the batch and all before it
        // may be served.
        int k = Math.min(idx.slotAtOrBelowPosition(limit) - 1, idx.slotBelowOffset(maxOffset));
        if (k < 0) {
            return from;
        }
        int p = idx.position(k);
        return p > from ? p : from;
    }

    /**
     * First record with timestamp {@code >= target} below {@code maxOffset}, or null. Uses the time
     * index to skip, then scans batches and the records of the first batch that qualifies.
     */
    TimestampOffset findOffsetByTimestamp(long target, long maxOffset) throws IOException {
        if (maxTimestamp < target) {
            return null;
        }
        FileChannel ch = file.acquire();
        try {
            return findOffsetByTimestamp(ch, target, maxOffset);
        } finally {
            file.release();
        }
    }

    private TimestampOffset findOffsetByTimestamp(FileChannel ch, long target, long maxOffset)
            throws IOException {
        long from = timeIndex.lookup(target);
        int pos = from <= baseOffset ? 0 : offsetIndex.lookup(from);
        int end = readableSize;
        ByteBuffer h = ByteBuffer.allocate(HEADER_SIZE);
        while (pos < end && end - pos >= HEADER_SIZE) {
            h.clear();
            readFully(ch, h, pos);
            int bsize = h.getInt(LENGTH_OFFSET) + LOG_OVERHEAD;
            long base = h.getLong(BASE_OFFSET_OFFSET);
            if (base >= maxOffset || bsize > end - pos) {
                return null;
            }
            if (h.getLong(MAX_TIMESTAMP_OFFSET) >= target) {
                ByteBuffer b = ByteBuffer.allocate(bsize);
                readFully(ch, b, pos);
                MutableRecordBatch batch =
                        MemoryRecords.readableRecords(b).batches().iterator().next();
                Iterator<Record> it = batch.iterator();
                while (it.hasNext()) {
                    Record r = it.next();
                    if (r.timestamp() >= target) {
                        return new TimestampOffset(r.timestamp(), r.offset());
                    }
                }
            }
            pos += bsize;
        }
        return null;
    }

    private void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            if (ch.read(buf, pos + buf.position()) < 0) {
                throw new IOException("Unexpected end of " + logFile + " at " + pos);
            }
        }
        buf.flip();
    }

    /** Appends the final time index entry and trims both indexes (Kafka's roll). */
    void closeForAppend() throws IOException {
        if (timeIndex.entries() < timeIndex.maxEntries && maxTimestamp >= 0) {
            timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
        }
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
        closed = true;
    }

    /** Makes a closed segment the active one again (after later segments were truncated away). */
    void reactivate() throws IOException {
        if (closed) {
            openIndexes(true, false);
            closed = false;
        }
    }

    /** Fsyncs the log file and both indexes. */
    void flush() throws IOException {
        file.force();
        offsetIndex.flush();
        timeIndex.flush();
        txnIndex.flush();
    }

    /** Renames the files to {@code *.deleted}; the channel stays open for in-flight reads. */
    void renameToDeleted() throws IOException {
        String name = fileName(baseOffset);
        for (String suffix : ALL_SUFFIXES) {
            Path f = dir.resolve(name + suffix);
            if (Files.exists(f)) {
                Files.move(
                        f,
                        dir.resolve(name + suffix + DELETED_SUFFIX),
                        StandardCopyOption.ATOMIC_MOVE);
            }
        }
        logFile = dir.resolve(name + LOG_SUFFIX + DELETED_SUFFIX);
        txnIndex.renameTo(dir.resolve(name + TXN_INDEX_SUFFIX + DELETED_SUFFIX));
        file.renamedTo(logFile);
        renamedToDeleted = true;
    }

    /** Closes the channel and deletes the (renamed) files. */
    void closeAndDelete() throws IOException {
        closeQuietly();
        String name = fileName(baseOffset);
        for (String suffix : ALL_SUFFIXES) {
            Files.deleteIfExists(dir.resolve(name + suffix + DELETED_SUFFIX));
            if (!renamedToDeleted) {
                // a cleaned segment of the same base offset may have taken the name since
                Files.deleteIfExists(dir.resolve(name + suffix));
            }
        }
    }

    /** Trims indexes (if still active) and closes the channel. */
    void close() throws IOException {
        try {
            if (!closed) {
                closeForAppend();
            }
        } finally {
            file.close();
        }
    }

    /** Closes the file (at the end of the last transfer still using it); never throws. */
    void closeQuietly() {
        file.close();
        if (offsetIndex != null) {
            offsetIndex.closeQuietly();
        }
        if (timeIndex != null) {
            timeIndex.closeQuietly();
        }
    }

    SegmentInfo info(TopicPartition tp, boolean active) {
        return new SegmentInfo(
                tp, baseOffset, nextOffset, readableSize, maxTimestamp, !active, logFile);
    }

    int size() {
        return size;
    }

    /** Max timestamp of the first batch (Kafka's first batch timestamp), or -1 when empty. */
    long firstBatchTimestampMs() throws IOException {
        file.acquire();
        try {
            return firstBatchTimestamp();
        } finally {
            file.release();
        }
    }

    int readableSize() {
        return readableSize;
    }

    long nextOffset() {
        return nextOffset;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    long offsetOfMaxTimestamp() {
        return offsetOfMaxTimestamp;
    }

    boolean isClosed() {
        return closed;
    }

    /** Fsyncs the log file only (group commit; the indexes are rebuilt by recovery). */
    void forceLog() throws IOException {
        file.force();
    }

    /** The channel, pinned open until {@link #unpin()} (for scans outside this class). */
    FileChannel pin() throws IOException {
        return file.acquire();
    }

    void unpin() {
        file.release();
    }

    SegmentFile file() {
        return file;
    }

    Path logFile() {
        return logFile;
    }

    OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    TimeIndex timeIndex() {
        return timeIndex;
    }

    /** The aborted transactions whose marker is in this segment. */
    TxnIndex txnIndex() {
        return txnIndex;
    }

    private static final class LoggerHolder {
        static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LogSegment.class);
    }
}

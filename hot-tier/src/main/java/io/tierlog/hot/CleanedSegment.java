package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The replacement segment a cleaning writes for a group of segments, in Kafka's files and names:
 * {@code <base>.log.cleaned}, {@code <base>.index.cleaned}, {@code <base>.timeindex.cleaned}, where
 * {@code <base>} is the base offset of the group's first segment. Batches are appended in offset
 * order and indexed as {@link LogSegment#append} indexes them; {@link #finish} writes the last time
 * index entry, trims both indexes and fsyncs the three files. The swap then renames them to {@code
 * .swap} (the commit point: from then on recovery completes the replacement) and to their final
 * names ({@link PartitionLog#replaceSegments}).
 *
 * <p>A cleaned segment always ends at the offset its group ended at: when the group's last batch
 * was removed, an empty batch (a header with no records, as Kafka keeps for a producer's last
 * batch) carries its offsets. So the offsets of the segments stay contiguous, and recovery knows
 * exactly which old segments a {@code .swap} file replaces: those whose base offset lies in {@code
 * [base, next offset of the swap)}.
 *
 * <p>Not thread-safe: written by one cleaner thread.
 */
final class CleanedSegment implements AutoCloseable {
    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    static final String[] FILE_SUFFIXES = LogSegment.ALL_SUFFIXES;

    private final Path dir;
    final long baseOffset;
    private final LogConfig config;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private long size;
    private long nextOffset;
    private long maxTimestamp = -1;
    private long offsetOfMaxTimestamp = -1;
    private long bytesSinceLastIndexEntry;
    private boolean closed;

    private CleanedSegment(
            Path dir,
            long baseOffset,
            LogConfig config,
            FileChannel channel,
            OffsetIndex offsetIndex,
            TimeIndex timeIndex) {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.config = config;
        this.channel = channel;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.nextOffset = baseOffset;
    }

    static Path file(Path dir, long base, String suffix, String state) {
        return dir.resolve(LogSegment.fileName(base) + suffix + state);
    }

    /** Creates the three {@code .cleaned} files (replacing leftovers of an aborted cleaning). */
    static CleanedSegment create(Path dir, long base, LogConfig config, OpenFiles files)
            throws IOException {
        deleteFiles(dir, base, CLEANED_SUFFIX);
        FileChannel ch =
                FileChannel.open(
                        file(dir, base, LogSegment.LOG_SUFFIX, CLEANED_SUFFIX),
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        OffsetIndex oi = null;
        try {
            oi =
                    new OffsetIndex(
                            file(dir, base, LogSegment.INDEX_SUFFIX, CLEANED_SUFFIX),
                            base,
                            config.segmentIndexBytes(),
                            true,
                            true,
                            files);
            TimeIndex ti =
                    new TimeIndex(
                            file(dir, base, LogSegment.TIME_INDEX_SUFFIX, CLEANED_SUFFIX),
                            base,
                            config.segmentIndexBytes(),
                            true,
                            true,
                            files);
            return new CleanedSegment(dir, base, config, ch, oi, ti);
        } catch (IOException | RuntimeException e) {
            if (oi != null) {
                oi.closeQuietly();
            }
            ch.close();
            deleteFiles(dir, base, CLEANED_SUFFIX);
            throw e;
        }
    }

    /**
     * Appends whole batches ({@code buf} position to limit, ascending offsets) and indexes them.
     */
    void append(ByteBuffer buf) throws IOException {
        int start = buf.position();
        ByteBuffer d = buf.duplicate();
        long p = size;
        while (d.hasRemaining()) {
            p += channel.write(d, p);
        }
        for (int bp = start; bp < buf.limit(); ) {
            int bsize = buf.getInt(bp + LENGTH_OFFSET) + LOG_OVERHEAD;
            long last =
                    buf.getLong(bp + BASE_OFFSET_OFFSET)
                            + buf.getInt(bp + LAST_OFFSET_DELTA_OFFSET);
            long ts = buf.getLong(bp + MAX_TIMESTAMP_OFFSET);
            // an emptied batch has no record to carry a timestamp: the time index (which
            // Kafka's tools check against the records) never names one
            boolean empty = buf.getInt(bp + RECORDS_COUNT_OFFSET) == 0;
            if (!empty && ts > maxTimestamp) {
                maxTimestamp = ts;
                offsetOfMaxTimestamp = last;
            }
            if (bytesSinceLastIndexEntry > config.indexIntervalBytes()
                    && !offsetIndex.isFull()
                    && timeIndex.entries() < timeIndex.maxEntries - 1) {
                offsetIndex.append(last, (int) (size + (bp - start)));
                timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
                bytesSinceLastIndexEntry = 0;
            }
            bytesSinceLastIndexEntry += bsize;
            nextOffset = last + 1;
            bp += bsize;
        }
        size = p;
    }

    /**
     * Appends an empty batch for offsets {@code [base, last]} (the group's removed last batch), so
     * that this segment ends where its group ended.
     */
    void appendEmptyBatch(long base, long last, long timestamp) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(
                b,
                RecordBatch.MAGIC_VALUE_V2,
                RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE,
                base,
                last,
                RecordBatch.NO_PARTITION_LEADER_EPOCH,
                TimestampType.CREATE_TIME,
                timestamp,
                false,
                false);
        b.flip();
        append(b);
    }

    long size() {
        return size;
    }

    /**
     * Writes the cleaned segment's {@code .txnindex.cleaned} (no file when {@code aborted} is
     * empty, as Kafka), fsynced; renamed with the other files at the swap.
     */
    void writeTxnIndex(java.util.List<AbortedTxn> aborted) throws IOException {
        Path f = file(dir, baseOffset, LogSegment.TXN_INDEX_SUFFIX, CLEANED_SUFFIX);
        if (aborted.isEmpty()) {
            Files.deleteIfExists(f);
            return;
        }
        TxnIndex.write(f, aborted);
    }

    long nextOffset() {
        return nextOffset;
    }

    /** Final time index entry, trimmed indexes, everything fsynced and closed. */
    void finish() throws IOException {
        if (timeIndex.entries() < timeIndex.maxEntries && maxTimestamp >= 0) {
            timeIndex.maybeAppend(maxTimestamp, offsetOfMaxTimestamp);
        }
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
        channel.force(true);
        offsetIndex.flush();
        timeIndex.flush();
        close();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            offsetIndex.closeQuietly();
            timeIndex.closeQuietly();
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing of it is used any more
            }
        }
    }

    /** Renames the segment's three files from suffix state {@code from} to {@code to}. */
    static void rename(Path dir, long base, String from, String to) throws IOException {
        for (String s : FILE_SUFFIXES) {
            Path f = file(dir, base, s, from);
            if (Files.exists(f)) {
                Files.move(f, file(dir, base, s, to), StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    /** Deletes the segment's files in suffix state {@code state} (".cleaned", ".swap"). */
    static void deleteFiles(Path dir, long base, String state) throws IOException {
        for (String s : FILE_SUFFIXES) {
            Files.deleteIfExists(file(dir, base, s, state));
        }
    }
}

package io.tierlog.hot;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Read-only access to a log dir that is not ours: an Apache Kafka broker's {@code log.dirs} entry
 * or a tierlog dir another process writes. Nothing is ever written into it: files are opened
 * read-only, indexes are not needed (segments are read whole and scanned batch by batch), and Kafka
 * files we do not use ({@code leader-epoch-checkpoint}, {@code *.snapshot}, {@code
 * partition.metadata}, checkpoints, a tierlog dir's {@code .lock}) are ignored; {@code *.txnindex}
 * (Kafka's format and ours) answers {@link #abortedTransactions}; no lock is taken. A batch is
 * served only after its CRC-32C was verified; the scan stops at a torn tail (a segment the broker
 * is still writing).
 *
 * <p>Segment files are opened on use and closed while idle within {@link OpenFiles#defaultMax()} (a
 * broker's dir of 20,000 partitions must not exhaust the descriptors of an offload daemon); a slice
 * pins its file while reading, and an iterator of {@link #batchesFrom} until it is exhausted.
 *
 * <p>Thread-safe. {@link #close()} closes the channels of the slices handed out.
 */
public final class ReadOnlyLogDir implements Closeable {
    private final Path logDir;
    private final OpenFiles openFiles;
    private final Map<Path, SegmentFile> files = new ConcurrentHashMap<>();
    private final Map<Path, CachedInfo> infos = new ConcurrentHashMap<>();

    private record CachedInfo(long fileSize, long modified, SegmentInfo info) {}

    /** The cleaner files' state when {@code cleaned} was read from them. */
    private record CleanedPartitions(String stamp, Predicate<TopicPartition> cleaned) {}

    private volatile CleanedPartitions cleanedPartitions;

    private ReadOnlyLogDir(Path logDir, OpenFiles openFiles) {
        this.logDir = logDir;
        this.openFiles = openFiles;
    }

    /**
     * The last stable offset of {@code tp} as far as a scan of the batch headers from the segment
     * holding {@code from} shows: the first offset of the oldest transaction with data and no
     * marker yet (a transactional data batch opens its producer's transaction, any control batch of
     * the producer ends it), else the end of the valid batches. Conservative for transactions that
     * began at or after the scan start; one opened before {@code from} is not seen, so callers pass
     * the lowest offset they will use. Reads only.
     */
    public long lastStableOffset(TopicPartition tp, long from) throws IOException {
        List<SegmentInfo> segs = segments(tp);
        if (segs.isEmpty()) {
            return from;
        }
        java.util.TreeMap<Long, Long> open = new java.util.TreeMap<>();
        Map<Long, Long> firstOf = new java.util.HashMap<>();
        long end = from;
        for (int i = floor(segs, from); i < segs.size(); i++) {
            SegmentInfo s = segs.get(i);
            SegmentFile file = file(s.logFile());
            LogScanner sc = new LogScanner(file.acquire(), 0, s.sizeInBytes(), -1, false, false);
            try {
                while (sc.next()) {
                    end = sc.lastOffset + 1;
                    if (sc.producerId < 0 || !TxnMarkers.isTransactional(sc.attributes)) {
                        continue;
                    }
                    if (TxnMarkers.isControl(sc.attributes)) {
                        Long first = firstOf.remove(sc.producerId);
                        if (first != null) {
                            open.remove(first);
                        }
                    } else if (!firstOf.containsKey(sc.producerId)) {
                        firstOf.put(sc.producerId, sc.baseOffset);
                        open.put(sc.baseOffset, sc.producerId);
                    }
                }
            } finally {
                file.release();
            }
        }
        return open.isEmpty() ? end : open.firstKey();
    }

    /**
     * The aborted transactions a {@code read_committed} reader of {@code [from, upTo)} of {@code
     * tp} must know, from the segments' {@code .txnindex} files (Kafka's {@code
     * collectAbortedTxns}; segments without the file have none). Reads only.
     *
     * @throws CorruptIndexException when a txn index is not a sequence of whole entries
     */
    public List<AbortedTxn> abortedTransactions(TopicPartition tp, long from, long upTo)
            throws IOException {
        List<AbortedTxn> out = new ArrayList<>();
        List<SegmentInfo> segs = segments(tp);
        if (segs.isEmpty() || upTo <= from) {
            return out;
        }
        for (int i = floor(segs, from); i < segs.size(); i++) {
            SegmentInfo s = segs.get(i);
            Path f =
                    s.logFile()
                            .resolveSibling(
                                    LogSegment.fileName(s.baseOffset())
                                            + LogSegment.TXN_INDEX_SUFFIX);
            TxnIndex idx;
            try {
                idx = TxnIndex.load(f, s.baseOffset(), Long.MAX_VALUE);
            } catch (NoSuchFileException e) {
                continue; // deleted by the broker's retention meanwhile
            }
            if (idx.collect(from, upTo, out)) {
                break;
            }
        }
        return out;
    }

    private static int floor(List<SegmentInfo> segs, long offset) {
        int at = 0;
        for (int i = 0; i < segs.size(); i++) {
            if (segs.get(i).baseOffset() <= offset) {
                at = i;
            }
        }
        return at;
    }

    /** Opens {@code logDir} (which must exist) without writing anything. */
    public static ReadOnlyLogDir open(Path logDir) throws IOException {
        if (!Files.isDirectory(logDir)) {
            throw new NoSuchFileException(logDir.toString(), null, "not a directory");
        }
        return open(logDir, 0);
    }

    /** As {@link #open(Path)}, holding at most {@code maxOpenFiles} files open (0: derived). */
    public static ReadOnlyLogDir open(Path logDir, int maxOpenFiles) throws IOException {
        if (!Files.isDirectory(logDir)) {
            throw new NoSuchFileException(logDir.toString(), null, "not a directory");
        }
        return new ReadOnlyLogDir(logDir, OpenFiles.bounded(maxOpenFiles));
    }

    public Path logDir() {
        return logDir;
    }

    /** Partition folders present now, sorted by topic then partition. */
    public List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(logDir, Files::isDirectory)) {
            for (Path d : ds) {
                String name = d.getFileName().toString();
                if (name.endsWith("-delete")
                        || name.endsWith("-future")
                        || name.endsWith("-stray")) {
                    continue;
                }
                if (TopicNames.isValid(topicPart(name))) {
                    try {
                        out.add(TopicNames.parseDirName(name));
                    } catch (InvalidTopicException ignored) {
                        // not a partition folder
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(
                (a, b) ->
                        a.topic().equals(b.topic())
                                ? Integer.compare(a.partition(), b.partition())
                                : a.topic().compareTo(b.topic()));
        return out;
    }

    private static String topicPart(String name) {
        int dash = name.lastIndexOf('-');
        return dash <= 0 ? name : name.substring(0, dash);
    }

    /**
     * The segments of {@code tp} now, oldest first; the last is the active one ({@code
     * closed=false}). Sizes and offsets count only valid batches (headers checked, not CRCs).
     */
    public List<SegmentInfo> segments(TopicPartition tp) {
        Path dir = logDir.resolve(TopicNames.dirName(tp));
        List<Long> bases = new ArrayList<>();
        try (DirectoryStream<Path> ds =
                Files.newDirectoryStream(dir, "*" + LogSegment.LOG_SUFFIX)) {
            for (Path f : ds) {
                Long b = LogLoader.baseOffsetOf(f.getFileName().toString(), LogSegment.LOG_SUFFIX);
                if (b != null) {
                    bases.add(b);
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        bases.sort(null);
        List<SegmentInfo> out = new ArrayList<>();
        for (int i = 0; i < bases.size(); i++) {
            Path f = dir.resolve(LogSegment.fileName(bases.get(i)) + LogSegment.LOG_SUFFIX);
            try {
                out.add(info(tp, f, bases.get(i), i < bases.size() - 1));
            } catch (NoSuchFileException e) {
                // deleted by the broker's retention meanwhile
            } catch (IOException e) {
                // The channel kept from an earlier read may be of a file the cleaner's swap renamed
                // away (the name now holds another file): read the name afresh once.
                evict(f);
                try {
                    out.add(info(tp, f, bases.get(i), i < bases.size() - 1));
                } catch (NoSuchFileException gone) {
                    // swapped away meanwhile
                } catch (IOException again) {
                    throw new UncheckedIOException(again);
                }
            }
        }
        return out;
    }

    private SegmentInfo info(TopicPartition tp, Path f, long base, boolean closed)
            throws IOException {
        long size = Files.size(f);
        long modified = Files.getLastModifiedTime(f).toMillis();
        CachedInfo c = infos.get(f);
        if (c != null && c.fileSize() == size && c.modified() == modified) {
            SegmentInfo i = c.info();
            return new SegmentInfo(
                    tp, base, i.nextOffset(), i.sizeInBytes(), i.maxTimestamp(), closed, f);
        }
        SegmentFile file = file(f);
        LogScanner sc = new LogScanner(file.acquire(), 0, size, base, false, false);
        long next = base;
        long maxTs = -1;
        try {
            while (sc.next()) {
                next = sc.lastOffset + 1;
                maxTs = Math.max(maxTs, sc.maxTimestamp);
            }
        } finally {
            file.release();
        }
        SegmentInfo info = new SegmentInfo(tp, base, next, sc.validEnd(), maxTs, closed, f);
        infos.put(f, new CachedInfo(size, modified, info));
        return info;
    }

    /**
     * Checks every batch of segment {@code s} (lengths, magic, CRC-32C, offsets) up to the end of
     * its file and reports the first invalid one, with what lies after it; empty when the whole
     * file is valid. Offsets must be contiguous, except in a partition the log dir's cleaner files
     * ({@code cleaner-offset-checkpoint}, Kafka's and ours) name: a cleaned segment has offset
     * gaps, so there they must only ascend. For an active segment being written, a torn last batch
     * is normal. Reads only.
     */
    public Optional<SegmentCorruption> findCorruption(SegmentInfo s) throws IOException {
        return findCorruption(s, false);
    }

    /**
     * As {@link #findCorruption(SegmentInfo)}; {@code compacted}: the partition's topic is
     * compacted now, so offsets need only ascend even if no cleaner file names it (the rule of
     * {@link PartitionLog#mayHaveOffsetGaps()}).
     */
    public Optional<SegmentCorruption> findCorruption(SegmentInfo s, boolean compacted)
            throws IOException {
        try {
            return scanForCorruption(s, compacted);
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            // a kept channel of a file the cleaner's swap replaced: only what persists counts
            evict(s.logFile());
            return scanForCorruption(s, compacted);
        }
    }

    /** Forgets the kept channel and scan of {@code f}: its name may hold another file now. */
    private void evict(Path f) {
        infos.remove(f);
        SegmentFile old = files.remove(f);
        if (old != null) {
            old.close();
        }
    }

    private Optional<SegmentCorruption> scanForCorruption(SegmentInfo s, boolean compacted)
            throws IOException {
        boolean gaps = compacted || cleanedPartitions().test(s.tp());
        SegmentFile file = file(s.logFile());
        FileChannel ch = file.acquire();
        try {
            long size = ch.size();
            LogScanner sc = new LogScanner(ch, 0, size, s.baseOffset(), true, !gaps);
            while (sc.next()) {
                // every batch is read and its CRC checked
            }
            long valid = sc.validEnd();
            if (valid >= size) {
                return Optional.empty();
            }
            long next = sc.nextOffset();
            long endAfter = SegmentCorruption.highestEndAfter(ch, valid + 1, size, next);
            return Optional.of(
                    new SegmentCorruption(
                            s.logFile(), valid, next, sc.stopReason(), size - valid, endAfter));
        } finally {
            file.release();
        }
    }

    /** The partitions the cleaner files name, read again whenever one of them changed. */
    private Predicate<TopicPartition> cleanedPartitions() throws IOException {
        StringBuilder stamp = new StringBuilder();
        for (String name : List.of(LogCleaner.CHECKPOINT_FILE, LogCleaner.LAST_CLEANING_FILE)) {
            Path f = logDir.resolve(name);
            try {
                stamp.append(Files.getLastModifiedTime(f).toMillis())
                        .append('/')
                        .append(Files.size(f));
            } catch (NoSuchFileException e) {
                // absent (or being replaced by its writer's rename): none named by it
            }
            stamp.append(';');
        }
        CleanedPartitions c = cleanedPartitions;
        if (c == null || !c.stamp().equals(stamp.toString())) {
            c = new CleanedPartitions(stamp.toString(), LogCleaner.namedInCheckpoints(logDir));
            cleanedPartitions = c;
        }
        return c.cleaned();
    }

    /**
     * The whole segment as a slice of its valid batches (every CRC verified), from the start to the
     * first torn or corrupt batch.
     */
    public FileSlice readSegment(SegmentInfo s) throws IOException {
        SegmentFile file = file(s.logFile());
        FileChannel ch = file.acquire();
        try {
            LogScanner sc = new LogScanner(ch, 0, ch.size(), s.baseOffset(), true, false);
            long first = -1;
            long next = s.baseOffset();
            while (sc.next()) {
                if (first < 0) {
                    first = sc.baseOffset;
                }
                next = sc.lastOffset + 1;
            }
            if (sc.validEnd() == 0) {
                return FileSlice.emptyAt(s.baseOffset());
            }
            return new FileSlice(file, 0, (int) sc.validEnd(), first, next);
        } finally {
            file.release();
        }
    }

    /**
     * The batches of segment {@code s} from the first whose last offset is at or after {@code
     * startOffset}, read one at a time (every CRC verified) up to the segment's end or its first
     * torn or corrupt batch. Batches before it are skipped by their headers. The iterator throws
     * {@link UncheckedIOException} on a read error.
     */
    public Iterator<RecordBatch> batchesFrom(SegmentInfo s, long startOffset) throws IOException {
        SegmentFile file = file(s.logFile());
        // pinned until the iterator is exhausted or fails (an abandoned one keeps its file open
        // until close())
        FileChannel ch = file.acquire();
        try {
            return batchesFrom(s, startOffset, file, ch);
        } catch (IOException | RuntimeException e) {
            file.release();
            throw e;
        }
    }

    private Iterator<RecordBatch> batchesFrom(
            SegmentInfo s, long startOffset, SegmentFile file, FileChannel ch) throws IOException {
        long end = ch.size();
        LogScanner skip = new LogScanner(ch, 0, end, s.baseOffset(), false, false);
        long start = end;
        while (skip.next()) {
            if (skip.lastOffset >= startOffset) {
                start = skip.position;
                break;
            }
        }
        LogScanner sc = new LogScanner(ch, start, end, -1, true, false);
        return new Iterator<>() {
            private Boolean ready;
            private boolean released;

            @Override
            public boolean hasNext() {
                if (ready == null) {
                    try {
                        ready = !released && sc.next();
                    } catch (IOException e) {
                        release();
                        throw new UncheckedIOException(e);
                    }
                    if (!ready) {
                        release();
                    }
                }
                return ready;
            }

            private void release() {
                if (!released) {
                    released = true;
                    file.release();
                }
            }

            @Override
            public RecordBatch next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                ready = null;
                ByteBuffer buf;
                try {
                    buf =
                            new FileSlice(
                                            ch,
                                            sc.position,
                                            sc.size,
                                            sc.baseOffset,
                                            sc.lastOffset + 1)
                                    .readFully();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return MemoryRecords.readableRecords(buf).batches().iterator().next();
            }
        };
    }

    private SegmentFile file(Path f) {
        return files.computeIfAbsent(f, p -> SegmentFile.readOnly(openFiles, p));
    }

    /** The bound on segment files this reader holds open. */
    public OpenFiles openFiles() {
        return openFiles;
    }

    @Override
    public void close() throws IOException {
        for (SegmentFile f : files.values()) {
            f.close();
        }
        files.clear();
    }
}

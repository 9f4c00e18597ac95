package io.tierlog.hot;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the segments of one partition folder and recovers them after an unclean stop, as Kafka's
 * {@code LogLoader}: leftover {@code .deleted} files and orphan indexes are removed; every segment
 * from the one holding the recovery point (all of them without a clean-shutdown marker) is scanned
 * batch by batch (CRC, lengths, offsets) and truncated after the last valid batch, and every later
 * segment is deleted; indexes that are missing or fail their sanity check are rebuilt; the
 * recovered segments are fsynced so the recovery point can move to the log end.
 *
 * <p>Not thread-safe: used once, before the log is published.
 */
final class LogLoader {
    private static final Logger LOG = LoggerFactory.getLogger(LogLoader.class);

    private LogLoader() {}

    /**
     * As {@link #load(Path, LogConfig, long, boolean, boolean, long, long, OpenFiles)} with no
     * floor.
     */
    static List<LogSegment> load(
            Path dir,
            LogConfig config,
            long recoveryPoint,
            boolean hadCleanShutdown,
            boolean offsetGaps,
            OpenFiles openFiles)
            throws IOException {
        return load(dir, config, recoveryPoint, hadCleanShutdown, offsetGaps, 0, 0, openFiles);
    }

    /**
     * Result of loading: segments oldest first (the last one active, never empty), with the active
     * segment's next offset at or above {@code floor}, {@code knownEnd} and every offset a batch
     * found on disk (even past a corruption) ended at.
     *
     * <p>A corruption found by recovery is handled by where it lies. When its first offset is below
     * {@code floor} (the cold tier holds it), the corrupt segment and every earlier one are dropped
     * and the later ones kept, so reads below the new log start go to the cold tier; if the hot log
     * would then start above the floor, an empty segment at the floor records that the offsets
     * between are lost, so that the offload of the next segment bridges them. Otherwise the segment
     * is truncated at the corruption and, unlike Kafka (which deletes every later segment and
     * relies on replicas), later segments are kept: the hot log then has an offset gap, which reads
     * skip as they skip offsets a log cleaner removed.
     *
     * @param offsetGaps whether the log may hold cleaned segments (its topic is compacted now, or
     *     the cleaner has cleaned it): recovery then accepts offset gaps between batches instead of
     *     truncating at the first one (see {@link LogSegment#open})
     * @param floor offsets below it must never be assigned again (the cold high watermark)
     * @param knownEnd the log end offset last checkpointed (0 if unknown)
     */
    static List<LogSegment> load(
            Path dir,
            LogConfig config,
            long recoveryPoint,
            boolean hadCleanShutdown,
            boolean offsetGaps,
            long floor,
            long knownEnd,
            OpenFiles openFiles)
            throws IOException {
        Files.createDirectories(dir);
        List<Long> bases = new ArrayList<>();
        List<Path> orphans = new ArrayList<>();
        List<Long> swaps = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.endsWith(LogSegment.DELETED_SUFFIX)
                        || name.endsWith(CleanedSegment.CLEANED_SUFFIX)) {
                    // a .cleaned file is an unfinished cleaning: the old segments are intact
                    Files.deleteIfExists(f);
                } else if (name.endsWith(LogSegment.LOG_SUFFIX + CleanedSegment.SWAP_SUFFIX)) {
                    Long base =
                            baseOffsetOf(name, LogSegment.LOG_SUFFIX + CleanedSegment.SWAP_SUFFIX);
                    if (base != null) {
                        swaps.add(base);
                    }
                } else if (name.endsWith(LogSegment.LOG_SUFFIX)) {
                    Long base = baseOffsetOf(name, LogSegment.LOG_SUFFIX);
                    if (base != null) {
                        bases.add(base);
                    }
                } else if (name.endsWith(LogSegment.INDEX_SUFFIX)
                        || name.endsWith(LogSegment.TIME_INDEX_SUFFIX)
                        || name.endsWith(LogSegment.TXN_INDEX_SUFFIX)) {
                    orphans.add(f);
                }
            }
        }
        for (long swap : swaps) {
            completeSwap(dir, swap, bases, orphans);
        }
        bases.sort(null);
        for (Path f : orphans) {
            String name = f.getFileName().toString();
            String stem = name.substring(0, name.indexOf('.'));
            if (!Files.exists(dir.resolve(stem + LogSegment.LOG_SUFFIX))) {
                Files.deleteIfExists(f);
            }
        }
        List<LogSegment> segments = new ArrayList<>();
        long start = Math.max(Math.max(floor, knownEnd), 0);
        if (bases.isEmpty()) {
            if (start > 0) {
                LOG.info(
                        "{} has no segment; it starts at offset {} (cold high watermark {},"
                                + " last checkpointed log end {})",
                        dir,
                        start,
                        floor,
                        knownEnd);
            }
            segments.add(LogSegment.create(dir, start, config, openFiles));
            // a new partition: make its folder and first files durable before any append
            RecoveryPointCheckpoint.fsyncDir(dir);
            if (dir.getParent() != null) {
                RecoveryPointCheckpoint.fsyncDir(dir.getParent());
            }
            return segments;
        }
        long firstToRecover = Long.MAX_VALUE;
        if (!hadCleanShutdown) {
            firstToRecover = bases.get(0);
            for (long b : bases) {
                if (b <= recoveryPoint) {
                    firstToRecover = b;
                }
            }
        }
        long assignedEnd = knownEnd; // one past the highest offset known to have been assigned
        long firstLost = Long.MAX_VALUE; // producer snapshots above it describe lost batches
        boolean dropped = false;
        boolean changedFiles = false;
        try {
            for (int i = 0; i < bases.size(); i++) {
                long base = bases.get(i);
                boolean active = i == bases.size() - 1;
                boolean recover = base >= firstToRecover;
                LogSegment s;
                try {
                    s = LogSegment.open(dir, base, config, active, recover, offsetGaps, openFiles);
                } catch (CorruptIndexException e) {
                    LOG.warn("Rebuilding indexes of {}: {}", dir, e.getMessage());
                    s = LogSegment.open(dir, base, config, active, true, offsetGaps, openFiles);
                }
                if (!segments.isEmpty()
                        && s.baseOffset != segments.get(segments.size() - 1).nextOffset()) {
                    LOG.info(
                            "Segment {} of {} does not continue the previous one (next offset {}):"
                                    + " an offset gap",
                            base,
                            dir,
                            segments.get(segments.size() - 1).nextOffset());
                }
                SegmentCorruption c = s.corruption;
                if (c == null) {
                    segments.add(s);
                    continue;
                }
                changedFiles = true;
                assignedEnd = Math.max(assignedEnd, c.endAfter());
                long lostEnd =
                        active ? Math.max(c.firstLostOffset(), c.endAfter()) : bases.get(i + 1);
                firstLost = Math.min(firstLost, c.firstLostOffset());
                if (c.firstLostOffset() < floor) {
                    LOG.error(
                            "Recovery of {} found a corruption in the cold tier's range (cold high"
                                    + " watermark {}): {}; dropping segment {} and {} earlier"
                                    + " segments (the cold tier serves offsets below {}){}",
                            dir,
                            floor,
                            c,
                            base,
                            segments.size(),
                            floor,
                            lostEnd > floor
                                    ? "; offsets [" + floor + ", " + lostEnd + ") are lost"
                                    : "");
                    segments.add(s);
                    for (LogSegment d : segments) {
                        d.closeQuietly();
                        deleteSegmentFiles(dir, d.baseOffset);
                    }
                    segments.clear();
                    dropped = true;
                    continue;
                }
                Object[] args = {
                    dir, c, base, c.position(), c.firstLostOffset(), lostEnd, bases.size() - i - 1
                };
                String msg =
                        "Recovery of {} found a corruption: {}; truncated segment {} at byte {},"
                                + " offsets [{}, {}) are lost; {} later segments kept";
                if (active && c.tornTail()) {
                    LOG.warn(msg, args); // the usual torn write of a crash
                } else {
                    LOG.error(msg, args);
                }
                segments.add(s);
            }
            int cut = lastBeforeGapBelow(segments, floor, assignedEnd);
            if (cut >= 0) {
                LOG.warn(
                        "{} has an offset gap after offset {}, below the cold high watermark {}:"
                                + " dropping its first {} segments, whose offsets the cold tier"
                                + " holds, so that reads there go to the cold tier",
                        dir,
                        segments.get(cut).nextOffset() - 1,
                        floor,
                        cut + 1);
                for (int i = 0; i <= cut; i++) {
                    segments.get(0).closeQuietly();
                    deleteSegmentFiles(dir, segments.remove(0).baseOffset);
                }
                dropped = true;
                changedFiles = true;
            }
            if (dropped && (segments.isEmpty() || segments.get(0).baseOffset > floor)) {
                // An empty segment at the floor: the hot log still starts where the cold tier
                // ends, and the offsets up to the next batch are a gap the offload bridges.
                LogSegment gap = LogSegment.create(dir, floor, config, openFiles);
                if (!segments.isEmpty()) {
                    gap.closeForAppend();
                }
                segments.add(0, gap);
            }
            LogSegment last = segments.get(segments.size() - 1);
            if (last.isClosed()) {
                last.reactivate();
            }
            long next = Math.max(last.nextOffset(), Math.max(floor, assignedEnd));
            if (next > last.nextOffset()) {
                LOG.warn(
                        "{} continues at offset {}, not at its recovered end {}: offsets up to {}"
                                + " were assigned before (cold high watermark {}, last"
                                + " checkpointed log end {})",
                        dir,
                        next,
                        last.nextOffset(),
                        next - 1,
                        floor,
                        knownEnd);
                // an empty last segment goes, unless it is where the log starts (the hot log
                // start must not move above the floor or above where it was)
                if (last.size() == 0 && segments.size() > 1) {
                    last.closeQuietly();
                    deleteSegmentFiles(dir, last.baseOffset);
                    segments.remove(segments.size() - 1);
                } else {
                    last.closeForAppend();
                }
                segments.add(LogSegment.create(dir, next, config, openFiles));
                changedFiles = true;
            }
            if (firstLost != Long.MAX_VALUE) {
                ProducerSnapshots.deleteAbove(dir, firstLost);
            }
            // recovered data and rebuilt indexes become durable, so the recovery point can move
            // to the log end
            for (LogSegment s : segments) {
                if (s.truncatedByRecovery >= 0) {
                    s.flush();
                }
            }
            if (changedFiles) {
                segments.get(segments.size() - 1).flush();
                RecoveryPointCheckpoint.fsyncDir(dir);
            }
        } catch (IOException | RuntimeException e) {
            for (LogSegment s : segments) {
                s.closeQuietly();
            }
            throw e;
        }
        return segments;
    }

    /**
     * Completes a cleaning's swap that a crash interrupted, as Kafka's loader does: a {@code
     * <base>.log.swap} file is a finished, fsynced cleaned segment (the rename to {@code .swap} was
     * the commit point), so the old segments it replaces, those whose base offset lies in {@code
     * [base, its next offset)} (a cleaned segment ends where its group ended), are deleted and the
     * swap files take their final names. Index files are rebuilt if a swap index is missing.
     */
    private static void completeSwap(Path dir, long base, List<Long> bases, List<Path> orphans)
            throws IOException {
        Path swapLog =
                CleanedSegment.file(dir, base, LogSegment.LOG_SUFFIX, CleanedSegment.SWAP_SUFFIX);
        long next;
        try (java.nio.channels.FileChannel ch =
                java.nio.channels.FileChannel.open(
                        swapLog, java.nio.file.StandardOpenOption.READ)) {
            LogScanner sc = new LogScanner(ch, 0, ch.size(), -1, true, false);
            next = base;
            while (sc.next()) {
                next = sc.lastOffset + 1;
            }
        }
        List<Long> replaced = new ArrayList<>();
        for (long b : bases) {
            if (b >= base && b < Math.max(next, base + 1)) {
                replaced.add(b);
            }
        }
        LOG.info(
                "{}: completing the interrupted swap of cleaned segment {} (offsets up to {}),"
                        + " replacing segments {}",
                dir,
                base,
                next - 1,
                replaced);
        for (long b : replaced) {
            deleteSegmentFiles(dir, b);
            bases.remove(b);
        }
        boolean indexes = true;
        for (String suffix : CleanedSegment.FILE_SUFFIXES) {
            if (suffix.equals(LogSegment.TXN_INDEX_SUFFIX)) {
                continue; // present only when the cleaned segment keeps aborted transactions
            }
            indexes &=
                    Files.exists(
                            CleanedSegment.file(dir, base, suffix, CleanedSegment.SWAP_SUFFIX));
        }
        CleanedSegment.rename(dir, base, CleanedSegment.SWAP_SUFFIX, "");
        if (!indexes) {
            String name = LogSegment.fileName(base);
            Files.deleteIfExists(dir.resolve(name + LogSegment.INDEX_SUFFIX));
            Files.deleteIfExists(dir.resolve(name + LogSegment.TIME_INDEX_SUFFIX));
        }
        orphans.removeIf(
                f -> f.getFileName().toString().startsWith(LogSegment.fileName(base) + "."));
        bases.add(base);
        RecoveryPointCheckpoint.fsyncDir(dir);
    }

    /**
     * The index of the last segment that is followed by an offset gap starting below {@code floor}
     * (for the last segment: a log end below the offset the log must continue at), or -1. Reads
     * inside such a gap would skip offsets the cold tier holds.
     */
    private static int lastBeforeGapBelow(List<LogSegment> segments, long floor, long assignedEnd) {
        int cut = -1;
        for (int i = 0; i < segments.size(); i++) {
            LogSegment s = segments.get(i);
            long after =
                    i + 1 < segments.size()
                            ? segments.get(i + 1).baseOffset
                            : Math.max(s.nextOffset(), Math.max(floor, assignedEnd));
            if (s.nextOffset() < floor && after > s.nextOffset()) {
                cut = i;
            }
        }
        return cut;
    }

    static void deleteSegmentFiles(Path dir, long base) throws IOException {
        String name = LogSegment.fileName(base);
        Files.deleteIfExists(dir.resolve(name + LogSegment.LOG_SUFFIX));
        Files.deleteIfExists(dir.resolve(name + LogSegment.INDEX_SUFFIX));
        Files.deleteIfExists(dir.resolve(name + LogSegment.TIME_INDEX_SUFFIX));
        Files.deleteIfExists(dir.resolve(name + LogSegment.TXN_INDEX_SUFFIX));
    }

    /** Base offset of a segment file name {@code <20 digits><suffix>}, or null. */
    static Long baseOffsetOf(String name, String suffix) {
        if (!name.endsWith(suffix) || name.length() != 20 + suffix.length()) {
            return null;
        }
        String digits = name.substring(0, 20);
        for (int i = 0; i < 20; i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return null;
            }
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Rebuilds producer state: loads the newest snapshot at or below the log end (and at or below
     * the first segment whose txn index must be rebuilt) and replays the batch headers and markers
     * after it (all of them without a snapshot). The txn index of every segment marked stale
     * (recovered, truncated, or failing its check) is rewritten from the aborted transactions the
     * replay completes in it.
     */
    static void rebuildProducerState(Path dir, List<LogSegment> segments, ProducerStateManager psm)
            throws IOException {
        psm.clear();
        long logEnd = segments.get(segments.size() - 1).nextOffset();
        long firstStale = Long.MAX_VALUE;
        for (LogSegment s : segments) {
            if (s.txnIndexStale) {
                firstStale = s.baseOffset;
                break;
            }
        }
        long from = ProducerSnapshots.loadLatest(dir, logEnd, Math.min(logEnd, firstStale), psm);
        if (from < 0) {
            psm.clear();
        }
        for (LogSegment s : segments) {
            if (from >= 0 && s.nextOffset() <= from) {
                if (s.txnIndexStale) {
                    s.txnIndex().rewrite(List.of()); // an empty segment at the snapshot: no marker
                    s.txnIndexStale = false;
                }
                continue;
            }
            List<AbortedTxn> aborted = s.txnIndexStale ? new ArrayList<>() : null;
            FileChannel ch = s.pin();
            try {
                LogScanner sc = new LogScanner(ch, 0, s.size(), -1, false, false);
                while (sc.next()) {
                    if (sc.producerId < 0 || sc.baseOffset < from) {
                        continue;
                    }
                    if (TxnMarkers.isControl(sc.attributes)) {
                        TxnMarkers.Marker m = TxnMarkers.read(ch, sc.position, sc.size);
                        if (m == null) {
                            continue;
                        }
                        long lso = psm.lastStableOffsetAfter(sc.producerId, sc.baseOffset);
                        ProducerStateManager.CompletedTxn done =
                                psm.applyMarker(
                                        sc.producerId,
                                        sc.producerEpoch,
                                        m.coordinatorEpoch(),
                                        m.commit(),
                                        sc.baseOffset,
                                        sc.maxTimestamp,
                                        false);
                        if (done != null && done.aborted() && aborted != null) {
                            aborted.add(
                                    new AbortedTxn(
                                            sc.producerId, done.firstOffset(), sc.baseOffset, lso));
                        }
                    } else {
                        psm.replay(
                                sc.producerId,
                                sc.producerEpoch,
                                sc.baseSequence,
                                ProducerStateManager.lastSequence(
                                        sc.baseSequence, sc.lastOffsetDelta),
                                sc.baseOffset,
                                sc.lastOffset,
                                sc.maxTimestamp,
                                TxnMarkers.isTransactional(sc.attributes));
                    }
                }
            } finally {
                s.unpin();
            }
            if (aborted != null) {
                // rewritten even when empty: the file on disk may name markers recovery cut off
                s.txnIndex().rewrite(aborted);
                if (!aborted.isEmpty()) {
                    LOG.info(
                            "Rebuilt transaction index of segment {} of {}: {} aborted"
                                    + " transactions",
                            s.baseOffset,
                            dir,
                            aborted.size());
                }
                s.txnIndexStale = false;
            }
        }
    }
}

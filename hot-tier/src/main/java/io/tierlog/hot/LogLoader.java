package io.tierlog.hot;

import java.io.IOException;
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

    /** Result of loading: segments oldest first (the last one active, never empty). */
    static List<LogSegment> load(
            Path dir,
            LogConfig config,
            long recoveryPoint,
            boolean hadCleanShutdown,
            OpenFiles openFiles)
            throws IOException {
        Files.createDirectories(dir);
        List<Long> bases = new ArrayList<>();
        List<Path> orphans = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.endsWith(LogSegment.DELETED_SUFFIX)) {
                    Files.deleteIfExists(f);
                } else if (name.endsWith(LogSegment.LOG_SUFFIX)) {
                    Long base = baseOffsetOf(name, LogSegment.LOG_SUFFIX);
                    if (base != null) {
                        bases.add(base);
                    }
                } else if (name.endsWith(LogSegment.INDEX_SUFFIX)
                        || name.endsWith(LogSegment.TIME_INDEX_SUFFIX)) {
                    orphans.add(f);
                }
            }
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
        if (bases.isEmpty()) {
            segments.add(LogSegment.create(dir, 0, config, openFiles));
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
        try {
            for (int i = 0; i < bases.size(); i++) {
                long base = bases.get(i);
                boolean active = i == bases.size() - 1;
                boolean recover = base >= firstToRecover;
                LogSegment s;
                try {
                    s = LogSegment.open(dir, base, config, active, recover, openFiles);
                } catch (CorruptIndexException e) {
                    LOG.warn("Rebuilding indexes of {}: {}", dir, e.getMessage());
                    s = LogSegment.open(dir, base, config, active, true, openFiles);
                }
                if (!segments.isEmpty()
                        && s.baseOffset != segments.get(segments.size() - 1).nextOffset()) {
                    LOG.warn(
                            "Segment {} of {} does not continue the previous one (next offset {})",
                            base,
                            dir,
                            segments.get(segments.size() - 1).nextOffset());
                }
                segments.add(s);
                if (s.truncatedByRecovery > 0) {
                    LOG.warn(
                            "Recovery truncated {} bytes of segment {} in {}; deleting {} later segments",
                            s.truncatedByRecovery,
                            base,
                            dir,
                            bases.size() - i - 1);
                    for (int j = i + 1; j < bases.size(); j++) {
                        deleteSegmentFiles(dir, bases.get(j));
                    }
                    if (!active) {
                        s.reactivate();
                    }
                    break;
                }
            }
            // recovered data and rebuilt indexes become durable, so the recovery point can move
            // to the log end
            for (LogSegment s : segments) {
                if (s.truncatedByRecovery >= 0) {
                    s.flush();
                }
            }
        } catch (IOException | RuntimeException e) {
            for (LogSegment s : segments) {
                s.closeQuietly();
            }
            throw e;
        }
        return segments;
    }

    static void deleteSegmentFiles(Path dir, long base) throws IOException {
        String name = LogSegment.fileName(base);
        Files.deleteIfExists(dir.resolve(name + LogSegment.LOG_SUFFIX));
        Files.deleteIfExists(dir.resolve(name + LogSegment.INDEX_SUFFIX));
        Files.deleteIfExists(dir.resolve(name + LogSegment.TIME_INDEX_SUFFIX));
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
     * Rebuilds producer state: loads the newest snapshot at or below the log end and replays the
     * batch headers after it (all of them without a snapshot).
     */
    static void rebuildProducerState(Path dir, List<LogSegment> segments, ProducerStateManager psm)
            throws IOException {
        psm.clear();
        long logEnd = segments.get(segments.size() - 1).nextOffset();
        long from = ProducerSnapshots.loadLatest(dir, logEnd, psm);
        if (from < 0) {
            psm.clear();
        }
        for (LogSegment s : segments) {
            if (from >= 0 && s.nextOffset() <= from) {
                continue;
            }
            LogScanner sc = new LogScanner(s.pin(), 0, s.size(), -1, false, false);
            try {
                while (sc.next()) {
                    if (sc.producerId >= 0 && sc.baseOffset >= from) {
                        psm.replay(
                                sc.producerId,
                                sc.producerEpoch,
                                sc.baseSequence,
                                ProducerStateManager.lastSequence(
                                        sc.baseSequence, sc.lastOffsetDelta),
                                sc.baseOffset,
                                sc.lastOffset,
                                sc.maxTimestamp);
                    }
                }
            } finally {
                s.unpin();
            }
        }
    }
}

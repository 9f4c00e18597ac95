package io.tierlog.hot;

import java.io.IOException;

/**
 * How dirty one compacted partition is now, as Kafka's {@code LogToClean} and {@code
 * LogCleanerManager.cleanableOffsets}: the clean section {@code [log start, firstDirty)}, the
 * cleanable dirty section {@code [firstDirty, firstUncleanable)} and their bytes (whole segments,
 * as Kafka counts them).
 *
 * <ul>
 *   <li>{@code firstDirty}: the cleaner checkpoint, or the log start when there is none or it lies
 *       outside the log.
 *   <li>{@code firstUncleanable}: the lowest of the active segment's base offset (the active
 *       segment is never cleaned), the high watermark, and with {@code min.compaction.lag.ms} the
 *       base offset of the first dirty segment holding a record younger than the lag.
 *   <li>{@code maxCompactionDelayMs}: how far the oldest dirty record (the earliest first-batch
 *       timestamp of the dirty closed segments) is past {@code max.compaction.lag.ms}; positive
 *       forces a cleaning below the dirty ratio.
 * </ul>
 *
 * <p>Immutable; computed on a snapshot of the segment array.
 */
record LogToClean(
        PartitionLog log,
        long firstDirty,
        long firstUncleanable,
        long cleanBytes,
        long cleanableBytes,
        long maxCompactionDelayMs) {

    /** {@code cleanable / (clean + cleanable)}, 0 for an empty log. */
    double dirtyRatio() {
        long total = cleanBytes + cleanableBytes;
        return total == 0 ? 0 : (double) cleanableBytes / total;
    }

    boolean needCompactionNow() {
        return maxCompactionDelayMs > 0;
    }

    /** Kafka's rule: forced by the max lag with something to clean, or above the dirty ratio. */
    boolean cleanable() {
        return (needCompactionNow() && cleanableBytes > 0)
                || (cleanableBytes > 0 && dirtyRatio() > log.config().minCleanableDirtyRatio());
    }

    static LogToClean of(PartitionLog log, long checkpoint, long now) throws IOException {
        LogConfig config = log.config();
        LogSegment[] segs = log.segmentArray();
        long logStart = log.logStartOffset();
        long logEnd = log.logEndOffset();
        long firstDirty = checkpoint < logStart || checkpoint > logEnd ? logStart : checkpoint;
        LogSegment active = segs[segs.length - 1];
        // never at or above the last stable offset: an open transaction's outcome is unknown
        long firstUncleanable = Math.min(active.baseOffset, log.lastStableOffset());
        long minLag = config.minCompactionLagMs();
        long maxLag = config.maxCompactionLagMs();
        long earliestDirty = Long.MAX_VALUE;
        for (int i = 0; i < segs.length - 1; i++) {
            LogSegment s = segs[i];
            long segEnd = Math.max(s.nextOffset(), segs[i + 1].baseOffset);
            if (segEnd <= firstDirty || s.size() == 0) {
                continue;
            }
            if (minLag > 0 && s.maxTimestamp() >= 0 && now - s.maxTimestamp() < minLag) {
                firstUncleanable = Math.min(firstUncleanable, Math.max(s.baseOffset, firstDirty));
            }
            if (maxLag < Long.MAX_VALUE && s.baseOffset < firstUncleanable) {
                long first = s.firstBatchTimestampMs();
                if (first > 0) {
                    earliestDirty = Math.min(earliestDirty, first);
                }
            }
        }
        long clean = 0;
        long cleanable = 0;
        for (int i = 0; i < segs.length - 1; i++) {
            LogSegment s = segs[i];
            long segEnd = Math.max(s.nextOffset(), segs[i + 1].baseOffset);
            if (segEnd <= firstDirty) {
                clean += s.size();
            } else if (s.baseOffset < firstUncleanable) {
                cleanable += s.size();
            }
        }
        long delay = 0;
        if (earliestDirty != Long.MAX_VALUE && now - maxLag > earliestDirty) {
            delay = now - maxLag - earliestDirty;
        }
        return new LogToClean(
                log, firstDirty, Math.max(firstUncleanable, firstDirty), clean, cleanable, delay);
    }
}

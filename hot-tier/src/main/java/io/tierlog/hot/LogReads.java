package io.tierlog.hot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * The read side of a {@link PartitionLog}, on a snapshot of its segment array and high watermark:
 * offset reads (binary search for the segment, then its offset index) and timestamp lookups
 * (segments' max timestamps, then the time index and a scan of the first qualifying batch).
 *
 * <p>Stateless; thread-safe (segments are read lock-free).
 */
final class LogReads {
    private LogReads() {}

    /** See {@link PartitionLog#read}. */
    static FileSlice read(
            TopicPartition tp,
            LogSegment[] segs,
            long logStartOffset,
            long hw,
            long startOffset,
            int maxBytes)
            throws IOException {
        return read(tp, segs, logStartOffset, hw, startOffset, maxBytes, Long.MAX_VALUE);
    }

    /** As {@link #read(TopicPartition, LogSegment[], long, long, long, int)}, below maxOffset. */
    static FileSlice read(
            TopicPartition tp,
            LogSegment[] segs,
            long logStartOffset,
            long hw,
            long startOffset,
            int maxBytes,
            long maxOffset)
            throws IOException {
        if (startOffset < logStartOffset || startOffset > hw) {
            throw new LogOffsetOutOfRangeException(
                    "Offset "
                            + startOffset
                            + " of "
                            + tp
                            + " is outside ["
                            + logStartOffset
                            + ", "
                            + hw
                            + "]");
        }
        if (startOffset == hw) {
            return FileSlice.emptyAt(hw);
        }
        for (int i = floorIndex(segs, startOffset); i < segs.length; i++) {
            FileSlice s = segs[i].read(startOffset, Math.max(maxBytes, 0), Math.min(hw, maxOffset));
            if (s != null) {
                return s;
            }
        }
        return FileSlice.emptyAt(startOffset);
    }

    /** Index of the last segment whose base offset is {@code <= offset}, or 0. */
    static int floorIndex(LogSegment[] segs, long offset) {
        int lo = 0;
        int hi = segs.length - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (segs[mid].baseOffset <= offset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** First record below {@code hw} whose timestamp is {@code >= timestampMs}. */
    static Optional<TimestampOffset> offsetForTimestamp(
            LogSegment[] segs, long hw, long timestampMs) {
        try {
            for (LogSegment s : segs) {
                if (s.maxTimestamp() >= timestampMs) {
                    TimestampOffset r = s.findOffsetByTimestamp(timestampMs, hw);
                    if (r != null) {
                        return Optional.of(r);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Optional.empty();
    }

    /** Largest timestamp and the offset of the first record carrying it. */
    static Optional<TimestampOffset> maxTimestamp(LogSegment[] segs, long hw) {
        LogSegment best = null;
        for (LogSegment s : segs) {
            if (s.offsetOfMaxTimestamp() >= 0
                    && (best == null || s.maxTimestamp() > best.maxTimestamp())) {
                best = s;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        try {
            TimestampOffset exact = best.findOffsetByTimestamp(best.maxTimestamp(), hw);
            return Optional.of(
                    exact != null
                            ? exact
                            : new TimestampOffset(
                                    best.maxTimestamp(), best.offsetOfMaxTimestamp()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

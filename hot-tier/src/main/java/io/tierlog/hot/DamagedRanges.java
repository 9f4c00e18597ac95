package io.tierlog.hot;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Offset ranges {@code [from, to)} of one log whose hot bytes are known to be corrupt (found by the
 * offloader or a deep verify after they were written), so that readers with another copy use it.
 * Ranges are batch-aligned as reported; overlapping reports are kept as given (a lookup takes the
 * range starting at or below the offset).
 *
 * <p>Thread-safe (a concurrent skip list); kept in memory only.
 */
final class DamagedRanges {
    private final ConcurrentSkipListMap<Long, Long> ranges = new ConcurrentSkipListMap<>();

    /** Records {@code [from, to)}; returns true when no range started at {@code from} before. */
    boolean mark(long from, long to) {
        if (to <= from) {
            return false;
        }
        if (ranges.putIfAbsent(from, to) == null) {
            return true;
        }
        ranges.merge(from, to, Math::max);
        return false; // reported again (each offload pass or verify finds it anew)
    }

    /** One past the end of the range holding {@code offset}, or -1. */
    long endOf(long offset) {
        Map.Entry<Long, Long> e = ranges.floorEntry(offset);
        return e != null && e.getValue() > offset ? e.getValue() : -1;
    }

    /** Start of the first range above {@code offset}, or {@code Long.MAX_VALUE}. */
    long nextStart(long offset) {
        Long k = ranges.higherKey(offset);
        return k == null ? Long.MAX_VALUE : k;
    }
}

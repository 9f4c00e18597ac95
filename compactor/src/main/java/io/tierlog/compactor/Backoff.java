package io.tierlog.compactor;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with full jitter: the n-th wait is uniform in {@code [base/2, min(max, base *
 * 2^n)]}, so retrying processes spread out instead of hammering a recovering store together.
 * Immutable and thread-safe.
 */
public record Backoff(Duration initial, Duration max) {

    /** The wait before retry number {@code attempt} (1 = first retry), in milliseconds. */
    public long delayMs(int attempt) {
        long base = Math.max(1, initial.toMillis());
        int shift = Math.min(30, Math.max(0, attempt - 1));
        long ceiling = Math.min(max.toMillis(), base << shift);
        long floor = Math.min(ceiling, Math.max(1, base / 2));
        return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
    }
}

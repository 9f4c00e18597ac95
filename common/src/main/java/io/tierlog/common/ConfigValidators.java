package io.tierlog.common;

import java.time.Duration;

/**
 * The {@link ConfigOption.Validator}s that many options share, so that every module words the same
 * rule the same way. Stateless and thread-safe.
 */
public final class ConfigValidators {
    private ConfigValidators() {}

    /** A duration above zero (intervals, timeouts, backoffs). */
    public static ConfigOption.Validator<Duration> positive() {
        return d -> d.isNegative() || d.isZero() ? "must be positive" : null;
    }

    /** A duration of zero or more (tolerances, delays that may be off). */
    public static ConfigOption.Validator<Duration> nonNegative() {
        return d -> d.isNegative() ? "must not be negative" : null;
    }

    /** A string with something other than white space in it (names, paths). */
    public static ConfigOption.Validator<String> notBlank() {
        return v -> v.isBlank() ? "must not be empty" : null;
    }

    /** A count of at least {@code min} (attempts, threads, rows). */
    public static <N extends Number> ConfigOption.Validator<N> atLeast(long min) {
        return v -> v.longValue() >= min ? null : "must be at least " + min;
    }
}

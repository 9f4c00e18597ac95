package io.tierlog.common;

/**
 * The clock, injected everywhere so that tests drive time by hand (Kafka's {@code Time}). The
 * system instance is thread-safe.
 */
public interface Time {
    Time SYSTEM =
            new Time() {
                @Override
                public long milliseconds() {
                    return System.currentTimeMillis();
                }

                @Override
                public long nanoseconds() {
                    return System.nanoTime();
                }
            };

    /** Wall-clock milliseconds since the epoch. */
    long milliseconds();

    /** Monotonic nanoseconds, for measuring intervals. */
    long nanoseconds();
}

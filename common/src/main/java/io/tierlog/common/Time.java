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

    /**
     * Lets {@code ms} pass on this clock: the system clock sleeps; a test clock may move itself
     * instead (as Kafka's {@code MockTime}), so that a backoff or throttle measured on it ends.
     */
    default void sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    /**
     * Waits until {@code latch} opens or {@code ms} pass on this clock, whichever is first (as
     * {@link #sleep}, a test clock may move itself rather than wait).
     *
     * @return whether the latch is open
     */
    default boolean await(java.util.concurrent.CountDownLatch latch, long ms)
            throws InterruptedException {
        return latch.await(ms, java.util.concurrent.TimeUnit.MILLISECONDS);
    }
}

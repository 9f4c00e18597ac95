package io.tierlog.hot;

import io.tierlog.common.Time;

/**
 * Keeps the bytes the cleaner threads read and write at or below a rate, as Kafka's cleaner {@code
 * Throttler}: each thread reports the bytes it moved and sleeps for as long as the total is ahead
 * of the rate since the throttler started. Appends and fetches never pass here.
 *
 * <p>Thread-safe.
 */
final class Throttler {
    private final double bytesPerSecond;
    private final Time time;
    private final long startNs;
    private long bytes;

    Throttler(double bytesPerSecond, Time time) {
        this.bytesPerSecond = bytesPerSecond;
        this.time = time;
        this.startNs = time.nanoseconds();
    }

    boolean unlimited() {
        return bytesPerSecond >= Double.MAX_VALUE / 2 || Double.isInfinite(bytesPerSecond);
    }

    /** Accounts {@code n} bytes and sleeps while the threads are ahead of the rate. */
    void maybeThrottle(long n) throws InterruptedException {
        if (unlimited() || n <= 0) {
            return;
        }
        long sleepMs;
        synchronized (this) {
            bytes += n;
            double dueSeconds = bytes / bytesPerSecond;
            double elapsedSeconds = (time.nanoseconds() - startNs) / 1e9;
            sleepMs = (long) ((dueSeconds - elapsedSeconds) * 1000);
        }
        if (sleepMs > 0) {
            time.sleep(sleepMs);
        }
    }
}

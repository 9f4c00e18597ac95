package io.tierlog.compactor;

import io.tierlog.common.Time;

/**
 * Token bucket for upload bytes shared by all offload threads ({@code offload.upload.rate.bytes}).
 * The bucket holds one second's worth of bytes; a request larger than that goes into debt, so later
 * requests wait it off and the long-run rate holds for objects of any size. Thread-safe.
 */
public final class UploadRateLimiter {
    private final long bytesPerSecond;
    private final Time time;
    private double tokens; // guarded by this
    private long lastNanos; // guarded by this

    public UploadRateLimiter(long bytesPerSecond, Time time) {
        if (bytesPerSecond <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.time = time;
        this.tokens = bytesPerSecond;
        this.lastNanos = time.nanoseconds();
    }

    /**
     * Takes {@code bytes} from the bucket and returns how long the caller must wait before sending
     * them, in nanoseconds (0 if the bucket held enough).
     */
    public synchronized long reserve(long bytes) {
        long now = time.nanoseconds();
        tokens = Math.min(bytesPerSecond, tokens + (now - lastNanos) * bytesPerSecond / 1e9);
        lastNanos = now;
        tokens -= bytes;
        if (tokens >= 0) {
            return 0;
        }
        return (long) Math.ceil(-tokens * 1e9 / bytesPerSecond);
    }

    /**
     * Reserves {@code bytes} and sleeps, on the injected clock, for the wait {@link #reserve}
     * returns (rounded up to the millisecond).
     */
    public void acquire(long bytes) throws InterruptedException {
        long waitNanos = reserve(bytes);
        if (waitNanos > 0) {
            time.sleep((waitNanos + 999_999) / 1_000_000);
        }
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }
}

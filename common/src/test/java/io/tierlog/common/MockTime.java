package io.tierlog.common;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test says so, or when code under test sleeps or waits on it
 * ({@link #sleep}, {@link #await}: the clock moves by the time asked, at once). Thread-safe.
 */
public final class MockTime implements Time {
    private final AtomicLong millis;
    private final AtomicLong nanos;

    public MockTime() {
        this(1_700_000_000_000L);
    }

    public MockTime(long startMillis) {
        this.millis = new AtomicLong(startMillis);
        this.nanos = new AtomicLong(0);
    }

    @Override
    public long milliseconds() {
        return millis.get();
    }

    @Override
    public long nanoseconds() {
        return nanos.get();
    }

    /** Moves the clock instead of waiting. */
    @Override
    public void sleep(long ms) {
        advance(Math.max(0, ms));
    }

    /** Moves the clock by {@code ms} unless the latch is already open; never waits. */
    @Override
    public boolean await(java.util.concurrent.CountDownLatch latch, long ms) {
        if (latch.getCount() == 0) {
            return true;
        }
        advance(Math.max(0, ms));
        return latch.getCount() == 0;
    }

    public void advance(long ms) {
        millis.addAndGet(ms);
        nanos.addAndGet(ms * 1_000_000L);
    }
}

package io.tierlog.common;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when a test says so. Thread-safe. */
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

    public void advance(long ms) {
        millis.addAndGet(ms);
        nanos.addAndGet(ms * 1_000_000L);
    }
}

package io.tierlog.hot;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * Group commit for {@link Durability#FSYNC}: an appender that needs its data durable either becomes
 * the flusher (when nobody is fsyncing) or waits for the running fsync. The flusher captures how
 * far the log has been written, fsyncs outside every lock, and then publishes that point as
 * durable, so all appenders that wrote before the capture share one fsync.
 *
 * <p>A failed fsync is sticky: every later {@link #awaitDurable} fails too until {@link #reset}
 * (after the log was recovered from disk), because an fsync retried after a failure may report
 * success for pages the kernel already dropped, and a waiter must not be acknowledged for data that
 * an earlier waiter was told had failed.
 *
 * <p>Thread-safe; the monitor is never held while taking the log's append lock (the log takes the
 * monitor under its append lock when a roll makes a whole segment durable).
 */
final class GroupCommit {
    /** What the flusher must make durable; supplied by the log under its append lock. */
    interface Target {
        /** Captures (segment, written size, next offset) of the log; called by the flusher. */
        Capture capture() throws IOException;
    }

    /** A written point of the log. */
    record Capture(LogSegment segment, int position, long nextOffset) {}

    /** Publishes a durable point to readers (segment readable size and high watermark). */
    interface Publisher {
        void publish(LogSegment segment, int position, long nextOffset);
    }

    private final Object monitor = new Object();
    private final Target target;
    private final Publisher publisher;
    private boolean flushing;
    private long durableOffset;
    private long fsyncs;
    private Throwable failure;

    GroupCommit(Target target, Publisher publisher, long durableOffset) {
        this.target = target;
        this.publisher = publisher;
        this.durableOffset = durableOffset;
    }

    /** Returns once every offset below {@code offset} is fsynced. */
    void awaitDurable(long offset) throws IOException {
        while (true) {
            synchronized (monitor) {
                while (durableOffset < offset && flushing) {
                    try {
                        monitor.wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("Interrupted waiting for fsync");
                    }
                }
                if (durableOffset >= offset) {
                    return;
                }
                if (failure != null) {
                    throw new IOException("an earlier fsync of this log failed", failure);
                }
                flushing = true;
            }
            try {
                Capture c = target.capture();
                try {
                    c.segment().forceLog();
                } catch (IOException | RuntimeException | Error e) {
                    synchronized (monitor) {
                        failure = e; // before any waiter can become the next flusher
                    }
                    throw e;
                }
                markDurable(c.segment(), c.position(), c.nextOffset());
            } finally {
                synchronized (monitor) {
                    flushing = false;
                    fsyncs++;
                    monitor.notifyAll();
                }
            }
        }
    }

    /** Records that everything below {@code nextOffset} is durable (also used by rolls). */
    void markDurable(LogSegment segment, int position, long nextOffset) {
        synchronized (monitor) {
            if (nextOffset >= durableOffset) {
                durableOffset = nextOffset;
                publisher.publish(segment, position, nextOffset);
            }
            monitor.notifyAll();
        }
    }

    /** Forgets a failed fsync: everything below {@code durableOffset} is durable (recovery). */
    void reset(long durableOffset) {
        synchronized (monitor) {
            failure = null;
            this.durableOffset = durableOffset;
            monitor.notifyAll();
        }
    }

    long durableOffset() {
        synchronized (monitor) {
            return durableOffset;
        }
    }

    /** Number of fsyncs run by flushers (to observe sharing in tests). */
    long fsyncs() {
        synchronized (monitor) {
            return fsyncs;
        }
    }
}

package io.tierlog.compactor;

import io.tierlog.common.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an object-store or catalog call again after failures, with {@link Backoff}, until it
 * succeeds, a deadline passes, or the compactor stops (waits end early on stop). Thread-safe: one
 * instance is shared by all offload threads.
 */
final class Retrier {
    private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);

    /** A call that may fail with an exception worth retrying. */
    interface Call<T> {
        T run() throws Exception;
    }

    /** Decides whether a failure is worth another attempt. */
    interface Retriable {
        boolean test(Exception e);
    }

    private final Backoff backoff;
    private final Duration timeout;
    private final Time time;
    private final CountDownLatch stopped;

    Retrier(Backoff backoff, Duration timeout, Time time, CountDownLatch stopped) {
        this.backoff = backoff;
        this.timeout = timeout;
        this.time = time;
        this.stopped = stopped;
    }

    /**
     * Runs {@code call} until it returns. A failure {@code retriable} rejects, or any failure after
     * the deadline or the stop, is rethrown.
     */
    <T> T run(String what, Call<T> call, Retriable retriable) throws Exception {
        long deadline = time.milliseconds() + timeout.toMillis();
        for (int attempt = 1; ; attempt++) {
            try {
                return call.run();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                if (!retriable.test(e) || time.milliseconds() >= deadline || isStopped()) {
                    throw e;
                }
                long wait =
                        Math.min(
                                backoff.delayMs(attempt),
                                Math.max(1, deadline - time.milliseconds()));
                LOG.warn(
                        "{} failed (attempt {}), retrying in {} ms: {}",
                        what,
                        attempt,
                        wait,
                        e.toString());
                pause(wait);
                if (isStopped()) {
                    throw e;
                }
            }
        }
    }

    /** Waits {@code ms} on the injected clock, or until the compactor stops. */
    void pause(long ms) throws InterruptedException {
        time.await(stopped, ms);
    }

    boolean isStopped() {
        return stopped.getCount() == 0;
    }

    /** Retries I/O failures (object store, local disk). */
    static boolean io(Exception e) {
        return e instanceof IOException;
    }
}

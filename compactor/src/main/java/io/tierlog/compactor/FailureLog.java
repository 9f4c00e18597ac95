package io.tierlog.compactor;

import io.tierlog.common.Time;
import org.slf4j.Logger;

/**
 * Rate-limited logging of a repeating failure of one background activity (an offload pass, the
 * orphan sweep): the first failure is a WARN with its stack trace, while it keeps failing at most
 * one WARN per {@link #EVERY_MS} with the count (the others at DEBUG), and the first success after
 * failures is an INFO. An unreachable S3 or catalog thus costs a log line a minute, not one per
 * retry. Also counts consecutive failures for the caller's backoff. Not thread-safe: one instance
 * per activity, used by the loop's single thread.
 */
final class FailureLog {
    static final long EVERY_MS = 60_000;

    private final Logger log;
    private final String activity;
    private final Time time;
    private int consecutive;
    private long firstMs;
    private long lastWarnMs;

    FailureLog(Logger log, String activity, Time time) {
        this.log = log;
        this.activity = activity;
        this.time = time;
    }

    /** Records one failure ({@code cause} may be null when only partitions failed). */
    void failed(String what, Throwable cause) {
        long now = time.milliseconds();
        consecutive++;
        if (consecutive == 1) {
            firstMs = now;
            lastWarnMs = now;
            if (cause != null) {
                log.warn("{} failed: {}; retrying with backoff", activity, what, cause);
            } else {
                log.warn("{} failed: {}; retrying with backoff", activity, what);
            }
        } else if (now - lastWarnMs >= EVERY_MS) {
            lastWarnMs = now;
            log.warn(
                    "{} still failing ({} times in a row for {} s): {}",
                    activity,
                    consecutive,
                    (now - firstMs) / 1000,
                    cause != null ? cause.toString() : what);
        } else {
            log.debug("{} failed again ({}): {}", activity, consecutive, what, cause);
        }
    }

    /** Records a success: logs the recovery if it follows failures. */
    void succeeded() {
        if (consecutive > 0) {
            log.info(
                    "{} succeeded again after {} failures in {} s",
                    activity,
                    consecutive,
                    (time.milliseconds() - firstMs) / 1000);
        }
        consecutive = 0;
    }

    /** Failures since the last success. */
    int consecutive() {
        return consecutive;
    }
}

package io.tierlog.server.dispatch;

import io.tierlog.common.Time;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;

/**
 * The ERROR log of a handler's failures on one partition (an {@code IOException} from the disk, an
 * unexpected exception), rate limited so that a failing disk, which fails every request, does not
 * flood the log with the same stack: per partition and exception class, one line with its stack per
 * {@link #INTERVAL_MS}; the failures meanwhile are counted and the next line says how many were not
 * logged. Only a failure calls it, so a request that fails nothing costs nothing here.
 *
 * <p>The table of keys is bounded ({@link #MAX_KEYS}, then cleared: a burst over many partitions
 * logs again rather than growing without bound). Thread-safe.
 */
public final class PartitionFailureLog {
    /** At most one line with a stack per partition and exception class in this interval. */
    public static final long INTERVAL_MS = TimeUnit.MINUTES.toMillis(1);

    private static final int MAX_KEYS = 4096;

    private record Key(TopicPartition tp, Class<?> type) {}

    private final Logger log;
    private final LogWindows<Key> windows;

    /** Writes to {@code log}, the handler's own logger, timing windows with {@code time}. */
    public PartitionFailureLog(Logger log, Time time) {
        this.log = log;
        this.windows = new LogWindows<>(time, INTERVAL_MS, MAX_KEYS);
    }

    /**
     * Logs at ERROR, with {@code e}'s stack, "{@code what} of {@code tp} failed" unless a line of
     * the same partition and exception class was written in the last {@link #INTERVAL_MS}; then
     * only counts it.
     *
     * @param what the operation, as the line names it ("append", "fetch at 42")
     * @return true if a line was written
     */
    public boolean failed(String what, TopicPartition tp, Throwable e) {
        int suppressed = windows.admit(new Key(tp, e.getClass()));
        if (suppressed < 0) {
            return false;
        }
        if (suppressed == 0) {
            log.error("{} of {} failed", what, tp, e);
        } else {
            log.error(
                    "{} of {} failed ({} more {} on it in the last minute not logged)",
                    what,
                    tp,
                    suppressed,
                    e.getClass().getSimpleName(),
                    e);
        }
        return true;
    }
}

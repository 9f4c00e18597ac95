package io.tierlog.hot;

import io.tierlog.common.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes and deletes segments that retention removed, after {@code file.delete.delay.ms}, so that
 * reads (sendfile) already holding the channel finish. With a scheduler the deletion is scheduled;
 * without one it happens on the next {@link #deleteDue()} after the delay.
 *
 * <p>Thread-safe.
 */
final class SegmentDeleter {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentDeleter.class);

    private final ScheduledExecutorService scheduler;
    private final Time time;
    private final Duration delay;
    private final List<Pending> pending = new ArrayList<>();

    private record Pending(LogSegment segment, long dueMs) {}

    SegmentDeleter(ScheduledExecutorService scheduler, Time time, Duration delay) {
        this.scheduler = scheduler;
        this.time = time;
        this.delay = delay;
    }

    synchronized void schedule(LogSegment s) {
        Pending p = new Pending(s, time.milliseconds() + delay.toMillis());
        pending.add(p);
        if (scheduler != null) {
            scheduler.schedule(
                    () -> {
                        synchronized (this) {
                            if (pending.remove(p)) {
                                delete(s);
                            }
                        }
                    },
                    delay.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Deletes every pending segment whose delay has passed. */
    synchronized void deleteDue() {
        long now = time.milliseconds();
        pending.removeIf(
                p -> {
                    if (p.dueMs() <= now) {
                        delete(p.segment());
                        return true;
                    }
                    return false;
                });
    }

    /** Deletes every pending segment now (log close). */
    synchronized void deleteAllNow() {
        for (Pending p : pending) {
            delete(p.segment());
        }
        pending.clear();
    }

    synchronized int pendingCount() {
        return pending.size();
    }

    private static void delete(LogSegment s) {
        try {
            s.closeAndDelete();
        } catch (IOException e) {
            LOG.warn("Cannot delete segment {}", s.logFile(), e);
        }
    }
}

package io.tierlog.server.dispatch;

import io.tierlog.common.Time;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rate limit of log lines per key: at most one line per key in each interval, counting the lines
 * held back meanwhile so the next one can say how many. The key table is cleared when it would pass
 * a bound, so many distinct keys (client ids, partitions) cannot grow memory without end.
 *
 * <p>Thread-safe.
 *
 * @param <K> the key (a record: equals and hashCode by value)
 */
final class LogWindows<K> {
    /** Per key: when the last line was written, and lines not written since. */
    private static final class Window {
        boolean logged;
        long lastLoggedMs;
        int suppressed;
    }

    private final Time time;
    private final long intervalMs;
    private final int maxKeys;
    private final Map<K, Window> windows = new ConcurrentHashMap<>();

    LogWindows(Time time, long intervalMs, int maxKeys) {
        this.time = time;
        this.intervalMs = intervalMs;
        this.maxKeys = maxKeys;
    }

    /**
     * Whether a line for {@code key} may be written now: -1 if not (counted as suppressed), else
     * the number of lines suppressed since the last one.
     */
    int admit(K key) {
        long now = time.milliseconds();
        if (windows.size() >= maxKeys && !windows.containsKey(key)) {
            windows.clear();
        }
        Window w = windows.computeIfAbsent(key, k -> new Window());
        synchronized (w) {
            if (w.logged && now - w.lastLoggedMs < intervalMs) {
                w.suppressed++;
                return -1;
            }
            int s = w.suppressed;
            w.logged = true;
            w.lastLoggedMs = now;
            w.suppressed = 0;
            return s;
        }
    }
}

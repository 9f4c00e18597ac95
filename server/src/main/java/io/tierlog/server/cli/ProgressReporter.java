package io.tierlog.server.cli;

import io.tierlog.engine.OffloadDaemon;
import java.util.Locale;

/**
 * What {@code tierlog offload} shows while it works; implementations are thread-safe (offload
 * threads report concurrently).
 */
abstract class ProgressReporter implements OffloadDaemon.Listener {
    private final long startNanos = System.nanoTime();

    /** Prints the totals of a {@code --once} run and each failed partition's error. */
    abstract void summary(OffloadDaemon.Pass result);

    String summaryLine(OffloadDaemon.Pass r) {
        double seconds = Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
        return String.format(
                Locale.ROOT,
                "offloaded %d objects, %d records, %s of segments -> %s in the cold tier in %.1f s"
                        + " (%s/s); backlog %s; failed partitions %d",
                r.objects(),
                r.records(),
                bytes(r.sourceBytes()),
                bytes(r.objectBytes()),
                seconds,
                bytes((long) (r.sourceBytes() / seconds)),
                bytes(r.backlogBytes()),
                r.failedPartitions());
    }

    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        if (n < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        }
        if (n < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
        }
        return String.format(Locale.ROOT, "%.2f GiB", n / (1024.0 * 1024 * 1024));
    }
}

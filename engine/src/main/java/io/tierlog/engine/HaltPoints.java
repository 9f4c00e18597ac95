package io.tierlog.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Named points where the kill campaign halts the process (system property {@code
 * tierlog.iceberg.halt.at}, comma-separated names; {@code tierlog.iceberg.halt.skip=N} skips the
 * first N hits of those points): {@code Runtime.getRuntime().halt(137)}, as a kill -9 would. The
 * engine's own point is {@value #RETENTION_BEFORE_TABLE}. Same semantics as the iceberg module's
 * hook (engine-local until that one is public). Thread-safe; free when the property is unset.
 */
final class HaltPoints {
    /** After retention's catalog commit, before the table's delete commit. */
    static final String RETENTION_BEFORE_TABLE = "retention-before-table";

    private static final AtomicInteger HITS = new AtomicInteger();
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private HaltPoints() {}

    /** Halts the process if {@code name} is one of the configured points (after the skips). */
    static void reached(String name) {
        String at = System.getProperty("tierlog.iceberg.halt.at");
        if (at == null || at.isBlank()) {
            return;
        }
        for (String n : at.split(",")) {
            if (n.trim().equals(name)) {
                int skip = Integer.getInteger("tierlog.iceberg.halt.skip", 0);
                if (HITS.incrementAndGet() > skip) {
                    if (WARNED.add(name)) {
                        System.err.println("tierlog: halting at " + name + " (test hook)");
                    }
                    Runtime.getRuntime().halt(137);
                }
                return;
            }
        }
    }
}

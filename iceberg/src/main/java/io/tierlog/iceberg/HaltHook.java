package io.tierlog.iceberg;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Named kill points for crash tests: at a point named in the system property {@code
 * tierlog.iceberg.halt.at} (comma-separated names) the process halts with {@code
 * Runtime.getRuntime().halt(137)}, as a {@code kill -9} would leave it; {@code
 * tierlog.iceberg.halt.skip=N} lets the first N hits of any named point pass. Without the property
 * a hit costs one property read. Thread-safe.
 */
public final class HaltHook {
    private static final AtomicInteger HITS = new AtomicInteger();

    private HaltHook() {}

    /** Halts the process here if {@code point} is named (and the skips are used up). */
    public static void at(String point) {
        String names = System.getProperty("tierlog.iceberg.halt.at");
        if (names == null || names.isBlank() || !parse(names).contains(point)) {
            return;
        }
        int skip = Integer.getInteger("tierlog.iceberg.halt.skip", 0);
        if (HITS.incrementAndGet() > skip) {
            System.err.println("tierlog: halting at " + point + " (tierlog.iceberg.halt.at)");
            System.err.flush();
            Runtime.getRuntime().halt(137);
        }
    }

    private static Set<String> parse(String names) {
        return Arrays.stream(names.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toSet());
    }
}

package io.tierlog.compactor;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The compactor's halt points for the kill campaign: at a point named in the system property {@code
 * tierlog.iceberg.halt.at} (comma-separated names) the process halts with status 137, as a kill
 * would, after skipping the first {@code tierlog.iceberg.halt.skip} hits (0 if unset) of that
 * point. The same property as the iceberg module's hooks (this module cannot depend on it). Points:
 * {@code merge-before-commit}, {@code merge-after-commit} (around the merge's catalog commit).
 *
 * <p>Thread-safe; the properties are read at every hit, so a test may set them late.
 */
final class HaltHooks {
    static final String AT_PROPERTY = "tierlog.iceberg.halt.at";
    static final String SKIP_PROPERTY = "tierlog.iceberg.halt.skip";

    private static final Map<String, AtomicInteger> HITS = new ConcurrentHashMap<>();

    private HaltHooks() {}

    /** Halts the JVM if {@code point} is named and its skipped hits are used up. */
    static void at(String point) {
        String names = System.getProperty(AT_PROPERTY, "");
        if (names.isBlank()
                || Arrays.stream(names.split(",")).map(String::trim).noneMatch(point::equals)) {
            return;
        }
        int skip;
        try {
            skip = Integer.parseInt(System.getProperty(SKIP_PROPERTY, "0").trim());
        } catch (NumberFormatException e) {
            skip = 0;
        }
        if (HITS.computeIfAbsent(point, p -> new AtomicInteger()).incrementAndGet() > skip) {
            System.err.println("tierlog: halting at " + point + " (" + AT_PROPERTY + ")");
            System.err.flush();
            Runtime.getRuntime().halt(137);
        }
    }
}

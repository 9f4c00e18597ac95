package io.tierlog.engine;

import java.time.Instant;
import java.util.Locale;

/**
 * How far compaction has got on one partition of a compacted topic, as {@code tierlog inspect}
 * shows it: the hot tier from the log cleaner's files in the log dir ({@code
 * cleaner-offset-checkpoint}, Kafka's format, and {@code cleaner-last-cleaning-checkpoint}), the
 * cold tier from the catalog ({@code PartitionState}). Immutable, so thread-safe.
 *
 * @param dirtyRatio bytes of the closed hot segments at or above {@code hotCleanedOffset} over the
 *     bytes of all closed hot segments (0..1): the cleaner cleans the partition once this reaches
 *     {@code min.cleanable.dirty.ratio} (or a record is older than {@code max.compaction.lag.ms})
 * @param hotCleanedOffset the cleaner checkpoint: hot offsets below it are cleaned; -1 if the
 *     partition was never cleaned
 * @param lastHotCleaningMs when the hot cleaner last finished cleaning it (epoch millis), -1 if
 *     never
 * @param coldCleanedOffset cold offsets below it are compacted; 0 if the cold tier never was
 * @param lastColdCleaningMs when the cold tier was last compacted (epoch millis), -1 if never
 */
public record CompactionReport(
        double dirtyRatio,
        long hotCleanedOffset,
        long lastHotCleaningMs,
        long coldCleanedOffset,
        long lastColdCleaningMs) {

    /** One line: {@code compaction hot dirty ratio 0.42, cleaned below 1200, last ... }. */
    public String format() {
        return String.format(
                Locale.ROOT,
                "compaction  hot dirty ratio %.2f, %s, last cleaning %s  cold %s, last cleaning %s",
                dirtyRatio,
                hotCleanedOffset < 0 ? "never cleaned" : "cleaned below " + hotCleanedOffset,
                when(lastHotCleaningMs),
                coldCleanedOffset <= 0 ? "never compacted" : "compacted below " + coldCleanedOffset,
                when(lastColdCleaningMs));
    }

    private static String when(long ms) {
        return ms < 0 ? "never" : Instant.ofEpochMilli(ms).toString();
    }
}

package io.tierlog.hot;

import org.apache.kafka.common.TopicPartition;

/**
 * What the log cleaner knows of one compacted partition now (for {@code tierlog inspect} and
 * metrics). Immutable.
 *
 * @param tp the partition
 * @param dirtyRatio cleanable dirty bytes over clean plus cleanable bytes (0..1)
 * @param cleanableBytes bytes of the closed segments of the dirty section the cleaner may clean
 * @param firstDirtyOffset the cleaner checkpoint: offsets below it are cleaned
 * @param firstUncleanableOffset the end of what the cleaner may clean now (active segment,
 *     min.compaction.lag.ms)
 * @param lastCleaningMs when a cleaning of the partition last finished, -1 for never
 * @param maxCompactionDelayMs how far the oldest dirty record is past max.compaction.lag.ms (0 when
 *     not)
 */
public record CleaningStats(
        TopicPartition tp,
        double dirtyRatio,
        long cleanableBytes,
        long firstDirtyOffset,
        long firstUncleanableOffset,
        long lastCleaningMs,
        long maxCompactionDelayMs) {}

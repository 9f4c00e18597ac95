package io.tierlog.hot;

/**
 * Chooses which closed segments local retention may delete, as Kafka's {@code
 * UnifiedLog.deleteRetentionMsBreachedSegments} / {@code deleteRetentionSizeBreachedSegments} (on
 * {@code local.retention.*}): always a prefix of the log, never the active segment, never a segment
 * holding an offset at or above the caller's bound (the cold tier's high watermark) or the high
 * watermark, nor one followed by an offset gap reaching that far (the log would then start above
 * the bound).
 *
 * <ul>
 *   <li>by time: the segment's largest timestamp is older than {@code local.retention.ms};
 *   <li>by size: the partition stays at or above {@code local.retention.bytes} without it.
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
final class LocalRetention {
    private LocalRetention() {}

    /**
     * @param segments the log's segments, oldest first, the last one active
     * @param maxDeletableOffset no deleted segment may have a next offset above this
     * @param highWatermark no deleted segment may have a next offset above this either
     * @return how many of the oldest segments to delete
     */
    static int deletablePrefix(
            LogSegment[] segments,
            LogConfig config,
            long now,
            long maxDeletableOffset,
            long highWatermark) {
        long total = 0;
        for (LogSegment s : segments) {
            total += s.size();
        }
        long retentionMs = config.localRetentionMs().map(d -> d.toMillis()).orElse(-1L);
        long retentionBytes = config.localRetentionBytes().map(b -> b.bytes()).orElse(-1L);
        int n = 0;
        for (int i = 0; i < segments.length - 1; i++) {
            LogSegment s = segments[i];
            // the log then starts at the next segment's base: after an offset gap (recovery) that
            // is above this segment's end, and no offset may fall between the tiers
            long end = Math.max(s.nextOffset(), segments[i + 1].baseOffset);
            if (end > maxDeletableOffset || end > highWatermark) {
                break;
            }
            boolean byTime = retentionMs >= 0 && now - s.maxTimestamp() > retentionMs;
            boolean bySize = retentionBytes >= 0 && total - s.size() >= retentionBytes;
            if (!byTime && !bySize) {
                break;
            }
            total -= s.size();
            n++;
        }
        return n;
    }
}

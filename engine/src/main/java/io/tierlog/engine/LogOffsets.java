package io.tierlog.engine;

/**
 * A partition's offsets in both tiers at one moment. Immutable, so thread-safe.
 *
 * @param logStartOffset first offset readable in either tier (ListOffsets earliest)
 * @param coldLogStartOffset first offset in the cold tier (= coldHighWatermark when it is empty)
 * @param coldHighWatermark next offset not in the cold tier (0 if nothing was ever offloaded)
 * @param hotLogStartOffset first offset in the hot tier
 * @param highWatermark next offset to be written and read (ListOffsets latest)
 * @param lastStableOffset first offset of the oldest open transaction, else the high watermark
 *     (ListOffsets latest for {@code read_committed}, Fetch's {@code last_stable_offset})
 */
public record LogOffsets(
        long logStartOffset,
        long coldLogStartOffset,
        long coldHighWatermark,
        long hotLogStartOffset,
        long highWatermark,
        long lastStableOffset) {

    /** Offsets of a partition with no open transaction (last stable offset = high watermark). */
    public LogOffsets(
            long logStartOffset,
            long coldLogStartOffset,
            long coldHighWatermark,
            long hotLogStartOffset,
            long highWatermark) {
        this(
                logStartOffset,
                coldLogStartOffset,
                coldHighWatermark,
                hotLogStartOffset,
                highWatermark,
                highWatermark);
    }

    /** The last offset a reader of {@code isolation} may fetch up to (exclusive). */
    public long lastFetchableOffset(Isolation isolation) {
        return isolation == Isolation.READ_COMMITTED ? lastStableOffset : highWatermark;
    }

    /**
     * The last offset ever offloaded to the cold tier, -1 when nothing was (Kafka's ListOffsets -5,
     * the highest offset in remote storage: cold retention does not lower it).
     */
    public long latestTieredOffset() {
        return coldHighWatermark > 0 ? coldHighWatermark - 1 : -1;
    }

    /**
     * The first offset not yet offloaded (Kafka's ListOffsets -6): after the last tiered offset,
     * never below the log start; the log start when nothing was offloaded and nothing is missing
     * from the hot tier; -1 when the hot tier starts later although nothing is known offloaded.
     */
    public long earliestPendingUploadOffset() {
        long lastTiered = latestTieredOffset();
        if (lastTiered < 0) {
            return hotLogStartOffset == logStartOffset ? logStartOffset : -1;
        }
        return Math.max(lastTiered + 1, logStartOffset);
    }
}

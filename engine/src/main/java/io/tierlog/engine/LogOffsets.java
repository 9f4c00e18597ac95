package io.tierlog.engine;

/**
 * A partition's offsets in both tiers at one moment. Immutable, so thread-safe.
 *
 * @param logStartOffset first offset readable in either tier (ListOffsets earliest)
 * @param coldLogStartOffset first offset in the cold tier (= coldHighWatermark when it is empty)
 * @param coldHighWatermark next offset not in the cold tier (0 if nothing was ever offloaded)
 * @param hotLogStartOffset first offset in the hot tier
 * @param highWatermark next offset to be written and read (ListOffsets latest)
 */
public record LogOffsets(
        long logStartOffset,
        long coldLogStartOffset,
        long coldHighWatermark,
        long hotLogStartOffset,
        long highWatermark) {}

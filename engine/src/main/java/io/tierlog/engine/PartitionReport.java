package io.tierlog.engine;

import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition as {@code tierlog inspect} shows it. Immutable, so thread-safe.
 *
 * @param hotLogStartOffset first offset on local disk
 * @param highWatermark next offset to be written
 * @param hotBytes bytes of all local segments
 * @param hotSegments number of local segments (the last one is active)
 * @param coldLogStartOffset first offset in the cold tier (= coldHighWatermark when empty)
 * @param coldHighWatermark next offset not in the cold tier
 * @param coldObjects number of committed objects
 * @param coldBytes bytes of the committed objects
 * @param offloadLagOffsets offsets of closed segments not yet committed to the cold tier
 * @param offloadLagBytes bytes of closed segments not yet committed to the cold tier
 * @param compaction how far compaction has got, for a partition of a compacted topic (or one the
 *     hot cleaner has cleaned)
 */
public record PartitionReport(
        TopicPartition tp,
        long hotLogStartOffset,
        long highWatermark,
        long hotBytes,
        int hotSegments,
        long coldLogStartOffset,
        long coldHighWatermark,
        long coldObjects,
        long coldBytes,
        long offloadLagOffsets,
        long offloadLagBytes,
        Optional<CompactionReport> compaction) {

    /** A partition with no compaction state. */
    public PartitionReport(
            TopicPartition tp,
            long hotLogStartOffset,
            long highWatermark,
            long hotBytes,
            int hotSegments,
            long coldLogStartOffset,
            long coldHighWatermark,
            long coldObjects,
            long coldBytes,
            long offloadLagOffsets,
            long offloadLagBytes) {
        this(
                tp,
                hotLogStartOffset,
                highWatermark,
                hotBytes,
                hotSegments,
                coldLogStartOffset,
                coldHighWatermark,
                coldObjects,
                coldBytes,
                offloadLagOffsets,
                offloadLagBytes,
                Optional.empty());
    }

    /**
     * A human-readable form: one line of offsets, bytes and lag; a partition with {@link
     * #compaction} adds an indented second line.
     */
    public String format() {
        String cold =
                coldObjects == 0
                        ? "cold empty (high watermark " + coldHighWatermark + ")"
                        : String.format(
                                "cold [%d, %d) %d objects %d bytes",
                                coldLogStartOffset, coldHighWatermark, coldObjects, coldBytes);
        return String.format(
                        "%s  hot [%d, %d) %d segments %d bytes  %s  offload lag %d offsets %d bytes",
                        tp,
                        hotLogStartOffset,
                        highWatermark,
                        hotSegments,
                        hotBytes,
                        cold,
                        offloadLagOffsets,
                        offloadLagBytes)
                + compaction.map(c -> "\n    " + c.format()).orElse("");
    }
}

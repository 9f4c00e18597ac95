package io.tierlog.engine;

import java.util.List;
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
 * @param lastStableOffset first offset of the oldest open transaction, else the high watermark
 * @param openTransactions the transactions with data and no marker yet, oldest first
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
        Optional<CompactionReport> compaction,
        long lastStableOffset,
        List<OpenTransaction> openTransactions) {

    public PartitionReport {
        openTransactions = List.copyOf(openTransactions);
    }

    /** A partition with no open transaction. */
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
            long offloadLagBytes,
            Optional<CompactionReport> compaction) {
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
                compaction,
                highWatermark,
                List.of());
    }

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

    /** As {@link #format(long)} at the current time. */
    public String format() {
        return format(System.currentTimeMillis());
    }

    /**
     * A human-readable form: one line of offsets (the last stable offset included), bytes and lag;
     * a partition with {@link #compaction} adds an indented line, and each open transaction one
     * (producer id, epoch, first offset, time since its last write as of {@code nowMs}).
     */
    public String format(long nowMs) {
        String cold =
                coldObjects == 0
                        ? "cold empty (high watermark " + coldHighWatermark + ")"
                        : String.format(
                                "cold [%d, %d) %d objects %d bytes",
                                coldLogStartOffset, coldHighWatermark, coldObjects, coldBytes);
        StringBuilder out =
                new StringBuilder(
                        String.format(
                                "%s  hot [%d, %d) %d segments %d bytes  %s  offload lag %d"
                                        + " offsets %d bytes  lso %d",
                                tp,
                                hotLogStartOffset,
                                highWatermark,
                                hotSegments,
                                hotBytes,
                                cold,
                                offloadLagOffsets,
                                offloadLagBytes,
                                lastStableOffset));
        compaction.ifPresent(c -> out.append("\n    ").append(c.format()));
        for (OpenTransaction t : openTransactions) {
            out.append(
                    String.format(
                            "\n    open transaction: producer %d epoch %d since offset %d, %s",
                            t.producerId(),
                            t.producerEpoch(),
                            t.firstOffset(),
                            t.lastTimestamp() < 0
                                    ? "last write time unknown"
                                    : "last write "
                                            + Math.max(0, nowMs - t.lastTimestamp()) / 1000
                                            + " s ago"));
        }
        return out.toString();
    }
}

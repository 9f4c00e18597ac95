package io.tierlog.compactor;

import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the cold tier trails one partition's closed segments, as of the compactor's last look.
 * Immutable, so thread-safe.
 *
 * @param tp the partition
 * @param coldHighWatermark the next offset not in the cold tier
 * @param closedEndOffset one past the last offset of the newest closed segment
 * @param pendingOffsets offsets in closed segments not yet committed ({@code closedEndOffset -
 *     coldHighWatermark}, or 0)
 * @param pendingBytes segment bytes not yet committed (whole segments; the one holding the cold
 *     high watermark prorated by offsets)
 * @param activeBytes bytes of the active segment, offloaded once it rolls
 * @param lastCommitMs wall-clock time of the last commit by this compactor, or -1
 * @param lastError the last failure for this partition, cleared by a successful pass
 * @param heldBack why closed segments wait although they are due, as of the last look: {@code open
 *     transaction of producer P since offset O} while a transaction holds the last stable offset
 *     inside them (the cold tier never holds an open transaction's batches)
 */
public record PartitionLag(
        TopicPartition tp,
        long coldHighWatermark,
        long closedEndOffset,
        long pendingOffsets,
        long pendingBytes,
        long activeBytes,
        long lastCommitMs,
        Optional<String> lastError,
        Optional<String> heldBack) {

    /** A lag with nothing held back. */
    public PartitionLag(
            TopicPartition tp,
            long coldHighWatermark,
            long closedEndOffset,
            long pendingOffsets,
            long pendingBytes,
            long activeBytes,
            long lastCommitMs,
            Optional<String> lastError) {
        this(
                tp,
                coldHighWatermark,
                closedEndOffset,
                pendingOffsets,
                pendingBytes,
                activeBytes,
                lastCommitMs,
                lastError,
                Optional.empty());
    }

    PartitionLag withError(String error) {
        return new PartitionLag(
                tp,
                coldHighWatermark,
                closedEndOffset,
                pendingOffsets,
                pendingBytes,
                activeBytes,
                lastCommitMs,
                Optional.of(error),
                heldBack);
    }
}

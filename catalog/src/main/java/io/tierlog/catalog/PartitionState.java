package io.tierlog.catalog;

/**
 * What the cold tier holds for one partition. Immutable, so thread-safe.
 *
 * @param topic topic name
 * @param partition partition number
 * @param coldHighWatermark the next offset not in the cold tier: the last committed object's last
 *     offset + 1, or 0 while no object was ever committed (then the first commit may start at any
 *     offset >= 0)
 * @param coldLogStartOffset the first offset the cold tier holds (the first object's first offset);
 *     equals {@code coldHighWatermark} while the cold tier holds nothing
 * @param objectCount number of committed objects
 * @param committedBytes sum of the committed objects' sizes
 * @param logStartOffset the partition's log start offset as moved by DeleteRecords ({@link
 *     Catalog#advanceLogStart}), 0 if it never was: no offset below it is served from either tier
 * @param coldCleanedOffset the offset below which the cold tier is compacted ({@link
 *     Catalog#replaceObjects}), 0 if it never was: objects at or above it are dirty
 * @param lastColdCleaningMs when the cold tier was last compacted (epoch millis), -1 if never
 */
public record PartitionState(
        String topic,
        int partition,
        long coldHighWatermark,
        long coldLogStartOffset,
        long objectCount,
        long committedBytes,
        long logStartOffset,
        long coldCleanedOffset,
        long lastColdCleaningMs) {

    /** A state of a partition whose cold tier was never compacted. */
    public PartitionState(
            String topic,
            int partition,
            long coldHighWatermark,
            long coldLogStartOffset,
            long objectCount,
            long committedBytes,
            long logStartOffset) {
        this(
                topic,
                partition,
                coldHighWatermark,
                coldLogStartOffset,
                objectCount,
                committedBytes,
                logStartOffset,
                0,
                -1);
    }

    /** A state with no log start offset recorded. */
    public PartitionState(
            String topic,
            int partition,
            long coldHighWatermark,
            long coldLogStartOffset,
            long objectCount,
            long committedBytes) {
        this(
                topic,
                partition,
                coldHighWatermark,
                coldLogStartOffset,
                objectCount,
                committedBytes,
                0);
    }

    /** True if no object was ever committed to this partition. */
    public boolean empty() {
        return objectCount == 0;
    }
}

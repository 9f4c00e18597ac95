package io.tierlog.iceberg;

/**
 * What a topic's table holds of one partition.
 *
 * @param partition the partition
 * @param files live data files of the partition in the current snapshot
 * @param firstOffset first offset registered, or -1 when none
 * @param nextOffset the offset after the last registered file (the resume point), or -1 when none
 * @param catalogNextOffset the offset after the last object committed in tierlog's catalog, or -1
 */
public record PartitionTableState(
        int partition, int files, long firstOffset, long nextOffset, long catalogNextOffset) {
    /** Offsets committed to the cold tier but not yet in the table. */
    public long unregisteredOffsets() {
        if (catalogNextOffset < 0) {
            return 0;
        }
        return Math.max(0, catalogNextOffset - Math.max(nextOffset, 0));
    }
}

package io.tierlog.compactor;

/**
 * Totals of one offload pass. Immutable, so thread-safe.
 *
 * @param objects objects committed
 * @param records records in them
 * @param sourceBytes segment bytes offloaded
 * @param objectBytes bytes uploaded
 * @param failedPartitions partitions whose pass failed (retried next pass)
 * @param backlogBytes closed-segment bytes still not in the cold tier after the pass
 */
public record PassResult(
        long objects,
        long records,
        long sourceBytes,
        long objectBytes,
        int failedPartitions,
        long backlogBytes) {}

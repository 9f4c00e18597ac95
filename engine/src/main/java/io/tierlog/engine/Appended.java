package io.tierlog.engine;

/**
 * What {@link TieredLog#append} did: the offsets assigned and what a Kafka Produce response
 * reports. Immutable.
 *
 * @param firstOffset offset of the first record appended (of the original append for a duplicate)
 * @param lastOffset offset of the last record appended
 * @param logAppendTime the broker time stamped on the batches, or -1 when the topic uses CreateTime
 * @param logStartOffset the partition's log start offset at the time of the append
 * @param recordCount number of records in the request
 * @param duplicate true when an idempotent producer's retry was recognised and nothing was written
 */
public record Appended(
        long firstOffset,
        long lastOffset,
        long logAppendTime,
        long logStartOffset,
        int recordCount,
        boolean duplicate) {}

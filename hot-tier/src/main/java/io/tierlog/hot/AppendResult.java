package io.tierlog.hot;

/**
 * Outcome of {@link PartitionLog#append}. Immutable.
 *
 * @param firstOffset offset of the first record appended (or of the original append if duplicate)
 * @param lastOffset offset of the last record appended
 * @param logAppendTime broker time stamped on the batches, or -1 when the topic uses CreateTime
 * @param logStartOffset log start offset at the time of the append
 * @param recordCount number of records in the request
 * @param duplicate true when an idempotent retry was recognised and nothing was written
 */
public record AppendResult(
        long firstOffset,
        long lastOffset,
        long logAppendTime,
        long logStartOffset,
        int recordCount,
        boolean duplicate) {}

package io.tierlog.server.fetch;

import io.tierlog.engine.AbortedTransaction;
import java.util.List;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The answer of a {@link FetchSource}: records (file-backed {@code ZeroCopyRecords} or {@code
 * MemoryRecords}) and the partition's offsets at the time of the read. Immutable.
 *
 * @param records whole batches, possibly empty
 * @param highWatermark next offset readers may see
 * @param lastStableOffset the partition's real last stable offset, whatever the isolation
 * @param logStartOffset first offset still stored
 * @param abortedTransactions for a {@code read_committed} read, the aborted transactions a reader
 *     of {@code records} must skip (empty otherwise)
 */
public record PartitionRead(
        BaseRecords records,
        long highWatermark,
        long lastStableOffset,
        long logStartOffset,
        List<AbortedTransaction> abortedTransactions) {

    public PartitionRead {
        abortedTransactions = List.copyOf(abortedTransactions);
    }

    /** A read with no aborted transaction in it. */
    public PartitionRead(
            BaseRecords records, long highWatermark, long lastStableOffset, long logStartOffset) {
        this(records, highWatermark, lastStableOffset, logStartOffset, List.of());
    }

    /** No records, with no transaction open (last stable offset = high watermark). */
    public static PartitionRead empty(long highWatermark, long logStartOffset) {
        return empty(highWatermark, highWatermark, logStartOffset);
    }

    /** No records. */
    public static PartitionRead empty(
            long highWatermark, long lastStableOffset, long logStartOffset) {
        return new PartitionRead(
                MemoryRecords.EMPTY, highWatermark, lastStableOffset, logStartOffset);
    }

    public int sizeInBytes() {
        return records.sizeInBytes();
    }
}

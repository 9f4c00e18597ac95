package io.tierlog.server.fetch;

import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The answer of a {@link FetchSource}: records (file-backed {@code ZeroCopyRecords} or {@code
 * MemoryRecords}) and the partition's offsets at the time of the read. Immutable.
 *
 * @param records whole batches, possibly empty
 * @param highWatermark next offset readers may see
 * @param lastStableOffset equals the high watermark (no transactions)
 * @param logStartOffset first offset still stored
 */
public record PartitionRead(
        BaseRecords records, long highWatermark, long lastStableOffset, long logStartOffset) {

    public static PartitionRead empty(long highWatermark, long logStartOffset) {
        return new PartitionRead(MemoryRecords.EMPTY, highWatermark, highWatermark, logStartOffset);
    }

    public int sizeInBytes() {
        return records.sizeInBytes();
    }
}

package io.tierlog.cold;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.Crc32C;

/**
 * The stored header fields of one record batch (from the batch columns of a cold object), and the
 * writing of a v2 batch header with its CRC (layout in {@link RowBatchBuilder}).
 */
record BatchHeader(
        long baseOffset,
        int lastOffsetDelta,
        int partitionLeaderEpoch,
        long producerId,
        short producerEpoch,
        int baseSequence,
        short attributes,
        long baseTimestamp,
        long maxTimestamp) {

    boolean logAppendTime() {
        return (attributes & RowBatchBuilder.TIMESTAMP_TYPE_MASK) != 0;
    }

    int codecId() {
        return attributes & RowBatchBuilder.COMPRESSION_CODEC_MASK;
    }

    /**
     * Writes the header of the {@code size}-byte batch of {@code count} records that starts at
     * {@code start} of {@code buf} (records already in place), then its CRC-32C.
     */
    void writeTo(ByteBuffer buf, int start, int size, int count) {
        buf.putLong(start + RowBatchBuilder.BASE_OFFSET_OFFSET, baseOffset);
        buf.putInt(start + RowBatchBuilder.LENGTH_OFFSET, size - RowBatchBuilder.LOG_OVERHEAD);
        buf.putInt(start + RowBatchBuilder.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        buf.put(start + RowBatchBuilder.MAGIC_OFFSET, RecordBatch.MAGIC_VALUE_V2);
        buf.putShort(start + RowBatchBuilder.ATTRIBUTES_OFFSET, attributes);
        buf.putInt(start + RowBatchBuilder.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        buf.putLong(start + RowBatchBuilder.BASE_TIMESTAMP_OFFSET, baseTimestamp);
        buf.putLong(start + RowBatchBuilder.MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buf.putLong(start + RowBatchBuilder.PRODUCER_ID_OFFSET, producerId);
        buf.putShort(start + RowBatchBuilder.PRODUCER_EPOCH_OFFSET, producerEpoch);
        buf.putInt(start + RowBatchBuilder.BASE_SEQUENCE_OFFSET, baseSequence);
        buf.putInt(start + RowBatchBuilder.RECORDS_COUNT_OFFSET, count);
        ByteBuffer batch = buf.duplicate();
        batch.position(start); // Crc32C offsets are relative to the position
        long crc =
                Crc32C.compute(
                        batch,
                        RowBatchBuilder.ATTRIBUTES_OFFSET,
                        size - RowBatchBuilder.ATTRIBUTES_OFFSET);
        buf.putInt(start + RowBatchBuilder.CRC_OFFSET, (int) crc);
    }
}

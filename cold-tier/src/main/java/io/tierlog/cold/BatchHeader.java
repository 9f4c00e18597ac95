package io.tierlog.cold;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.Crc32C;

/**
 * The stored header fields of one record batch (from the batch columns of a cold object), and the
 * writing of a v2 batch header with its CRC (layout in {@link BatchFormat}).
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
        return (attributes & BatchFormat.TIMESTAMP_TYPE_MASK) != 0;
    }

    int codecId() {
        return attributes & BatchFormat.COMPRESSION_CODEC_MASK;
    }

    /**
     * Writes the header of the {@code size}-byte batch of {@code count} records that starts at
     * {@code start} of {@code buf} (records already in place), then its CRC-32C.
     */
    void writeTo(ByteBuffer buf, int start, int size, int count) {
        buf.putLong(start + BatchFormat.BASE_OFFSET_OFFSET, baseOffset);
        buf.putInt(start + BatchFormat.LENGTH_OFFSET, size - BatchFormat.LOG_OVERHEAD);
        buf.putInt(start + BatchFormat.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        buf.put(start + BatchFormat.MAGIC_OFFSET, RecordBatch.MAGIC_VALUE_V2);
        buf.putShort(start + BatchFormat.ATTRIBUTES_OFFSET, attributes);
        buf.putInt(start + BatchFormat.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        buf.putLong(start + BatchFormat.BASE_TIMESTAMP_OFFSET, baseTimestamp);
        buf.putLong(start + BatchFormat.MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buf.putLong(start + BatchFormat.PRODUCER_ID_OFFSET, producerId);
        buf.putShort(start + BatchFormat.PRODUCER_EPOCH_OFFSET, producerEpoch);
        buf.putInt(start + BatchFormat.BASE_SEQUENCE_OFFSET, baseSequence);
        buf.putInt(start + BatchFormat.RECORDS_COUNT_OFFSET, count);
        ByteBuffer batch = buf.duplicate();
        batch.position(start); // Crc32C offsets are relative to the position
        long crc =
                Crc32C.compute(
                        batch, BatchFormat.ATTRIBUTES_OFFSET, size - BatchFormat.ATTRIBUTES_OFFSET);
        buf.putInt(start + BatchFormat.CRC_OFFSET, (int) crc);
    }
}

package io.tierlog.cold;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/**
 * Builds one Kafka record batch (magic v2) from cold rows, with every header field taken from the
 * stored batch columns rather than recomputed, so that base timestamp, max timestamp, last offset
 * delta (which may exceed the last record's after compaction), attributes and producer fields are
 * those of the original batch. Records are written with {@link DefaultRecord#writeTo} and
 * compressed with the batch's original codec (default level).
 *
 * <p>Batch header, big-endian (Kafka {@code DefaultRecordBatch}):
 *
 * <pre>
 * BaseOffset           int64  @0
 * Length               int32  @8   bytes after this field
 * PartitionLeaderEpoch int32  @12
 * Magic                int8   @16  = 2
 * CRC                  uint32 @17  CRC-32C of Attributes..end
 * Attributes           int16  @21
 * LastOffsetDelta      int32  @23
 * BaseTimestamp        int64  @27
 * MaxTimestamp         int64  @35
 * ProducerId           int64  @43
 * ProducerEpoch        int16  @51
 * BaseSequence         int32  @53
 * RecordsCount         int32  @57
 * Records              @61 (compressed as one stream when the codec is not none)
 * </pre>
 *
 * <p>Not thread-safe: one builder per batch.
 */
final class RowBatchBuilder {
    static final int BASE_OFFSET_OFFSET = 0;
    static final int LENGTH_OFFSET = BASE_OFFSET_OFFSET + 8;
    static final int PARTITION_LEADER_EPOCH_OFFSET = LENGTH_OFFSET + 4;
    static final int MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + 4;
    static final int CRC_OFFSET = MAGIC_OFFSET + 1;
    static final int ATTRIBUTES_OFFSET = CRC_OFFSET + 4;
    static final int LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + 2;
    static final int BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + 4;
    static final int MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + 8;
    static final int PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + 8;
    static final int PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + 8;
    static final int BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + 2;
    static final int RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + 4;
    static final int RECORDS_OFFSET = RECORDS_COUNT_OFFSET + 4;
    static final int LOG_OVERHEAD = LENGTH_OFFSET + 4;

    static final int COMPRESSION_CODEC_MASK = 0x07;
    static final int TIMESTAMP_TYPE_MASK = 0x08;
    static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    static final int CONTROL_FLAG_MASK = 0x20;
    static final int DELETE_HORIZON_FLAG_MASK = 0x40;

    private final ByteBufferOutputStream out;
    private final DataOutputStream records;
    private final BatchHeader header;
    private final int start;
    private int count;

    /** Starts a batch with the batch fields of {@code first}, appending to {@code out}. */
    RowBatchBuilder(ByteBufferOutputStream out, ColdRow first) {
        this.out = out;
        this.header =
                new BatchHeader(
                        first.batchBaseOffset,
                        first.batchLastOffsetDelta,
                        first.partitionLeaderEpoch,
                        first.producerId,
                        first.producerEpoch,
                        first.baseSequence,
                        first.attributes,
                        first.batchBaseTimestamp,
                        first.batchMaxTimestamp);
        this.start = out.position();
        out.ensureRemaining(RECORDS_OFFSET);
        out.position(start + RECORDS_OFFSET);
        Compression compression = Compression.of(CompressionType.forId(header.codecId())).build();
        OutputStream os = compression.wrapForOutput(out, RecordBatch.MAGIC_VALUE_V2);
        this.records = new DataOutputStream(os);
    }

    long baseOffset() {
        return header.baseOffset();
    }

    /** Appends the record of {@code row}, which must belong to this batch. */
    void append(ColdRow row) throws IOException {
        int offsetDelta = (int) (row.offset - header.baseOffset());
        // LogAppendTime batches report the batch max timestamp for every record; the deltas the
        // producer wrote are not kept, so they are written as zero.
        long timestampDelta = header.logAppendTime() ? 0 : row.timestamp - header.baseTimestamp();
        DefaultRecord.writeTo(
                records, offsetDelta, timestampDelta, row.key, row.value, row.headers);
        count++;
    }

    /** Finishes the batch: compresses, writes the header and the CRC. Returns its size. */
    int close() throws IOException {
        records.close();
        int size = out.position() - start;
        header.writeTo(out.buffer(), start, size, count);
        return size;
    }

    /** The raw attributes of {@code batch} as stored in its header. */
    static short attributesOf(RecordBatch batch) {
        int a = batch.compressionType().id & COMPRESSION_CODEC_MASK;
        if (batch.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME) {
            a |= TIMESTAMP_TYPE_MASK;
        }
        if (batch.isTransactional()) {
            a |= TRANSACTIONAL_FLAG_MASK;
        }
        if (batch.isControlBatch()) {
            a |= CONTROL_FLAG_MASK;
        }
        if (batch.deleteHorizonMs().isPresent()) {
            a |= DELETE_HORIZON_FLAG_MASK;
        }
        return (short) a;
    }
}

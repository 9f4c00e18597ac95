package io.tierlog.cold;

import io.tierlog.common.typed.ValueTyper;
import java.nio.ByteBuffer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * One row of a cold object (see {@link ColdLayout}): a record plus the fields of its batch. Used
 * mutably and reused row after row by the writer and the reader.
 *
 * <p>Not thread-safe.
 */
final class ColdRow {
    static final Header[] NO_HEADERS = new Header[0];

    long offset;

    /** Effective record timestamp in milliseconds. */
    long timestamp;

    ByteBuffer key;
    ByteBuffer value;
    Header[] headers = NO_HEADERS;

    long batchBaseOffset;
    int batchLastOffsetDelta;
    int partitionLeaderEpoch;
    long producerId;
    short producerEpoch;
    int baseSequence;
    short attributes;
    long batchBaseTimestamp;
    long batchMaxTimestamp;

    /** The outcome of the batch's transaction ({@code batch_txn_state}). */
    TxnState txnState = TxnState.NONE;

    /** Writing: the typed outcome of the value / key (null = no payload or no typer). */
    ValueTyper.Typed valueTyped;

    ValueTyper.Typed keyTyped;

    /**
     * {@code value_rebuilt}: the value is not stored ({@link #value} null when written) but rebuilt
     * from {@link #valueSchemaId} and {@link #valueRecord}, checked against {@link #valueCrc}.
     */
    boolean valueRebuilt;

    /** Reading: {@code value_schema_id}, -1 = null. */
    int valueSchemaId = -1;

    /** Reading: {@code value_record}, null = null. */
    Object[] valueRecord;

    /** CRC-32C of the value ({@code value_crc32c}), meaningful when {@link #valueRebuilt}. */
    int valueCrc;

    /** Copies the batch-level fields of {@code batch}. */
    void setBatch(RecordBatch batch, short rawAttributes, long rawBaseTimestamp) {
        batchBaseOffset = batch.baseOffset();
        batchLastOffsetDelta = (int) (batch.lastOffset() - batch.baseOffset());
        partitionLeaderEpoch = batch.partitionLeaderEpoch();
        producerId = batch.producerId();
        producerEpoch = batch.producerEpoch();
        baseSequence = batch.baseSequence();
        attributes = rawAttributes;
        batchBaseTimestamp = rawBaseTimestamp;
        batchMaxTimestamp = batch.maxTimestamp();
    }

    int compressionId() {
        return attributes & RowBatchBuilder.COMPRESSION_CODEC_MASK;
    }

    boolean isTransactional() {
        return (attributes & RowBatchBuilder.TRANSACTIONAL_FLAG_MASK) != 0;
    }

    boolean isControl() {
        return (attributes & RowBatchBuilder.CONTROL_FLAG_MASK) != 0;
    }
}

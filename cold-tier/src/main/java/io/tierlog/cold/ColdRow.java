package io.tierlog.cold;

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

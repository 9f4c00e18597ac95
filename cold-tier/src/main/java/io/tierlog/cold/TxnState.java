package io.tierlog.cold;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The transactional outcome of a record batch, as the cold layout's {@code batch_txn_state} column
 * stores it (column id 22, see {@code ColdLayout}): {@code none} for a batch outside any
 * transaction, {@code committed} or {@code aborted} for a transactional data batch by the outcome
 * of its transaction, and for a control batch (transaction marker) by the marker's type. The cold
 * tier only ever holds finished transactions (the offload stops at the last stable offset), so
 * there is no "open" state.
 *
 * <p>Immutable constants.
 */
public enum TxnState {
    NONE("none"),
    COMMITTED("committed"),
    ABORTED("aborted");

    private final String columnValue;
    private final byte[] bytes;

    TxnState(String columnValue) {
        this.columnValue = columnValue;
        this.bytes = columnValue.getBytes(StandardCharsets.US_ASCII);
    }

    /** The value stored in {@code batch_txn_state}. */
    public String columnValue() {
        return columnValue;
    }

    byte[] columnBytes() {
        return bytes;
    }

    /**
     * The state stored as {@code bytes[offset, offset + length)}.
     *
     * @throws IllegalArgumentException for any other value
     */
    static TxnState ofColumn(byte[] b, int offset, int length) {
        for (TxnState s : values()) {
            if (s.bytes.length == length
                    && java.util.Arrays.equals(b, offset, offset + length, s.bytes, 0, length)) {
                return s;
            }
        }
        throw new IllegalArgumentException(
                "unknown batch_txn_state '"
                        + new String(b, offset, length, StandardCharsets.US_ASCII)
                        + "'");
    }

    /**
     * The state a batch carries when the caller knows of no aborted transaction: {@code none}
     * outside transactions, a marker's own outcome for a control batch, {@code committed} for a
     * transactional data batch.
     */
    public static TxnState assumingCommitted(RecordBatch batch) {
        if (!batch.isTransactional()) {
            return NONE;
        }
        if (batch.isControlBatch()) {
            return ofMarker(batch);
        }
        return COMMITTED;
    }

    /**
     * The outcome a control batch records: its one record's key is Kafka's control record key
     * (int16 version, int16 type: 0 abort, 1 commit).
     *
     * @throws IllegalArgumentException if the batch holds no transaction marker
     */
    public static TxnState ofMarker(RecordBatch controlBatch) {
        for (Record r : controlBatch) {
            ByteBuffer key = r.key();
            if (key == null) {
                break;
            }
            ControlRecordType type = ControlRecordType.parse(key.duplicate());
            if (type == ControlRecordType.ABORT) {
                return ABORTED;
            }
            if (type == ControlRecordType.COMMIT) {
                return COMMITTED;
            }
            break;
        }
        throw new IllegalArgumentException(
                "control batch at offset "
                        + controlBatch.baseOffset()
                        + " holds no transaction marker");
    }
}

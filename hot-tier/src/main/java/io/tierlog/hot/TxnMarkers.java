package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * Transaction markers (control batches) and the partition-wide transaction queries on segments:
 * builds a marker as Kafka's {@code MemoryRecords.withEndTransactionMarker} does (attributes
 * transactional + control, base sequence -1, one record whose key is {@code int16 version 0, int16
 * type} (0 abort, 1 commit) and whose value is {@code int16 version 0, int32 coordinatorEpoch}),
 * reads one back for replay, and collects aborted transactions from the segments' {@code .txnindex}
 * (Kafka's {@code collectAbortedTxns}). Stateless; thread-safe.
 */
final class TxnMarkers {
    private TxnMarkers() {}

    /** A marker read back from the log. */
    record Marker(boolean commit, int coordinatorEpoch) {}

    /** The bytes of one marker batch at {@code offset} (writable, positioned at 0). */
    static ByteBuffer build(
            long offset,
            long timestamp,
            int partitionLeaderEpoch,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit) {
        MemoryRecords r =
                MemoryRecords.withEndTransactionMarker(
                        offset,
                        timestamp,
                        partitionLeaderEpoch,
                        producerId,
                        producerEpoch,
                        new EndTransactionMarker(
                                commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                                coordinatorEpoch));
        ByteBuffer src = r.buffer();
        ByteBuffer out = ByteBuffer.allocate(src.remaining());
        out.put(src.duplicate()).flip();
        return out;
    }

    static boolean isControl(short attributes) {
        return (attributes & CONTROL_MASK) != 0;
    }

    static boolean isTransactional(short attributes) {
        return (attributes & TRANSACTIONAL_MASK) != 0;
    }

    /**
     * Reads the marker of the control batch at {@code position} ({@code size} bytes).
     *
     * @return the marker, or null when the batch is not an end-transaction marker (another control
     *     type, or emptied by the cleaner: Kafka then ignores it too)
     */
    static Marker read(FileChannel ch, long position, int size) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(size);
        long p = position;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, p);
            if (n < 0) {
                throw new IOException("Unexpected end of file at " + p);
            }
            p += n;
        }
        buf.flip();
        return parse(buf);
    }

    /** The marker of the control batch in {@code batch}, or null (see {@link #read}). */
    static Marker parse(ByteBuffer batch) {
        Iterator<MutableRecordBatch> it = MemoryRecords.readableRecords(batch).batches().iterator();
        if (!it.hasNext()) {
            return null;
        }
        MutableRecordBatch b = it.next();
        Iterator<Record> records = b.iterator();
        if (!records.hasNext()) {
            return null;
        }
        Record r = records.next();
        ControlRecordType type = ControlRecordType.parse(r.key());
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            return null;
        }
        EndTransactionMarker m = EndTransactionMarker.deserialize(r);
        return new Marker(type == ControlRecordType.COMMIT, m.coordinatorEpoch());
    }

    /**
     * The aborted transactions a reader of {@code [from, upTo)} must know, from the segments from
     * the one holding {@code from}: Kafka's {@code collectAbortedTxns}, stopping at the first entry
     * whose last stable offset reaches {@code upTo}.
     */
    static List<AbortedTxn> collect(LogSegment[] segs, long from, long upTo) {
        List<AbortedTxn> out = new ArrayList<>();
        if (upTo <= from || segs.length == 0) {
            return out;
        }
        for (int i = Math.max(0, LogReads.floorIndex(segs, from)); i < segs.length; i++) {
            if (segs[i].txnIndex().collect(from, upTo, out)) {
                break;
            }
        }
        return out;
    }
}

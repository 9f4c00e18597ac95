package io.tierlog.cold.testing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Builds a partition's batches the way a log with transactions holds them: plain batches,
 * transactional data batches of several producers, commit and abort markers, in offset order.
 * Record values are {@code "<offset>"}, keys {@code "k<offset % 7>"}. Not thread-safe.
 */
public final class TxnBatches {
    private final List<MemoryRecords> batches = new ArrayList<>();
    private final CompressionType codec;
    private long next;
    private long clock = 1_700_000_000_000L;

    public TxnBatches(long baseOffset, CompressionType codec) {
        this.next = baseOffset;
        this.codec = codec;
    }

    /** A non-transactional batch of {@code records} records. */
    public TxnBatches plain(int records) {
        return data(RecordBatch.NO_PRODUCER_ID, false, records);
    }

    /** A transactional data batch of {@code records} records of producer {@code pid}. */
    public TxnBatches txn(long pid, int records) {
        return data(pid, true, records);
    }

    /** A commit ({@code commit}) or abort marker of producer {@code pid}. */
    public TxnBatches marker(long pid, boolean commit) {
        batches.add(
                MemoryRecords.withEndTransactionMarker(
                        next,
                        clock++,
                        3,
                        pid,
                        (short) 0,
                        new EndTransactionMarker(
                                commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, 5)));
        next++;
        return this;
    }

    private TxnBatches data(long pid, boolean transactional, int records) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + records * 64);
        boolean producer = pid != RecordBatch.NO_PRODUCER_ID;
        MemoryRecordsBuilder b =
                new MemoryRecordsBuilder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.of(codec).build(),
                        TimestampType.CREATE_TIME,
                        next,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        producer ? (short) 0 : RecordBatch.NO_PRODUCER_EPOCH,
                        producer ? (int) next : RecordBatch.NO_SEQUENCE,
                        transactional,
                        false,
                        3,
                        buf.capacity());
        for (int i = 0; i < records; i++) {
            b.appendWithOffset(
                    next,
                    clock++,
                    ("k" + next % 7).getBytes(StandardCharsets.UTF_8),
                    Long.toString(next).getBytes(StandardCharsets.UTF_8));
            next++;
        }
        batches.add(b.build());
        return this;
    }

    /** The batches so far, one {@link MemoryRecords} each. */
    public List<MemoryRecords> batches() {
        return List.copyOf(batches);
    }

    /** The next offset. */
    public long nextOffset() {
        return next;
    }

    /** Every batch so far as one buffer (as a segment file holds them). */
    public ByteBuffer concatenated() {
        int size = batches.stream().mapToInt(MemoryRecords::sizeInBytes).sum();
        ByteBuffer out = ByteBuffer.allocate(size);
        for (MemoryRecords m : batches) {
            out.put(m.buffer().duplicate());
        }
        return out.flip();
    }
}

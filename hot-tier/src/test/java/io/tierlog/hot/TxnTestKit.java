package io.tierlog.hot;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Transactional batches and log walks for the transaction tests. Stateless. */
final class TxnTestKit {
    private TxnTestKit() {}

    /** A transactional batch of {@code n} keyed records ({@code key-i}), as a producer sends it. */
    static ByteBuffer txnBatch(long pid, short epoch, int seq, int n, long ts, String keyPrefix) {
        ByteBuffer buf = ByteBuffer.allocate(1024 + n * 64);
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        buf,
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        0L,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        epoch,
                        seq,
                        true,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        for (int i = 0; i < n; i++) {
            b.append(
                    new SimpleRecord(
                            ts,
                            (keyPrefix + "-" + i).getBytes(),
                            ("v" + pid + "-" + seq + "-" + i).getBytes()));
        }
        MemoryRecords built = b.build();
        ByteBuffer out = ByteBuffer.allocate(built.sizeInBytes());
        out.put(built.buffer().duplicate()).flip();
        return out;
    }

    /** A transactional batch appended after verification (KIP-890), as the produce path does. */
    static AppendResult appendTxn(PartitionLog log, long pid, short epoch, int seq, int n, long ts)
            throws Exception {
        VerificationGuard g = log.maybeStartTxnVerification(pid, seq, epoch, true);
        return log.append(
                txnBatch(pid, epoch, seq, n, ts, "k"), PartitionLog.NO_PARTITION_LEADER_EPOCH, g);
    }

    /** Every batch of the log up to the high watermark. */
    static List<RecordBatch> batches(PartitionLog log) throws Exception {
        return new ArrayList<>(LogTestSupport.readAll(log, 1 << 20));
    }

    /**
     * The records a read_committed consumer sees, by Kafka's client algorithm ({@code
     * CompletedFetch}): up to the LSO, skipping the batches of aborted transactions named by {@code
     * abortedTransactions}, never returning control batches.
     */
    static List<String> readCommitted(PartitionLog log) throws Exception {
        List<String> out = new ArrayList<>();
        long lso = log.lastStableOffset();
        List<AbortedTxn> aborted =
                new ArrayList<>(log.abortedTransactions(log.logStartOffset(), lso));
        aborted.sort((a, b) -> Long.compare(a.firstOffset(), b.firstOffset()));
        java.util.Set<Long> abortedPids = new java.util.HashSet<>();
        int next = 0;
        for (RecordBatch b : batches(log)) {
            if (b.baseOffset() >= lso) {
                break;
            }
            while (next < aborted.size() && aborted.get(next).firstOffset() <= b.lastOffset()) {
                abortedPids.add(aborted.get(next++).producerId());
            }
            if (b.isControlBatch()) {
                TxnMarkers.Marker m = markerOf(b);
                if (m != null && !m.commit()) {
                    abortedPids.remove(b.producerId());
                }
                continue;
            }
            if (b.isTransactional() && abortedPids.contains(b.producerId())) {
                continue;
            }
            for (org.apache.kafka.common.record.internal.Record r : b) {
                out.add(r.offset() + ":" + new String(toBytes(r.value())));
            }
        }
        return out;
    }

    static TxnMarkers.Marker markerOf(RecordBatch b) {
        ByteBuffer buf = ByteBuffer.allocate(b.sizeInBytes());
        b.writeTo(buf);
        buf.flip();
        return TxnMarkers.parse(buf);
    }

    static byte[] toBytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}

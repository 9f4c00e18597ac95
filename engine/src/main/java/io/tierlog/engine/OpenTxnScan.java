package io.tierlog.engine;

import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The open transactions of a partition of a log dir read from outside ({@link ReadOnlyLogDir}, for
 * {@code tierlog inspect}): a scan of the batches from the last stable offset on, where a
 * transactional data batch opens its producer's transaction and any control batch of the producer
 * ends it. Starting at the LSO loses nothing: every open transaction begins at or above it, and a
 * transaction begun below it has ended (else the LSO would be lower), so its later batches open and
 * its marker closes it again within the scan. Stateless.
 */
final class OpenTxnScan {
    private OpenTxnScan() {}

    /** A transaction being scanned: first offset, epoch and last write of its producer. */
    private static final class Open {
        final long firstOffset;
        short epoch;
        long lastTimestamp;

        Open(long firstOffset) {
            this.firstOffset = firstOffset;
        }
    }

    /**
     * The transactions open in {@code tp} at the end of its valid batches, oldest first.
     *
     * @param lso the partition's last stable offset (the scan starts there)
     */
    static List<OpenTransaction> scan(
            ReadOnlyLogDir hot, TopicPartition tp, List<SegmentInfo> segs, long lso)
            throws IOException {
        Map<Long, Open> open = new LinkedHashMap<>();
        for (SegmentInfo s : segs) {
            if (s.nextOffset() <= lso) {
                continue;
            }
            Iterator<RecordBatch> it = hot.batchesFrom(s, lso);
            while (it.hasNext()) {
                RecordBatch b = it.next();
                if (!b.isTransactional() || b.producerId() < 0) {
                    continue;
                }
                if (b.isControlBatch()) {
                    open.remove(b.producerId());
                    continue;
                }
                Open o = open.computeIfAbsent(b.producerId(), pid -> new Open(b.baseOffset()));
                o.epoch = b.producerEpoch();
                o.lastTimestamp = b.maxTimestamp();
            }
        }
        List<OpenTransaction> out = new ArrayList<>(open.size());
        for (Map.Entry<Long, Open> e : open.entrySet()) {
            Open o = e.getValue();
            out.add(new OpenTransaction(e.getKey(), o.epoch, o.firstOffset, o.lastTimestamp));
        }
        out.sort(Comparator.comparingLong(OpenTransaction::firstOffset));
        return out;
    }
}

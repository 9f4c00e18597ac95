package io.tierlog.hot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The transactions the cleaner walks through, batch by batch in offset order (the semantics of
 * Kafka's {@code CleanedTransactionMetadata}): which data batches belong to aborted transactions
 * (they go, whatever their keys), which markers may go, and the aborted transactions the cleaned
 * segment's {@code .txnindex} keeps.
 *
 * <ul>
 *   <li>The aborted transactions of the cleaned range come from the txn indexes ({@link
 *       #addAborted}); one becomes "open" once a batch at or after its first offset is read.
 *   <li>A transactional data batch of a producer with an open aborted transaction is aborted
 *       (discardable); any other transactional batch marks its producer's transaction as seen.
 *   <li>An abort marker whose transaction still had data in this pass stays (and its entry goes to
 *       the cleaned index); with no data left it may go. A commit marker may go when no data of its
 *       transaction was read in this pass. A marker that may go is kept until its delete horizon
 *       ({@code delete.retention.ms} after the cleaning that found it removable) passed, so that a
 *       consumer reading meanwhile still sees the transaction end.
 * </ul>
 *
 * <p>Not thread-safe: one per cleaning.
 */
final class CleanerTxns {
    private final PriorityQueue<AbortedTxn> pending =
            new PriorityQueue<>((a, b) -> Long.compare(a.firstOffset(), b.firstOffset()));
    private final Set<AbortedTxn> known = new HashSet<>();
    private final Map<Long, OpenAborted> openAborted = new HashMap<>();
    private final Set<Long> openCommitted = new HashSet<>();
    private List<AbortedTxn> cleanedIndex = new ArrayList<>();

    private static final class OpenAborted {
        final AbortedTxn txn;
        boolean sawData;

        OpenAborted(AbortedTxn txn) {
            this.txn = txn;
        }
    }

    /** Adds aborted transactions found for the next range (duplicates are ignored). */
    void addAborted(List<AbortedTxn> aborted) {
        for (AbortedTxn a : aborted) {
            if (known.add(a)) {
                pending.add(a);
            }
        }
    }

    /** Starts collecting the entries of the next cleaned segment's index. */
    void startSegment() {
        cleanedIndex = new ArrayList<>();
    }

    /** The entries the current cleaned segment's index keeps, in marker order. */
    List<AbortedTxn> cleanedIndex() {
        return cleanedIndex;
    }

    /**
     * Reads one batch (data or control).
     *
     * @return whether the batch may be discarded: an aborted data batch, or a marker whose
     *     transaction has no data left (subject to its delete horizon)
     */
    boolean onBatch(RecordBatch batch) {
        consumeUpTo(batch.lastOffset());
        if (batch.isControlBatch()) {
            return onControl(batch);
        }
        if (!batch.isTransactional()) {
            return false;
        }
        OpenAborted a = openAborted.get(batch.producerId());
        if (a != null) {
            a.sawData = true;
            return true;
        }
        openCommitted.add(batch.producerId());
        return false;
    }

    private boolean onControl(RecordBatch batch) {
        Iterator<Record> it = batch.iterator();
        if (!it.hasNext()) {
            return true; // emptied by an earlier cleaning
        }
        ControlRecordType type = ControlRecordType.parse(it.next().key());
        long pid = batch.producerId();
        if (type == ControlRecordType.ABORT) {
            OpenAborted a = openAborted.remove(pid);
            if (a != null && a.sawData) {
                cleanedIndex.add(a.txn);
                return false;
            }
            return true;
        }
        if (type == ControlRecordType.COMMIT) {
            return !openCommitted.remove(pid);
        }
        return false;
    }

    private void consumeUpTo(long offset) {
        while (!pending.isEmpty() && pending.peek().firstOffset() <= offset) {
            AbortedTxn a = pending.poll();
            openAborted.putIfAbsent(a.producerId(), new OpenAborted(a));
        }
    }
}

package io.tierlog.cold;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Batches read from a cold object ({@link ParquetLogReader#readBatches}) with the transactional
 * outcome of each ({@code batch_txn_state}) and the chunk's {@link AbortedRun}s, which a {@code
 * read_committed} read needs and which no hot data is required for. Runs are found by walking the
 * batches in offset order: an aborted data batch of a producer with no open run opens one at its
 * base offset, that producer's abort marker closes it (last = the marker's offset), and runs still
 * open at the end close at the chunk's last offset.
 *
 * <p>Immutable, so thread-safe.
 */
public final class ColdBatches {
    /** No batches. */
    public static final ColdBatches EMPTY =
            new ColdBatches(MemoryRecords.EMPTY, new long[0], new TxnState[0], List.of(), true);

    private final MemoryRecords records;
    private final long[] txnBases;
    private final TxnState[] txnStates;
    private final List<AbortedRun> abortedRuns;
    private final boolean statesStored;

    private ColdBatches(
            MemoryRecords records,
            long[] txnBases,
            TxnState[] txnStates,
            List<AbortedRun> abortedRuns,
            boolean statesStored) {
        this.records = records;
        this.txnBases = txnBases;
        this.txnStates = txnStates;
        this.abortedRuns = abortedRuns;
        this.statesStored = statesStored;
    }

    /**
     * The batches of {@code records} with the states of their transactional batches by base offset
     * ({@code states}; a transactional data batch missing from it counts as committed, a marker
     * missing from it has its own type).
     *
     * @param statesStored false when the states were derived (objects of format 1)
     */
    static ColdBatches of(MemoryRecords records, Map<Long, TxnState> states, boolean statesStored) {
        List<Long> bases = new ArrayList<>();
        List<TxnState> txn = new ArrayList<>();
        Map<Long, Long> open = new HashMap<>();
        List<AbortedRun> runs = new ArrayList<>();
        long last = -1;
        for (MutableRecordBatch b : records.batches()) {
            last = b.lastOffset();
            if (!b.isTransactional()) {
                continue;
            }
            TxnState s = states.get(b.baseOffset());
            if (s == null) {
                // not stored (format 1): a marker says its own outcome
                s = b.isControlBatch() ? markerState(b) : TxnState.COMMITTED;
            }
            bases.add(b.baseOffset());
            txn.add(s);
            long pid = b.producerId();
            if (b.isControlBatch()) {
                Long first = open.remove(pid);
                if (first != null) {
                    runs.add(new AbortedRun(pid, first, b.lastOffset()));
                }
            } else if (s == TxnState.ABORTED) {
                open.putIfAbsent(pid, b.baseOffset());
            }
        }
        for (Map.Entry<Long, Long> e : open.entrySet()) {
            runs.add(new AbortedRun(e.getKey(), e.getValue(), last));
        }
        runs.sort(Comparator.comparingLong(AbortedRun::firstOffset));
        long[] b = new long[bases.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = bases.get(i);
        }
        return new ColdBatches(
                records, b, txn.toArray(new TxnState[0]), List.copyOf(runs), statesStored);
    }

    private static TxnState markerState(RecordBatch controlBatch) {
        try {
            return TxnState.ofMarker(controlBatch);
        } catch (IllegalArgumentException e) {
            return TxnState.COMMITTED; // a transactional control batch that is no marker
        }
    }

    /** The batches, whole, in offset order. */
    public MemoryRecords records() {
        return records;
    }

    /** The outcome of {@code batch}, one of {@link #records()}'s batches. */
    public TxnState txnState(RecordBatch batch) {
        if (!batch.isTransactional()) {
            return TxnState.NONE;
        }
        int i = Arrays.binarySearch(txnBases, batch.baseOffset());
        return i < 0 ? TxnState.COMMITTED : txnStates[i];
    }

    /** The aborted runs of these batches, by first offset. */
    public List<AbortedRun> abortedRuns() {
        return abortedRuns;
    }

    /**
     * The aborted runs holding any offset of {@code [from, next)}: what a {@code read_committed}
     * reader of that range must skip.
     */
    public List<AbortedRun> abortedRuns(long from, long next) {
        List<AbortedRun> out = new ArrayList<>();
        for (AbortedRun r : abortedRuns) {
            if (r.overlaps(from, next)) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * False when the object has no {@code batch_txn_state} (format 1) and the states were derived
     * from the markers inside it: a transaction whose marker lies in a later object then counts as
     * committed.
     */
    public boolean txnStatesStored() {
        return statesStored;
    }
}

package io.tierlog.compactor;

import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ColdBatches;
import io.tierlog.cold.ColdTierOptions;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.cold.ParquetLogWriter;
import io.tierlog.cold.TxnState;
import io.tierlog.cold.WrittenObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;

/**
 * Reads the batches of cold objects back (whole batches, in offset order, as {@link
 * ParquetLogReader} rebuilds them) and either feeds their keys to a {@link ColdKeyMap} or writes
 * the records a {@link ColdRecordFilter} keeps into one compacted Parquet file that stands for the
 * run's exact offset range. Batch by batch, so memory stays at one read chunk.
 *
 * <p>Transactions (Kafka's cleaner rules): batches of aborted transactions ({@code batch_txn_state
 * = aborted}) neither enter the key map (an aborted value never shadows an older committed one) nor
 * the compacted object; transaction markers are kept whole (a reader may still need a marker to end
 * the aborted run of a transaction whose data lie in earlier objects); kept batches keep their
 * outcome.
 *
 * <p>Not thread-safe: one per pass.
 */
final class ColdRunRewriter {
    /** Bytes decoded per read of an object. */
    static final int READ_BYTES = 8 << 20;

    private final ObjectStore store;
    private final ColdTierOptions coldOptions;
    private final LongConsumer throttle;
    private final TypedColumnsSource typed;
    private final BufferSupplier buffers = BufferSupplier.create();

    /**
     * @param typed the typed columns of the compacted objects, and the rebuilder of values stored
     *     once in the objects read
     * @param throttle called with the bytes of every object read and written (the compactor's I/O
     *     rate limit); may block
     */
    ColdRunRewriter(
            ObjectStore store,
            ColdTierOptions coldOptions,
            TypedColumnsSource typed,
            LongConsumer throttle) {
        this.store = store;
        this.coldOptions = coldOptions;
        this.typed = typed;
        this.throttle = throttle;
    }

    /** What one run's rewrite produced. */
    record Rewritten(WrittenObject object, boolean changed, long tombstonesRemoved) {}

    /** Puts every keyed record of {@code obj} into {@code map}, latest offset last. */
    void map(ColdObject obj, ColdKeyMap map) throws IOException {
        forEachBatch(
                obj,
                (b, state) -> {
                    if (b.isControlBatch() || state == TxnState.ABORTED) {
                        return;
                    }
                    try (var it = b.streamingIterator(buffers)) {
                        while (it.hasNext()) {
                            Record r = it.next();
                            if (r.hasKey()) {
                                map.put(r.key(), r.offset());
                            }
                        }
                    }
                });
    }

    /**
     * Writes the records of {@code run} that {@code filter} keeps into {@code file}, marked as the
     * compacted copy of the run: its range is the run's, from the first object's first offset to
     * the last one's last offset.
     */
    Rewritten rewrite(
            List<ColdObject> run, ColdRecordFilter filter, Path file, String topic, int partition)
            throws IOException {
        long removedBefore = filter.tombstonesRemoved();
        boolean[] changed = {run.size() > 1};
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(
                        file, topic, partition, coldOptions, typed.forObject(topic))) {
            writer.markCompacted(run.get(0).firstOffset(), run.get(run.size() - 1).lastOffset());
            ByteBuffer[] out = {ByteBuffer.allocate(64 * 1024)};
            for (ColdObject obj : run) {
                forEachBatch(
                        obj,
                        (b, state) -> {
                            if (state == TxnState.ABORTED && !b.isControlBatch()) {
                                changed[0] = true; // an aborted transaction's data: dropped
                                return;
                            }
                            ByteBuffer one = ByteBuffer.allocate(b.sizeInBytes());
                            b.writeTo(one);
                            one.flip();
                            if (out[0].capacity() < one.capacity() + 1024) {
                                out[0] = ByteBuffer.allocate(one.capacity() * 2 + 1024);
                            }
                            out[0].clear();
                            MemoryRecords.FilterResult r =
                                    MemoryRecords.readableRecords(one.duplicate())
                                            .filterTo(filter, out[0], buffers, Integer.MAX_VALUE);
                            ByteBuffer kept = r.outputBuffer();
                            out[0] = kept;
                            kept.flip();
                            if (!kept.equals(one)) {
                                changed[0] = true;
                            }
                            for (MutableRecordBatch k :
                                    MemoryRecords.readableRecords(kept.slice()).batches()) {
                                writer.append(k, state); // filterTo keeps the base offset
                            }
                        });
            }
            WrittenObject w = writer.finish();
            throttle.accept(w.sizeInBytes());
            return new Rewritten(w, changed[0], filter.tombstonesRemoved() - removedBefore);
        }
    }

    /** A run that {@link #copy} cannot copy exactly; nothing of it is to be committed. */
    static final class NotCopyableException extends IOException {
        private static final long serialVersionUID = 1L;

        NotCopyableException(String message) {
            super(message);
        }
    }

    /**
     * Writes every batch of {@code run} as it is, with its transactional outcome (aborted data and
     * markers too: a reader skips them as it did in the originals), into {@code file}: the merged
     * copy of a run of small objects. Unless {@code markCompacted} (a run of already compacted
     * objects, whose offsets may be sparse), the copy is an ordinary object whose batches must span
     * exactly the run's range.
     *
     * @throws NotCopyableException if an object stores no transactional outcomes but holds a
     *     transactional batch (its outcome is unknown, a copy would fix it), or an unmarked copy
     *     does not span the run's range
     */
    WrittenObject copy(
            List<ColdObject> run, Path file, String topic, int partition, boolean markCompacted)
            throws IOException {
        long first = run.get(0).firstOffset();
        long last = run.get(run.size() - 1).lastOffset();
        try (ParquetLogWriter writer =
                ParquetLogWriter.open(
                        file, topic, partition, coldOptions, typed.forObject(topic))) {
            if (markCompacted) {
                writer.markCompacted(first, last);
            }
            for (ColdObject obj : run) {
                forEachBatch(
                        obj,
                        (b, state, stored) -> {
                            if (!stored && b.isTransactional()) {
                                throw new NotCopyableException(
                                        obj.key()
                                                + " stores no transaction outcomes and holds a"
                                                + " transactional batch at "
                                                + b.baseOffset());
                            }
                            writer.append(b, state);
                        });
            }
            WrittenObject w = writer.finish();
            throttle.accept(w.sizeInBytes());
            if (w.firstOffset() != first || w.lastOffset() != last) {
                throw new NotCopyableException(
                        "the batches of the run span "
                                + w.firstOffset()
                                + ".."
                                + w.lastOffset()
                                + ", not its range "
                                + first
                                + ".."
                                + last);
            }
            return w;
        }
    }

    private interface BatchAction {
        void accept(MutableRecordBatch batch, TxnState state) throws IOException;
    }

    private interface StoredBatchAction {
        /** {@code stored}: the object stores outcomes ({@code state} is not a default). */
        void accept(MutableRecordBatch batch, TxnState state, boolean stored) throws IOException;
    }

    private void forEachBatch(ColdObject obj, BatchAction action) throws IOException {
        forEachBatch(obj, (b, state, stored) -> action.accept(b, state));
    }

    private void forEachBatch(ColdObject obj, StoredBatchAction action) throws IOException {
        throttle.accept(obj.sizeInBytes());
        ParquetLogReader reader =
                new ParquetLogReader(store, obj.key(), obj.sizeInBytes(), typed.rebuilder());
        long next = obj.firstOffset();
        while (next <= obj.lastOffset()) {
            ColdBatches read = reader.readBatches(next, READ_BYTES);
            MemoryRecords chunk = read.records();
            if (chunk.sizeInBytes() == 0) {
                return; // the object's tail holds no batch (compacted away)
            }
            for (MutableRecordBatch b : chunk.batches()) {
                action.accept(b, read.txnState(b), read.txnStatesStored());
                next = b.lastOffset() + 1;
            }
        }
    }
}

package io.tierlog.cold;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.slf4j.Logger;

/**
 * Transactional outcomes of the batches of a format 1 object, which has no {@code batch_txn_state}:
 * tierlog wrote transactional batches into such objects only when {@code tierlog offload} copied a
 * Kafka log dir. A data batch of producer P belongs to P's first marker after it in the object:
 * aborted if that marker is an abort. A batch whose marker is not in the object (it lies in a later
 * one) counts as committed, and the first such batch logs one WARN per object.
 *
 * <p>Thread-safe: immutable after {@link Builder#build}, but for the once-only warning flag.
 */
final class LegacyTxnStates {
    private final String key;
    private final Map<Long, NavigableMap<Long, TxnState>> markers;
    private final Logger log;
    private final AtomicBoolean warned = new AtomicBoolean();

    private LegacyTxnStates(
            String key, Map<Long, NavigableMap<Long, TxnState>> markers, Logger log) {
        this.key = key;
        this.markers = markers;
        this.log = log;
    }

    /** The outcome of every transactional batch of {@code records}, by base offset. */
    Map<Long, TxnState> statesOf(MemoryRecords records) {
        Map<Long, TxnState> out = new HashMap<>();
        for (MutableRecordBatch b : records.batches()) {
            if (!b.isTransactional()) {
                continue;
            }
            if (b.isControlBatch()) {
                out.put(b.baseOffset(), TxnState.ofMarker(b));
                continue;
            }
            NavigableMap<Long, TxnState> m = markers.get(b.producerId());
            Map.Entry<Long, TxnState> marker = m == null ? null : m.higherEntry(b.lastOffset());
            if (marker == null) {
                if (warned.compareAndSet(false, true)) {
                    log.warn(
                            "cold object {} (format 1, no batch_txn_state) holds transactional"
                                    + " batches of producer {} from offset {} whose marker is not"
                                    + " in the object: read_committed readers see them as"
                                    + " committed",
                            key,
                            b.producerId(),
                            b.baseOffset());
                }
                out.put(b.baseOffset(), TxnState.COMMITTED);
            } else {
                out.put(b.baseOffset(), marker.getValue());
            }
        }
        return out;
    }

    /** Collects the markers of one object. Not thread-safe. */
    static final class Builder {
        private final String key;
        private final Map<Long, NavigableMap<Long, TxnState>> markers = new HashMap<>();

        Builder(String key) {
            this.key = key;
        }

        /** A marker row: its key is Kafka's control record key (version, type). */
        void marker(long producerId, long offset, ByteBuffer controlKey) {
            if (controlKey == null) {
                return;
            }
            ControlRecordType type = ControlRecordType.parse(controlKey.duplicate());
            TxnState s =
                    type == ControlRecordType.ABORT
                            ? TxnState.ABORTED
                            : type == ControlRecordType.COMMIT ? TxnState.COMMITTED : null;
            if (s != null) {
                markers.computeIfAbsent(producerId, p -> new TreeMap<>()).put(offset, s);
            }
        }

        LegacyTxnStates build(Logger log) {
            return new LegacyTxnStates(key, markers, log);
        }
    }
}

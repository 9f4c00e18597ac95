package io.tierlog.hot;

import io.tierlog.hot.ProducerEntry.BatchMetadata;
import io.tierlog.hot.ProducerStateException.Kind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Idempotent and transactional producer state of one partition, as Kafka's {@code
 * ProducerStateManager} and {@code ProducerAppendInfo}: per producer id the current epoch, the
 * metadata of its last 5 batches, the coordinator epoch of its last marker, its last timestamp and
 * the first offset of its open transaction; partition-wide the open transactions by first offset
 * (they hold the last stable offset) and the KIP-890 verification guards handed out.
 *
 * <p>Rules, checked for each batch with a producer id before anything is written:
 *
 * <ul>
 *   <li>same epoch and the exact sequence range of one of the last 5 batches: a duplicate (retry)
 *       answered with the original offsets;
 *   <li>older epoch: {@code INVALID_PRODUCER_EPOCH};
 *   <li>newer epoch: the sequence must restart at 0, else {@code OUT_OF_ORDER_SEQUENCE};
 *   <li>same epoch: base sequence must be last sequence + 1 (wrapping after {@code
 *       Integer.MAX_VALUE}); with no batch since the epoch began (a marker bumped it), 0; else
 *       {@code OUT_OF_ORDER_SEQUENCE};
 *   <li>unknown producer: accepted with any sequence, as Kafka does since 2.5 (KIP-360): its state
 *       may have been removed with old segments, and refusing it would wedge the producer. {@code
 *       UNKNOWN_PRODUCER_ID} is therefore never raised by this class;
 *   <li>a transactional batch of a producer with no open transaction starts one, and needs the
 *       verification guard this partition handed out for it (else {@code INVALID_TXN_STATE}); the
 *       guard's lowest sequence bounds the batch's first sequence; a non-transactional batch while
 *       its transaction is open: {@code INVALID_TXN_STATE};
 *   <li>a marker: coordinator epoch below the entry's: {@code TRANSACTION_COORDINATOR_FENCED};
 *       producer epoch below the entry's (TV2: not above it, unless no transaction is open, an
 *       idempotent retry): {@code INVALID_PRODUCER_EPOCH}.
 * </ul>
 *
 * <p>State is rebuilt from the log (batch headers and markers) on open and after recovery
 * truncation.
 *
 * <p>Not thread-safe: guarded by the log's append lock; {@link #entry} snapshots are immutable, and
 * {@link #lastStableOffset} reads only volatile fields (lock-free, for fetches).
 */
final class ProducerStateManager {
    private final Map<Long, MutableEntry> producers = new HashMap<>();

    /** Open and not yet published transactions: what holds the LSO. */
    private final StableOffsets stable = new StableOffsets();

    /** KIP-890 verifications in progress, by producer id (Kafka's verificationStates). */
    private final Map<Long, Verification> verifications = new HashMap<>();

    private static final class MutableEntry {
        short epoch;
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>(ProducerEntry.MAX_BATCHES);
        int coordinatorEpoch = -1;
        long lastTimestamp = -1;
        long currentTxnFirstOffset = -1;

        /** The entry was loaded or replayed without an epoch seen yet (any sequence accepted). */
        boolean fresh;

        MutableEntry(short epoch) {
            this.epoch = epoch;
        }

        MutableEntry copy() {
            MutableEntry m = new MutableEntry(epoch);
            m.batches.addAll(batches);
            m.coordinatorEpoch = coordinatorEpoch;
            m.lastTimestamp = lastTimestamp;
            m.currentTxnFirstOffset = currentTxnFirstOffset;
            return m;
        }

        ProducerEntry snapshot(long pid) {
            return new ProducerEntry(
                    pid,
                    epoch,
                    List.copyOf(batches),
                    coordinatorEpoch,
                    lastTimestamp,
                    currentTxnFirstOffset);
        }

        /** Kafka's {@code ProducerStateEntry.update} at a marker. */
        void endTxn(short markerEpoch, int coordEpoch, long timestamp) {
            if (markerEpoch != epoch) {
                epoch = markerEpoch;
                batches.clear();
            }
            coordinatorEpoch = coordEpoch;
            lastTimestamp = timestamp;
            currentTxnFirstOffset = -1;
        }
    }

    /** A guard handed out for a producer, the lowest sequence it was asked for, and when. */
    private record Verification(
            VerificationGuard guard,
            int lowestSequence,
            short epoch,
            boolean supportsEpochBump,
            long createdMs) {}

    /** A transaction ended by a marker: what the txn index and the LSO need. */
    record CompletedTxn(long producerId, long firstOffset, long markerOffset, boolean aborted) {}

    /** Pending view used while checking one request: later batches see earlier ones. */
    static final class Pending {
        final Map<Long, MutableEntry> staged = new HashMap<>();

        /** Producers whose transaction this request starts. */
        final List<Long> started = new ArrayList<>(1);
    }

    Optional<ProducerEntry> entry(long producerId) {
        MutableEntry e = producers.get(producerId);
        return e == null ? Optional.empty() : Optional.of(e.snapshot(producerId));
    }

    int size() {
        return producers.size();
    }

    /** The original of the first batch of the request that is a retry, or null. */
    BatchMetadata findDuplicate(ValidatedBatches vb) {
        for (int i = 0; i < vb.count; i++) {
            if (vb.producerId[i] >= 0) {
                BatchMetadata d =
                        findDuplicate(
                                vb.producerId[i],
                                vb.producerEpoch[i],
                                vb.baseSequence[i],
                                lastSequence(vb.baseSequence[i], vb.lastOffsetDelta[i]));
                if (d != null) {
                    return d;
                }
            }
        }
        return null;
    }

    /**
     * Finds a duplicate of a batch (same epoch and sequence range among the last 5 batches).
     *
     * @return the original batch, or null
     */
    BatchMetadata findDuplicate(long pid, short epoch, int firstSeq, int lastSeq) {
        MutableEntry e = producers.get(pid);
        if (e == null || e.epoch != epoch) {
            return null;
        }
        for (BatchMetadata b : e.batches) {
            if (b.firstSequence() == firstSeq && b.lastSequence() == lastSeq) {
                return b;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- verification (KIP-890)

    /** Whether {@code pid} has an open transaction in this partition under {@code epoch}. */
    boolean hasOngoingTxn(long pid, short epoch) {
        MutableEntry e = producers.get(pid);
        return e != null && e.currentTxnFirstOffset >= 0 && e.epoch == epoch;
    }

    /**
     * Kafka's {@code maybeStartTransactionVerification}: the sentinel when the producer's
     * transaction is already open here, else the guard for it (the existing one if a verification
     * is in progress, its lowest sequence lowered to {@code baseSequence}).
     */
    VerificationGuard maybeStartVerification(
            long pid, int baseSequence, short epoch, boolean supportsEpochBump, long now) {
        if (hasOngoingTxn(pid, epoch)) {
            return VerificationGuard.SENTINEL;
        }
        Verification v = verifications.get(pid);
        if (v == null || epoch > v.epoch()) {
            v =
                    new Verification(
                            new VerificationGuard(pid),
                            baseSequence,
                            epoch,
                            supportsEpochBump,
                            now);
        } else if (epoch == v.epoch()) {
            v =
                    new Verification(
                            v.guard(),
                            Math.min(v.lowestSequence(), baseSequence),
                            epoch,
                            supportsEpochBump,
                            v.createdMs());
        }
        verifications.put(pid, v);
        return v.guard();
    }

    // ---------------------------------------------------------------- data batches

    /**
     * Checks that a batch may follow the producer's state (including batches staged earlier in the
     * same request), then stages it.
     *
     * @param guard the verification guard handed back with the request (or the sentinel)
     * @throws ProducerStateException when the epoch, sequence or transaction state does not fit
     */
    void checkAndStage(
            Pending pending,
            long pid,
            short epoch,
            int firstSeq,
            int lastSeq,
            long firstOffset,
            long lastOffset,
            long ts,
            boolean transactional,
            VerificationGuard guard) {
        MutableEntry current = pending.staged.get(pid);
        if (current == null) {
            MutableEntry committed = producers.get(pid);
            current = committed == null ? new MutableEntry(epoch) : committed.copy();
            if (committed == null) {
                current.fresh = true;
            } else {
                current.fresh = committed.fresh;
            }
            check(committed != null, current, pid, epoch, firstSeq);
            pending.staged.put(pid, current);
        } else {
            check(true, current, pid, epoch, firstSeq);
        }
        if (transactional
                && !(current.currentTxnFirstOffset >= 0 && current.epoch == epoch)
                && !pending.started.contains(pid)) {
            Verification v = verifications.get(pid);
            if (v == null
                    || guard == null
                    || guard == VerificationGuard.SENTINEL
                    || v.guard() != guard) {
                throw new ProducerStateException(
                        Kind.INVALID_TXN_STATE,
                        "Record from producer " + pid + " is not part of a verified transaction");
            }
            if (firstSeq > v.lowestSequence()) {
                throw new ProducerStateException(
                        Kind.OUT_OF_ORDER_SEQUENCE,
                        "Producer "
                                + pid
                                + ": sequence "
                                + firstSeq
                                + " above the verified lowest sequence "
                                + v.lowestSequence());
            }
            if (v.supportsEpochBump()
                    && firstSeq != 0
                    && current.batches.isEmpty()
                    && !current.fresh) {
                throw new ProducerStateException(
                        Kind.OUT_OF_ORDER_SEQUENCE,
                        "Producer " + pid + " starts a transaction at sequence " + firstSeq);
            }
        }
        if (current.epoch != epoch) {
            // as Kafka: an open transaction stays open across an epoch bump (its marker ends it)
            current.epoch = epoch;
            current.batches.clear();
        }
        if (current.currentTxnFirstOffset >= 0 && !transactional) {
            throw new ProducerStateException(
                    Kind.INVALID_TXN_STATE,
                    "Expected a transactional batch from producer "
                            + pid
                            + " at offset "
                            + firstOffset
                            + ": its transaction is open since "
                            + current.currentTxnFirstOffset);
        }
        if (current.currentTxnFirstOffset < 0 && transactional) {
            current.currentTxnFirstOffset = firstOffset;
            pending.started.add(pid);
        }
        current.fresh = false;
        current.lastTimestamp = ts;
        addBatch(current, new BatchMetadata(firstSeq, lastSeq, firstOffset, lastOffset, ts));
    }

    private static void check(boolean known, MutableEntry e, long pid, short epoch, int firstSeq) {
        if (!known) {
            return;
        }
        if (epoch < e.epoch) {
            throw new ProducerStateException(
                    Kind.INVALID_PRODUCER_EPOCH,
                    "Producer " + pid + " epoch " + epoch + " is older than " + e.epoch);
        }
        if (epoch > e.epoch) {
            if (firstSeq != 0) {
                throw new ProducerStateException(
                        Kind.OUT_OF_ORDER_SEQUENCE,
                        "Producer "
                                + pid
                                + " new epoch "
                                + epoch
                                + " must start at sequence 0, got "
                                + firstSeq);
            }
            return;
        }
        int last = e.batches.isEmpty() ? -1 : e.batches.peekLast().lastSequence();
        if (last == -1 && e.fresh) {
            return; // known only from a snapshot or replay without batches: as unknown
        }
        if (!inSequence(last, firstSeq)) {
            throw new ProducerStateException(
                    Kind.OUT_OF_ORDER_SEQUENCE,
                    "Producer "
                            + pid
                            + " epoch "
                            + epoch
                            + ": expected sequence "
                            + nextSeq(last)
                            + ", got "
                            + firstSeq);
        }
    }

    static boolean inSequence(int lastSeq, int nextSeq) {
        return nextSeq == nextSeq(lastSeq);
    }

    private static int nextSeq(int lastSeq) {
        return lastSeq == Integer.MAX_VALUE ? 0 : lastSeq + 1;
    }

    /** Sequence of the last record of a batch, wrapping as Kafka does. */
    static int lastSequence(int baseSequence, int lastOffsetDelta) {
        long s = (long) baseSequence + lastOffsetDelta;
        return s > Integer.MAX_VALUE ? (int) (s - Integer.MAX_VALUE - 1) : (int) s;
    }

    /** Makes staged state current after the request was written. */
    void commit(Pending pending) {
        for (Map.Entry<Long, MutableEntry> e : pending.staged.entrySet()) {
            MutableEntry m = e.getValue();
            producers.put(e.getKey(), m);
        }
        for (long pid : pending.started) {
            MutableEntry m = producers.get(pid);
            stable.open(m.currentTxnFirstOffset, pid);
            // the transaction is open now: later batches need no guard, and a late retry of the
            // verification step must not reuse this one after the marker
            verifications.remove(pid);
        }
    }

    // ---------------------------------------------------------------- markers

    /**
     * Checks a marker against the producer's state (Kafka's {@code appendEndTxnMarker} checks and
     * 4.4's TV2 epoch rule).
     *
     * @throws ProducerStateException when fenced or the epoch is stale
     */
    void checkMarker(long pid, short epoch, int coordinatorEpoch, int transactionVersion) {
        MutableEntry e = producers.get(pid);
        if (e == null) {
            return;
        }
        if (coordinatorEpoch < e.coordinatorEpoch) {
            throw new ProducerStateException(
                    Kind.TRANSACTION_COORDINATOR_FENCED,
                    "Marker for producer "
                            + pid
                            + " from coordinator epoch "
                            + coordinatorEpoch
                            + ", older than "
                            + e.coordinatorEpoch);
        }
        boolean stale;
        if (transactionVersion >= 2) {
            // TV2 bumps the epoch at every end; an equal epoch is a retry of a marker that landed
            stale =
                    epoch < e.epoch
                            || (epoch == e.epoch
                                    && e.currentTxnFirstOffset >= 0
                                    && epoch != Short.MAX_VALUE);
        } else {
            stale = epoch < e.epoch;
        }
        if (stale) {
            throw new ProducerStateException(
                    Kind.INVALID_PRODUCER_EPOCH,
                    "Marker for producer "
                            + pid
                            + " with epoch "
                            + epoch
                            + " (transaction version "
                            + transactionVersion
                            + "), current epoch "
                            + e.epoch);
        }
    }

    /**
     * Applies a marker written at {@code markerOffset} (after {@link #checkMarker}, or on replay).
     *
     * @param unstableUntilDurable keep the completed transaction in the LSO until the high
     *     watermark passes the marker (FSYNC mode)
     * @return the completed transaction, or null when the producer had none open here (an empty
     *     transaction: no index entry, no LSO change)
     */
    CompletedTxn applyMarker(
            long pid,
            short epoch,
            int coordinatorEpoch,
            boolean commit,
            long markerOffset,
            long timestamp,
            boolean unstableUntilDurable) {
        MutableEntry e = producers.computeIfAbsent(pid, k -> new MutableEntry(epoch));
        CompletedTxn done = null;
        if (e.currentTxnFirstOffset >= 0) {
            done = new CompletedTxn(pid, e.currentTxnFirstOffset, markerOffset, !commit);
            stable.complete(e.currentTxnFirstOffset, markerOffset, unstableUntilDurable);
        }
        e.endTxn(epoch, coordinatorEpoch, timestamp);
        e.fresh = false;
        verifications.remove(pid);
        return done;
    }

    /** See {@link StableOffsets#lastStableOffsetAfter}. */
    long lastStableOffsetAfter(long pid, long markerOffset) {
        return stable.lastStableOffsetAfter(pid, markerOffset);
    }

    /** See {@link StableOffsets#lastStableOffset}; lock-free. */
    long lastStableOffset(long highWatermark) {
        return stable.lastStableOffset(highWatermark);
    }

    /** Forgets completed transactions whose marker is below the high watermark. */
    void pruneUnstable(long highWatermark) {
        stable.prune(highWatermark);
    }

    /** The open transactions, oldest first. */
    List<OngoingTxn> ongoingTransactions() {
        List<OngoingTxn> out = new ArrayList<>(stable.ongoing().size());
        for (Map.Entry<Long, Long> o : stable.ongoing().entrySet()) {
            MutableEntry e = producers.get(o.getValue());
            out.add(new OngoingTxn(o.getValue(), e.epoch, o.getKey(), e.lastTimestamp));
        }
        return out;
    }

    // ---------------------------------------------------------------- replay, snapshots, expiry

    /**
     * Replays a data batch header found in the log (open and recovery), without checks: the log is
     * the truth.
     */
    void replay(
            long pid,
            short epoch,
            int firstSeq,
            int lastSeq,
            long firstOffset,
            long lastOffset,
            long ts,
            boolean transactional) {
        MutableEntry e = producers.computeIfAbsent(pid, k -> new MutableEntry(epoch));
        if (e.epoch != epoch) {
            e.epoch = epoch;
            e.batches.clear();
        }
        e.fresh = false;
        e.lastTimestamp = ts;
        if (transactional && e.currentTxnFirstOffset < 0) {
            e.currentTxnFirstOffset = firstOffset;
            stable.open(firstOffset, pid);
        }
        addBatch(e, new BatchMetadata(firstSeq, lastSeq, firstOffset, lastOffset, ts));
    }

    /** Replays a data batch header of an idempotent (non-transactional) producer. */
    void replay(
            long pid,
            short epoch,
            int firstSeq,
            int lastSeq,
            long firstOffset,
            long lastOffset,
            long ts) {
        replay(pid, epoch, firstSeq, lastSeq, firstOffset, lastOffset, ts, false);
    }

    /** Snapshot of every producer's state (for the snapshot file). */
    List<ProducerEntry> entries() {
        List<ProducerEntry> out = new ArrayList<>(producers.size());
        for (Map.Entry<Long, MutableEntry> e : producers.entrySet()) {
            out.add(e.getValue().snapshot(e.getKey()));
        }
        return out;
    }

    /** Replaces the state with {@code entries} (loaded from a snapshot file). */
    void load(List<ProducerEntry> entries) {
        clear();
        for (ProducerEntry e : entries) {
            MutableEntry m = new MutableEntry(e.producerEpoch());
            for (BatchMetadata b : e.batches()) {
                addBatch(m, b);
            }
            m.coordinatorEpoch = e.coordinatorEpoch();
            m.lastTimestamp = e.lastTimestamp();
            m.currentTxnFirstOffset = e.currentTxnFirstOffset();
            m.fresh = e.batches().isEmpty() && e.coordinatorEpoch() < 0;
            producers.put(e.producerId(), m);
            if (m.currentTxnFirstOffset >= 0) {
                stable.open(m.currentTxnFirstOffset, e.producerId());
            }
        }
    }

    /**
     * Forgets producers with no open transaction whose last batch or marker is at least {@code
     * expirationMs} before {@code now} (Kafka's {@code producer.id.expiration.ms}), and
     * verifications started that long ago.
     *
     * @return how many producers were removed
     */
    int expire(long now, long expirationMs) {
        int before = producers.size();
        producers
                .values()
                .removeIf(
                        e ->
                                e.currentTxnFirstOffset < 0
                                        && e.lastTimestamp >= 0
                                        && now - e.lastTimestamp >= expirationMs);
        verifications.values().removeIf(v -> now - v.createdMs() >= expirationMs);
        return before - producers.size();
    }

    /** Forgets everything (before a full replay). */
    void clear() {
        producers.clear();
        stable.clear();
        verifications.clear();
    }

    private static void addBatch(MutableEntry e, BatchMetadata b) {
        if (e.batches.size() == ProducerEntry.MAX_BATCHES) {
            e.batches.removeFirst();
        }
        e.batches.addLast(b);
    }
}

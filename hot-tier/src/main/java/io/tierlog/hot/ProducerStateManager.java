package io.tierlog.hot;

import io.tierlog.hot.ProducerEntry.BatchMetadata;
import io.tierlog.hot.ProducerStateException.Kind;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Idempotent-producer state of one partition, as Kafka's {@code ProducerStateManager} (without
 * transactions): per producer id the current epoch and the metadata of its last 5 batches.
 *
 * <p>Rules, checked for each batch with a producer id before anything is written:
 *
 * <ul>
 *   <li>same epoch and the exact sequence range of one of the last 5 batches: a duplicate (retry)
 *       answered with the original offsets;
 *   <li>older epoch: {@code INVALID_PRODUCER_EPOCH};
 *   <li>newer epoch: the sequence must restart at 0, else {@code OUT_OF_ORDER_SEQUENCE};
 *   <li>same epoch: base sequence must be last sequence + 1 (wrapping after {@code
 *       Integer.MAX_VALUE}), else {@code OUT_OF_ORDER_SEQUENCE};
 *   <li>unknown producer: accepted with any sequence, as Kafka does since 2.5 (KIP-360): its state
 *       may have been removed with old segments, and refusing it would wedge the producer. {@code
 *       UNKNOWN_PRODUCER_ID} is therefore never raised by this class.
 * </ul>
 *
 * <p>State is rebuilt from the batch headers of the log on open and after recovery truncation.
 *
 * <p>Not thread-safe: guarded by the log's append lock; {@link #entry} snapshots are immutable.
 */
final class ProducerStateManager {
    private final Map<Long, MutableEntry> producers = new HashMap<>();

    private static final class MutableEntry {
        short epoch;
        final ArrayDeque<BatchMetadata> batches = new ArrayDeque<>(ProducerEntry.MAX_BATCHES);

        MutableEntry(short epoch) {
            this.epoch = epoch;
        }

        ProducerEntry snapshot(long pid) {
            return new ProducerEntry(pid, epoch, java.util.List.copyOf(batches));
        }
    }

    /** Pending view used while checking one request: later batches see earlier ones. */
    static final class Pending {
        final Map<Long, MutableEntry> staged = new HashMap<>();
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

    /**
     * Checks that a batch may follow the producer's state (including batches staged earlier in the
     * same request), then stages it.
     *
     * @throws ProducerStateException when the epoch or sequence does not fit
     */
    void checkAndStage(
            Pending pending,
            long pid,
            short epoch,
            int firstSeq,
            int lastSeq,
            long firstOffset,
            long lastOffset,
            long ts) {
        MutableEntry current = pending.staged.get(pid);
        if (current == null) {
            MutableEntry committed = producers.get(pid);
            current = new MutableEntry(committed == null ? epoch : committed.epoch);
            if (committed != null) {
                current.batches.addAll(committed.batches);
            }
            boolean known = committed != null;
            check(known, current, pid, epoch, firstSeq);
            pending.staged.put(pid, current);
        } else {
            check(true, current, pid, epoch, firstSeq);
        }
        if (current.epoch != epoch) {
            current.epoch = epoch;
            current.batches.clear();
        }
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
        if (last == -1) {
            return;
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

    /** Makes staged state durable after the request was written. */
    void commit(Pending pending) {
        producers.putAll(pending.staged);
    }

    /**
     * Replays a batch header found in the log (open and recovery), without checks: the log is the
     * truth.
     */
    void replay(
            long pid,
            short epoch,
            int firstSeq,
            int lastSeq,
            long firstOffset,
            long lastOffset,
            long ts) {
        MutableEntry e = producers.computeIfAbsent(pid, k -> new MutableEntry(epoch));
        if (e.epoch != epoch) {
            e.epoch = epoch;
            e.batches.clear();
        }
        addBatch(e, new BatchMetadata(firstSeq, lastSeq, firstOffset, lastOffset, ts));
    }

    /** Snapshot of every producer's state (for the snapshot file). */
    java.util.List<ProducerEntry> entries() {
        java.util.List<ProducerEntry> out = new java.util.ArrayList<>(producers.size());
        for (Map.Entry<Long, MutableEntry> e : producers.entrySet()) {
            out.add(e.getValue().snapshot(e.getKey()));
        }
        return out;
    }

    /** Replaces the state with {@code entries} (loaded from a snapshot file). */
    void load(java.util.List<ProducerEntry> entries) {
        producers.clear();
        for (ProducerEntry e : entries) {
            MutableEntry m = new MutableEntry(e.producerEpoch());
            for (BatchMetadata b : e.batches()) {
                addBatch(m, b);
            }
            producers.put(e.producerId(), m);
        }
    }

    /**
     * Forgets producers whose last batch timestamp is at least {@code expirationMs} before {@code
     * now} (Kafka's {@code producer.id.expiration.ms}).
     *
     * @return how many were removed
     */
    int expire(long now, long expirationMs) {
        int before = producers.size();
        producers
                .values()
                .removeIf(
                        e ->
                                !e.batches.isEmpty()
                                        && now - e.batches.peekLast().timestamp() >= expirationMs);
        return before - producers.size();
    }

    /** Forgets everything (before a full replay). */
    void clear() {
        producers.clear();
    }

    private static void addBatch(MutableEntry e, BatchMetadata b) {
        if (e.batches.size() == ProducerEntry.MAX_BATCHES) {
            e.batches.removeFirst();
        }
        e.batches.addLast(b);
    }
}

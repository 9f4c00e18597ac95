package io.tierlog.server.group.coordinator;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The in-memory state of the group offsets: every group's committed offsets, and the offsets that
 * open transactions have committed (TxnOffsetCommit) but whose outcome is not known yet, per group
 * and producer id, as Kafka's {@code OffsetMetadataManager} keeps them.
 *
 * <p>Order: every change carries a position, increasing in the order the changes were journaled
 * (here: a counter advanced by each change, live or replayed, so replaying a journal or a snapshot
 * gives the same relative order). A transaction's offset of a partition becomes the committed one
 * at its commit only if no later change committed that partition: its position must be above the
 * committed offset's (Kafka compares the records' log offsets the same way), so an offset committed
 * plainly after the TxnOffsetCommit wins.
 *
 * <p>Thread-safety: changes are made by one thread at a time (under the journal's lock, or during
 * recovery before the store is shared); the reads {@link #committed}, {@link #all}, {@link
 * #groupIds} and {@link #hasPending} are lock-free and may see a change in progress.
 */
final class OffsetState {
    /** A committed or pending offset and the position of the change that wrote it. */
    record Positioned(OffsetStore.Committed value, long position) {}

    /** The offsets one producer's open transaction has committed in one group. */
    static final class PendingTxn {
        volatile short epoch;
        final Map<TopicPartition, Positioned> offsets = new ConcurrentHashMap<>();

        PendingTxn(short epoch) {
            this.epoch = epoch;
        }
    }

    final Map<String, Map<TopicPartition, Positioned>> committed = new ConcurrentHashMap<>();

    /** Group id -> producer id -> its open transaction's offsets (never an empty map). */
    final Map<String, Map<Long, PendingTxn>> pending = new ConcurrentHashMap<>();

    private long position;

    private long next() {
        return ++position;
    }

    /** A plain commit: the offsets are committed at once. */
    void commit(String group, Map<TopicPartition, OffsetStore.Committed> offsets) {
        long at = next();
        if (offsets.isEmpty()) {
            return;
        }
        Map<TopicPartition, Positioned> m =
                committed.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
        for (Map.Entry<TopicPartition, OffsetStore.Committed> e : offsets.entrySet()) {
            m.put(e.getKey(), new Positioned(e.getValue(), at));
        }
    }

    /**
     * Removes the committed and pending offsets of {@code partitions} (Kafka's offset tombstone
     * drops a partition's pending offsets of every open transaction too); true if there was any.
     */
    boolean delete(String group, Collection<TopicPartition> partitions) {
        next();
        boolean removed = false;
        Map<TopicPartition, Positioned> m = committed.get(group);
        if (m != null) {
            removed = m.keySet().removeAll(partitions);
            if (m.isEmpty()) {
                committed.remove(group);
            }
        }
        Map<Long, PendingTxn> txns = pending.get(group);
        if (txns != null) {
            for (PendingTxn t : txns.values()) {
                removed |= t.offsets.keySet().removeAll(partitions);
            }
            txns.values().removeIf(t -> t.offsets.isEmpty());
            if (txns.isEmpty()) {
                pending.remove(group);
            }
        }
        return removed;
    }

    /** Removes every committed and pending offset of {@code group}; true if there was any. */
    boolean deleteGroup(String group) {
        next();
        boolean had = committed.remove(group) != null;
        return pending.remove(group) != null || had;
    }

    /**
     * Whether a TxnOffsetCommit at {@code epoch} may add to {@code producerId}'s pending offsets:
     * not below the epoch of those already pending (a fenced producer's late request).
     */
    boolean acceptsEpoch(String group, long producerId, short epoch) {
        PendingTxn t = pending.getOrDefault(group, Map.of()).get(producerId);
        return t == null || epoch >= t.epoch;
    }

    /** The epoch of {@code producerId}'s offsets pending in {@code group}, if any. */
    Optional<Short> pendingEpoch(String group, long producerId) {
        PendingTxn t = pending.getOrDefault(group, Map.of()).get(producerId);
        return t == null ? Optional.empty() : Optional.of(t.epoch);
    }

    /** A TxnOffsetCommit: the offsets wait for the transaction's outcome. */
    void addPending(
            String group,
            long producerId,
            short epoch,
            Map<TopicPartition, OffsetStore.Committed> offsets) {
        long at = next();
        if (offsets.isEmpty()) {
            return;
        }
        PendingTxn t =
                pending.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                        .computeIfAbsent(producerId, p -> new PendingTxn(epoch));
        if (epoch > t.epoch) {
            t.epoch = epoch;
        }
        for (Map.Entry<TopicPartition, OffsetStore.Committed> e : offsets.entrySet()) {
            t.offsets.put(e.getKey(), new Positioned(e.getValue(), at));
        }
    }

    /**
     * The outcome of {@code producerId}'s transaction in {@code group}: on commit each pending
     * offset becomes the committed one unless a later change committed its partition; on abort they
     * are dropped. Returns the number of offsets that became committed (0 with nothing pending).
     */
    int endTxn(String group, long producerId, boolean commit) {
        next();
        Map<Long, PendingTxn> txns = pending.get(group);
        PendingTxn t = txns == null ? null : txns.remove(producerId);
        if (txns != null && txns.isEmpty()) {
            pending.remove(group, txns);
        }
        if (t == null || !commit) {
            return 0;
        }
        int applied = 0;
        Map<TopicPartition, Positioned> m =
                committed.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
        for (Map.Entry<TopicPartition, Positioned> e : t.offsets.entrySet()) {
            Positioned cur = m.get(e.getKey());
            if (cur == null || e.getValue().position() > cur.position()) {
                m.put(e.getKey(), e.getValue());
                applied++;
            }
        }
        if (m.isEmpty()) {
            committed.remove(group, m);
        }
        return applied;
    }

    Optional<OffsetStore.Committed> committed(String group, TopicPartition tp) {
        Map<TopicPartition, Positioned> m = committed.get(group);
        Positioned p = m == null ? null : m.get(tp);
        return p == null ? Optional.empty() : Optional.of(p.value());
    }

    Map<TopicPartition, OffsetStore.Committed> all(String group) {
        Map<TopicPartition, OffsetStore.Committed> out = new java.util.HashMap<>();
        committed.getOrDefault(group, Map.of()).forEach((tp, p) -> out.put(tp, p.value()));
        return Map.copyOf(out);
    }

    /** Groups with committed offsets or with offsets pending in a transaction. */
    Set<String> groupIds() {
        Set<String> ids = new HashSet<>(committed.keySet());
        ids.addAll(pending.keySet());
        return Set.copyOf(ids);
    }

    boolean hasPending(String group, TopicPartition tp) {
        Map<Long, PendingTxn> txns = pending.get(group);
        if (txns == null) {
            return false;
        }
        for (PendingTxn t : txns.values()) {
            if (t.offsets.containsKey(tp)) {
                return true;
            }
        }
        return false;
    }

    /** Whether any transaction has offsets pending in {@code group}. */
    boolean hasPending(String group) {
        return pending.containsKey(group);
    }
}

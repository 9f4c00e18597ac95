package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.PartitionState;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * A cache of the catalog's view of each partition's cold tier (the ordered object list and the cold
 * offsets), so that routing a read or bounding local retention does not cost a catalog round trip
 * each time. A snapshot is replaced when this process commits or removes objects ({@link
 * #invalidate}), on a miss ({@link #refresh}), and when it is older than the age a caller accepts
 * (another process, such as a separate offload daemon, may have committed).
 *
 * <p>Besides the snapshots, it keeps each partition's last known cold offsets ({@link #bounds}),
 * set by every load and kept across {@link #invalidate}: what offset queries answer from memory,
 * never calling the catalog. Whoever changes the cold tier (a commit, retention, a topic change)
 * refreshes them on its own thread ({@link #refreshQuietly}).
 *
 * <p>Calls that load go to the catalog (blocking JDBC): never call them on an event loop; {@link
 * #bounds} and {@link #cached} never load. Thread-safe.
 */
final class ColdIndex {

    /**
     * One partition's cold tier as of {@code loadedAtNanos}. Immutable.
     *
     * @param known whether the catalog knows the partition at all
     * @param objects committed objects by first offset
     * @param coldLogStartOffset first offset in cold (= coldHighWatermark when empty)
     * @param coldHighWatermark next offset not in cold (0 if never committed)
     * @param logStartOffset the log start offset moved by DeleteRecords (0 if never)
     */
    record Snapshot(
            TopicPartition tp,
            boolean known,
            NavigableMap<Long, ColdObject> objects,
            long coldLogStartOffset,
            long coldHighWatermark,
            long bytes,
            long loadedAtNanos,
            long logStartOffset) {

        boolean isEmpty() {
            return objects.isEmpty();
        }

        Optional<ColdObject> objectFor(long offset) {
            Map.Entry<Long, ColdObject> e = objects.floorEntry(offset);
            return e != null && e.getValue().lastOffset() >= offset
                    ? Optional.of(e.getValue())
                    : Optional.empty();
        }

        Optional<ColdObject> next(ColdObject o) {
            Map.Entry<Long, ColdObject> e = objects.higherEntry(o.firstOffset());
            return e == null ? Optional.empty() : Optional.of(e.getValue());
        }
    }

    /**
     * A partition's cold offsets as last loaded. Immutable.
     *
     * @param empty whether the cold tier holds no object of it
     * @param coldLogStartOffset first offset in cold (= coldHighWatermark when empty)
     * @param coldHighWatermark next offset not in cold (0 if never committed)
     * @param logStartOffset the log start offset moved by DeleteRecords (0 if never)
     */
    record Bounds(
            boolean empty, long coldLogStartOffset, long coldHighWatermark, long logStartOffset) {
        static final Bounds NONE = new Bounds(true, 0, 0, 0);
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ColdIndex.class);

    private final Catalog catalog;
    private final Map<TopicPartition, Snapshot> snapshots = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Bounds> bounds = new ConcurrentHashMap<>();

    ColdIndex(Catalog catalog) {
        this.catalog = catalog;
    }

    /** The cached snapshot if younger than {@code maxAgeMs}, else a fresh one. */
    Snapshot snapshot(TopicPartition tp, long maxAgeMs) {
        Snapshot s = snapshots.get(tp);
        if (s != null && System.nanoTime() - s.loadedAtNanos() <= maxAgeMs * 1_000_000L) {
            return s;
        }
        return refresh(tp);
    }

    /** The cached snapshot if any, without loading. */
    Optional<Snapshot> cached(TopicPartition tp) {
        return Optional.ofNullable(snapshots.get(tp));
    }

    /**
     * Loads the partition's state from the catalog.
     *
     * @throws CatalogException if the catalog cannot be reached
     */
    Snapshot refresh(TopicPartition tp) {
        long now = System.nanoTime();
        List<ColdObject> list = catalog.objects(tp.topic(), tp.partition());
        PartitionState state;
        boolean known = true;
        try {
            state = catalog.partitionState(tp.topic(), tp.partition());
        } catch (CatalogException e) {
            // Unknown topic or partition (not offloaded yet): the cold tier holds nothing.
            if (catalog.topic(tp.topic())
                    .filter(t -> t.partitions() > tp.partition())
                    .isPresent()) {
                throw e;
            }
            known = false;
            state = new PartitionState(tp.topic(), tp.partition(), 0, 0, 0, 0);
        }
        NavigableMap<Long, ColdObject> objects = new TreeMap<>();
        long bytes = 0;
        for (ColdObject o : list) {
            objects.put(o.firstOffset(), o);
            bytes += o.sizeInBytes();
        }
        long start = objects.isEmpty() ? state.coldHighWatermark() : objects.firstKey();
        Snapshot s =
                new Snapshot(
                        tp,
                        known,
                        Collections.unmodifiableNavigableMap(objects),
                        start,
                        state.coldHighWatermark(),
                        bytes,
                        now,
                        state.logStartOffset());
        snapshots.put(tp, s);
        bounds.put(
                tp,
                new Bounds(
                        s.isEmpty(),
                        s.coldLogStartOffset(),
                        s.coldHighWatermark(),
                        s.logStartOffset()));
        return s;
    }

    /** As {@link #refresh}, logging a failure (the last known bounds stay) instead of throwing. */
    void refreshQuietly(TopicPartition tp) {
        try {
            refresh(tp);
        } catch (RuntimeException e) {
            snapshots.remove(tp);
            LOG.warn("cannot reload the cold offsets of {}: {}", tp, e.toString());
        }
    }

    /** The last known cold offsets of {@code tp} (none known: an empty cold tier). No I/O. */
    Bounds bounds(TopicPartition tp) {
        return bounds.getOrDefault(tp, Bounds.NONE);
    }

    Catalog catalog() {
        return catalog;
    }

    void invalidate(TopicPartition tp) {
        snapshots.remove(tp);
    }

    /** Forgets a deleted topic, bounds included. */
    void invalidateTopic(String topic) {
        snapshots.keySet().removeIf(tp -> tp.topic().equals(topic));
        bounds.keySet().removeIf(tp -> tp.topic().equals(topic));
    }
}

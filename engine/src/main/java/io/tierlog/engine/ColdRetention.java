package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.SegmentInfo;
import io.tierlog.iceberg.TopicTables;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Total retention ({@code retention.ms}, {@code retention.bytes}, per topic, for topics whose
 * {@code cleanup.policy} contains {@code delete}: see {@link #deletes}) applied to the cold tier:
 * the oldest cold objects whose newest record is older than {@code retention.ms}, or that the
 * partition can lose while staying at or above {@code retention.bytes} (cold objects plus local
 * bytes not yet offloaded), are removed from the catalog first (one transaction, advancing the cold
 * log start) and then deleted from the store. An object whose deletion fails, or whose deletion a
 * crash interrupted, is no longer referenced by the catalog: the compactor's orphan sweeper deletes
 * it after its grace period. Readers never see a gap: the catalog no longer routes to a removed
 * object, and its offsets are below the new log start.
 *
 * <p>For a topic that is an Iceberg table the order is catalog, then the table's delete commit
 * ({@code TopicTables.sync}, after the kill campaign's {@code retention-before-table} halt point),
 * and only then the bucket, for the objects no table pins: if the table cannot be synced nothing is
 * deleted now, and the sweeper deletes the objects once the table has let go of them.
 *
 * <p>Thread-safe (one pass at a time).
 */
final class ColdRetention {
    private static final Logger LOG = LoggerFactory.getLogger(ColdRetention.class);

    private final Catalog catalog;
    private final ObjectStore store;
    private final LogManager logs;
    private final ColdIndex index;
    private final ColdReader reader;
    private final TopicConfigs topicConfigs;
    private final Time time;
    private final Counter deleted;
    private volatile TopicTables tables = TopicTables.disabled();

    ColdRetention(
            Catalog catalog,
            ObjectStore store,
            LogManager logs,
            ColdIndex index,
            ColdReader reader,
            TopicConfigs topicConfigs,
            Time time,
            MeterRegistry registry) {
        this.catalog = catalog;
        this.store = store;
        this.logs = logs;
        this.index = index;
        this.reader = reader;
        this.topicConfigs = topicConfigs;
        this.time = time;
        this.deleted = registry.counter(MetricNames.COLD_OBJECTS_DELETED);
    }

    /**
     * The topics' Iceberg tables: for a topic that is a table, the removed objects leave the table
     * (a delete commit) before they leave the bucket, and an object a table still references is
     * never deleted (the orphan sweeper deletes it once the table lets go).
     */
    void setTables(TopicTables tables) {
        this.tables = java.util.Objects.requireNonNull(tables, "tables");
    }

    /** One pass over every partition of every topic; returns the number of objects removed. */
    synchronized int apply() {
        int n = 0;
        for (TopicRecord t : catalog.topics()) {
            Config c = topicConfigs.config(t.name());
            if (!deletes(c)) {
                continue; // compact only: the cold compactor keeps the latest value of every key
            }
            Optional<Duration> ms = EngineOptions.retentionMs(c);
            Optional<Long> bytes = EngineOptions.retentionBytes(c);
            if (ms.isEmpty() && bytes.isEmpty()) {
                continue;
            }
            for (int p = 0; p < t.partitions(); p++) {
                try {
                    n += apply(new TopicPartition(t.name(), p), ms, bytes);
                } catch (RuntimeException e) {
                    LOG.warn("retention of {}-{} failed; retrying next pass", t.name(), p, e);
                }
            }
        }
        return n;
    }

    /**
     * Whether retention applies to the topic: its {@code cleanup.policy} contains {@code delete}
     * ({@code delete} or {@code compact,delete}); a compact-only topic loses cold objects only to
     * compaction and DeleteRecords, never to {@code retention.ms}/{@code retention.bytes}, as in
     * Kafka.
     */
    static boolean deletes(Config topicConfig) {
        String policy = topicConfig.raw(KafkaTopicConfigs.CLEANUP_POLICY);
        if (policy == null) {
            policy = topicConfig.raw("log.cleanup.policy");
        }
        if (policy == null) {
            return true;
        }
        for (String p : policy.split(",")) {
            if (p.trim().equals("delete")) {
                return true;
            }
        }
        return false;
    }

    private int apply(TopicPartition tp, Optional<Duration> ms, Optional<Long> bytes) {
        ColdIndex.Snapshot s = index.refresh(tp);
        if (s.isEmpty()) {
            return 0;
        }
        long total = s.bytes() + localBytesAbove(tp, s.coldHighWatermark());
        long now = time.milliseconds();
        ColdObject last = null;
        for (ColdObject o : s.objects().values()) {
            boolean byTime = ms.isPresent() && now - o.maxTimestamp() > ms.get().toMillis();
            boolean bySize = bytes.isPresent() && total - o.sizeInBytes() >= bytes.get();
            if (!byTime && !bySize) {
                break;
            }
            total -= o.sizeInBytes();
            last = o;
        }
        if (last == null) {
            return 0;
        }
        List<ColdObject> removed =
                catalog.removeObjectsBelow(tp.topic(), tp.partition(), last.lastOffset() + 1);
        index.refreshQuietly(tp); // the new cold log start, for offset queries
        LOG.info(
                "retention removed {} cold objects of {} below offset {}",
                removed.size(),
                tp,
                last.lastOffset() + 1);
        TopicTables t = tables;
        if (t.enabled(tp.topic())) {
            // the kill campaign's point between the catalog commit and the table's
            io.tierlog.iceberg.HaltHook.at("retention-before-table");
            try {
                t.sync(tp.topic()); // the table's delete commit, before the bucket
            } catch (RuntimeException e) {
                // the objects stay in the bucket, pinned while the table holds them: the orphan
                // sweeper deletes them once the table has let go
                LOG.warn(
                        "retention of {}: the table could not drop {} removed objects now; they"
                                + " are deleted from the bucket once it has: {}",
                        tp,
                        removed.size(),
                        e.toString());
                for (ColdObject o : removed) {
                    reader.forget(o.key());
                }
                return removed.size();
            }
        }
        deleteObjects(removed);
        return removed.size();
    }

    private long localBytesAbove(TopicPartition tp, long coldHighWatermark) {
        Optional<PartitionLog> log = logs.partition(tp);
        if (log.isEmpty()) {
            return 0;
        }
        long b = 0;
        for (SegmentInfo seg : log.get().segments()) {
            if (seg.nextOffset() > coldHighWatermark) {
                b += seg.sizeInBytes();
            }
        }
        return b;
    }

    /**
     * Deletes objects the catalog no longer references (best effort: failures are left to the
     * orphan sweeper), except those a table still references (pinned: the sweeper deletes them once
     * unpinned).
     */
    void deleteObjects(List<ColdObject> objects) {
        deleteObjects(objects, tables);
    }

    /**
     * Deletes a deleted topic's objects: its table was dropped first (or it had none), so nothing
     * references them any more, whatever the pins say of a topic no longer known.
     */
    void deleteObjectsOfDroppedTopic(List<ColdObject> objects) {
        deleteObjects(objects, TopicTables.disabled());
    }

    private void deleteObjects(List<ColdObject> objects, TopicTables t) {
        for (ColdObject o : objects) {
            reader.forget(o.key());
            if (t.pinned(o.key())) {
                LOG.debug("{} is still a table's data file: left to the orphan sweeper", o.key());
                continue;
            }
            try {
                store.delete(o.key());
                deleted.increment();
            } catch (IOException e) {
                LOG.warn(
                        "could not delete {} (no longer in the catalog; the orphan sweeper will): {}",
                        o.key(),
                        e.toString());
            }
        }
    }
}

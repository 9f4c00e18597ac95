package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.RetiredObject;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes orphans and retired objects. Orphans: objects under the cold tier's prefix that follow
 * the {@link ObjectKeys} layout, that the catalog neither references nor lists as retired, and that
 * are older than the grace period. They are left by uploads whose commit failed with an unknown
 * outcome, by processes killed between upload and commit, and by deleted topics. Retired objects
 * ({@link Catalog#retiredObjects}): objects a compaction replaced; each is deleted once the grace
 * period has passed since it was retired (not since it was written: a replaced object was uploaded
 * long before, and a reader that resolved it just before the replace may still be reading it), and
 * then forgotten by the catalog. A retired object is never an orphan before that.
 *
 * <p>Order matters: the store is listed before the catalog is read, so an object committed in
 * between is seen as referenced; the committed keys are read before the retired ones, so an object
 * a compaction retires in between is seen as one or the other. An object younger than the grace
 * period is never deleted, and the compactor never commits an upload older than half of it, so an
 * in-flight upload is safe. Keys under another prefix (another cluster sharing the bucket) are
 * never touched, retired or not. A retired key that is also referenced (a catalog edited by hand)
 * is kept and logged.
 *
 * <p>Thread-safe (stateless between calls).
 */
public final class OrphanSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweeper.class);

    /**
     * What one sweep found and did.
     *
     * @param examined keys listed
     * @param orphans orphans found (deleted or not)
     * @param deleted orphans deleted
     * @param bytesDeleted bytes of the orphans and retired objects deleted
     * @param retiredDeleted retired objects deleted (and forgotten by the catalog)
     */
    public record SweepResult(
            int examined, int orphans, int deleted, long bytesDeleted, int retiredDeleted) {
        public SweepResult(int examined, int orphans, int deleted, long bytesDeleted) {
            this(examined, orphans, deleted, bytesDeleted, 0);
        }
    }

    private final Catalog catalog;
    private final ObjectStore store;
    private final String prefix;
    private final Duration grace;
    private final Time time;
    private final Optional<SegmentSource> source;
    private volatile ObjectPins pins = ObjectPins.NONE;

    public OrphanSweeper(
            Catalog catalog, ObjectStore store, String prefix, Duration grace, Time time) {
        this(catalog, store, prefix, grace, time, Optional.empty());
    }

    /**
     * @param source the hot tier the objects were offloaded from, if known: an orphan holding
     *     offsets at or above its partition's cold high watermark that the source no longer holds
     *     is the only copy of those records (the catalog was rolled back or lost) and is kept
     */
    public OrphanSweeper(
            Catalog catalog,
            ObjectStore store,
            String prefix,
            Duration grace,
            Time time,
            Optional<SegmentSource> source) {
        this.source = source;
        this.catalog = catalog;
        this.store = store;
        this.prefix = ObjectKeys.normalizePrefix(prefix);
        this.grace = grace;
        this.time = time;
    }

    /**
     * Objects referenced outside the catalog (an Iceberg table's files): a pinned orphan or retired
     * object is kept until it is unpinned.
     */
    public void setPins(ObjectPins pins) {
        this.pins = java.util.Objects.requireNonNull(pins, "pins");
    }

    public SweepResult sweep() throws IOException {
        List<ObjectInfo> listed = store.list(prefix);
        Set<String> referenced = new HashSet<>(catalog.allObjectKeys());
        List<RetiredObject> retiredList = catalog.retiredObjects(Long.MAX_VALUE);
        Set<String> retired = new HashSet<>();
        retiredList.forEach(r -> retired.add(r.key()));
        String ownPrefix = prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
        long now = time.milliseconds();
        Map<String, Long> sizes = new HashMap<>();
        listed.forEach(i -> sizes.put(i.key(), i.size()));
        int retiredDeleted = 0;
        long bytes = 0;
        for (RetiredObject r : retiredList) {
            if (now - r.retiredAtMs() < grace.toMillis()) {
                break; // oldest first: the rest are younger still
            }
            if (!ours(r.key(), ownPrefix)) {
                continue;
            }
            if (pins.pinned(r.key())) {
                continue; // a table still references it: deleted once the table lets go
            }
            if (referenced.contains(r.key())) {
                LOG.warn(
                        "retired object {} of {}-{} is also a committed object: kept",
                        r.key(),
                        r.topic(),
                        r.partition());
                continue;
            }
            store.delete(r.key());
            catalog.forgetRetired(r.key());
            retiredDeleted++;
            bytes += sizes.getOrDefault(r.key(), 0L);
            LOG.info(
                    "deleted retired object {} of {}-{} (replaced by a compaction {} ms ago)",
                    r.key(),
                    r.topic(),
                    r.partition(),
                    now - r.retiredAtMs());
        }
        int orphans = 0;
        int deleted = 0;
        for (ObjectInfo info : listed) {
            Optional<ObjectKeys.ParsedKey> parsed = ObjectKeys.parse(info.key());
            if (parsed.isEmpty()
                    || !parsed.get().prefix().equals(ownPrefix)
                    || referenced.contains(info.key())
                    || retired.contains(info.key())
                    || pins.pinned(info.key())) {
                continue;
            }
            orphans++;
            if (now - info.lastModified().toEpochMilli() < grace.toMillis()) {
                continue;
            }
            if (onlyCopy(parsed.get())) {
                LOG.warn(
                        "orphaned object {} holds offsets {}..{} of {}-{} that neither the catalog"
                                + " nor the hot tier holds: kept (a lost or rolled-back catalog?"
                                + " `tierlog catalog rebuild` recovers it)",
                        info.key(),
                        parsed.get().firstOffset(),
                        parsed.get().lastOffset(),
                        parsed.get().topic(),
                        parsed.get().partition());
                continue;
            }
            store.delete(info.key());
            deleted++;
            bytes += info.size();
            LOG.info("deleted orphaned object {} ({} bytes)", info.key(), info.size());
        }
        return new SweepResult(listed.size(), orphans, deleted, bytes, retiredDeleted);
    }

    private static boolean ours(String key, String ownPrefix) {
        Optional<ObjectKeys.ParsedKey> parsed = ObjectKeys.parse(key);
        return parsed.isPresent() && parsed.get().prefix().equals(ownPrefix);
    }

    /**
     * Whether an orphan holds offsets above the catalog's cold high watermark that the source no
     * longer holds. Unknown partitions (deleted topics) and failures to tell are not "only copies"
     * unless the source still has segments of the partition.
     */
    private boolean onlyCopy(ObjectKeys.ParsedKey k) {
        if (source.isEmpty()) {
            return false;
        }
        org.apache.kafka.common.TopicPartition tp =
                new org.apache.kafka.common.TopicPartition(k.topic(), k.partition());
        try {
            long coldHw;
            try {
                coldHw = catalog.partitionState(k.topic(), k.partition()).coldHighWatermark();
            } catch (io.tierlog.catalog.CatalogException unknown) {
                coldHw = Long.MIN_VALUE; // a deleted topic, unless the hot tier still has it
            }
            if (k.lastOffset() < coldHw) {
                return false; // a duplicate of committed offsets, or below cold retention
            }
            List<io.tierlog.hot.SegmentInfo> segs = source.get().segments(tp);
            if (segs.isEmpty()) {
                return coldHw != Long.MIN_VALUE;
            }
            return segs.get(0).baseOffset() > Math.max(k.firstOffset(), coldHw);
        } catch (IOException | RuntimeException e) {
            return true; // when in doubt, keep
        }
    }
}

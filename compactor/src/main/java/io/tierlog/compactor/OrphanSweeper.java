package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes orphans: objects under the cold tier's prefix that follow the {@link ObjectKeys} layout,
 * that the catalog does not reference, and that are older than the grace period. They are left by
 * uploads whose commit failed with an unknown outcome, by processes killed between upload and
 * commit, and by deleted topics.
 *
 * <p>Order matters: the store is listed before the catalog is read, so an object committed in
 * between is seen as referenced. An object younger than the grace period is never deleted, and the
 * compactor never commits an upload older than half of it, so an in-flight upload is safe. Keys
 * under another prefix (another cluster sharing the bucket) are never touched.
 *
 * <p>Thread-safe (stateless between calls).
 */
public final class OrphanSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweeper.class);

    /** What one sweep found and did. */
    public record SweepResult(int examined, int orphans, int deleted, long bytesDeleted) {}

    private final Catalog catalog;
    private final ObjectStore store;
    private final String prefix;
    private final Duration grace;
    private final Time time;

    public OrphanSweeper(
            Catalog catalog, ObjectStore store, String prefix, Duration grace, Time time) {
        this.catalog = catalog;
        this.store = store;
        this.prefix = ObjectKeys.normalizePrefix(prefix);
        this.grace = grace;
        this.time = time;
    }

    public SweepResult sweep() throws IOException {
        List<ObjectInfo> listed = store.list(prefix);
        Set<String> referenced = new HashSet<>(catalog.allObjectKeys());
        String ownPrefix = prefix.isEmpty() ? "" : prefix.substring(0, prefix.length() - 1);
        long now = time.milliseconds();
        int orphans = 0;
        int deleted = 0;
        long bytes = 0;
        for (ObjectInfo info : listed) {
            Optional<ObjectKeys.ParsedKey> parsed = ObjectKeys.parse(info.key());
            if (parsed.isEmpty()
                    || !parsed.get().prefix().equals(ownPrefix)
                    || referenced.contains(info.key())) {
                continue;
            }
            orphans++;
            if (now - info.lastModified().toEpochMilli() < grace.toMillis()) {
                continue;
            }
            store.delete(info.key());
            deleted++;
            bytes += info.size();
            LOG.info("deleted orphaned object {} ({} bytes)", info.key(), info.size());
        }
        return new SweepResult(listed.size(), orphans, deleted, bytes);
    }
}

package io.tierlog.engine;

import io.tierlog.cold.ObjectFooter;
import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectKeys;
import io.tierlog.cold.ObjectStore;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * What the bucket holds, from the objects themselves: every object under the cold tier's prefix
 * that follows the {@link ObjectKeys} layout is listed and its footer read ({@link ObjectFooter},
 * one ranged GET each, no data page). The catalog is not consulted. Objects whose footer cannot be
 * read, or names another topic, partition or range than the key, are reported apart. Used by {@code
 * tierlog catalog rebuild} and {@code tierlog verify}. Only reads (LIST and GET).
 *
 * <p>Immutable result; the survey itself is not thread-safe (one call per instance).
 */
final class BucketSurvey {
    /** One readable object: its footer and when it was written. */
    record Found(ObjectFooter footer, Instant lastModified) {
        String key() {
            return footer.key();
        }
    }

    /** An object that could not be used, and why. */
    record Unusable(String key, String reason) {
        @Override
        public String toString() {
            return key + ": " + reason;
        }
    }

    static final Comparator<Found> BY_RANGE_THEN_KEY =
            Comparator.<Found>comparingLong(f -> f.footer().firstOffset())
                    .thenComparingLong(f -> f.footer().lastOffset())
                    .thenComparing(Found::key);

    private final Map<TopicPartition, List<Found>> byPartition;
    private final List<Unusable> unusable;
    private final int listed;

    BucketSurvey(
            Map<TopicPartition, List<Found>> byPartition, List<Unusable> unusable, int listed) {
        this.byPartition = byPartition;
        this.unusable = unusable;
        this.listed = listed;
    }

    /** Lists {@code prefix} (as {@link ObjectKeys#normalizePrefix} gives it) and reads footers. */
    static BucketSurvey of(ObjectStore store, String prefix) throws IOException {
        String normalized = ObjectKeys.normalizePrefix(prefix);
        String own = normalized.isEmpty() ? "" : normalized.substring(0, normalized.length() - 1);
        List<ObjectInfo> infos = store.list(normalized);
        Map<TopicPartition, List<Found>> by =
                new TreeMap<>(
                        Comparator.comparing(TopicPartition::topic)
                                .thenComparingInt(TopicPartition::partition));
        List<Unusable> bad = new ArrayList<>();
        for (ObjectInfo info : infos) {
            Optional<ObjectKeys.ParsedKey> k = ObjectKeys.parse(info.key());
            if (k.isEmpty() || !k.get().prefix().equals(own)) {
                continue; // not a cold object of this prefix
            }
            ObjectFooter f;
            try {
                f = ObjectFooter.read(store, info.key(), info.size());
            } catch (IOException e) {
                bad.add(new Unusable(info.key(), e.getMessage()));
                continue;
            }
            ObjectKeys.ParsedKey p = k.get();
            if (!f.topic().equals(p.topic())
                    || f.partition() != p.partition()
                    || f.firstOffset() != p.firstOffset()
                    || f.lastOffset() != p.lastOffset()) {
                bad.add(
                        new Unusable(
                                info.key(),
                                "footer names "
                                        + f.topic()
                                        + "-"
                                        + f.partition()
                                        + " offsets "
                                        + f.firstOffset()
                                        + ".."
                                        + f.lastOffset()
                                        + ", not what the key says"));
                continue;
            }
            by.computeIfAbsent(new TopicPartition(f.topic(), f.partition()), x -> new ArrayList<>())
                    .add(new Found(f, info.lastModified()));
        }
        by.values().forEach(l -> l.sort(BY_RANGE_THEN_KEY));
        return new BucketSurvey(by, bad, infos.size());
    }

    /** Readable objects per partition, each list ordered by range then key. */
    Map<TopicPartition, List<Found>> byPartition() {
        return byPartition;
    }

    List<Unusable> unusable() {
        return unusable;
    }

    /** How many keys the listing returned (all of them, ours or not). */
    int listed() {
        return listed;
    }
}

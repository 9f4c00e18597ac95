package io.tierlog.compactor;

import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.Config;
import java.util.Arrays;
import java.util.Map;

/**
 * The compaction settings of one topic as Kafka names them ({@code cleanup.policy}, {@code
 * min.cleanable.dirty.ratio}, {@code min.compaction.lag.ms}, {@code max.compaction.lag.ms}, {@code
 * delete.retention.ms}), from the topic's configs in the catalog, else the broker-wide {@code
 * log.*} key of the compactor's config, else Kafka's default. Values the topic checks refused never
 * reach the catalog; an unparsable one here falls back to the default. Immutable.
 *
 * @param compact whether {@code cleanup.policy} contains {@code compact}
 * @param delete whether {@code cleanup.policy} contains {@code delete} (retention applies too)
 */
record CompactionConfig(
        boolean compact,
        boolean delete,
        double minCleanableDirtyRatio,
        long minCompactionLagMs,
        long maxCompactionLagMs,
        long deleteRetentionMs) {

    static CompactionConfig of(TopicRecord topic, Config broker) {
        Map<String, String> c = topic.configs();
        String policy = value(c, broker, "cleanup.policy", "log.cleanup.policy", "delete");
        boolean compact = false;
        boolean delete = false;
        for (String p : Arrays.asList(policy.split(","))) {
            compact |= p.trim().equals("compact");
            delete |= p.trim().equals("delete");
        }
        return new CompactionConfig(
                compact,
                delete,
                parseDouble(
                        value(
                                c,
                                broker,
                                "min.cleanable.dirty.ratio",
                                "log.cleaner.min.cleanable.ratio",
                                "0.5"),
                        0.5),
                parseLong(
                        value(
                                c,
                                broker,
                                "min.compaction.lag.ms",
                                "log.cleaner.min.compaction.lag.ms",
                                "0"),
                        0),
                parseLong(
                        value(
                                c,
                                broker,
                                "max.compaction.lag.ms",
                                "log.cleaner.max.compaction.lag.ms",
                                Long.toString(Long.MAX_VALUE)),
                        Long.MAX_VALUE),
                parseLong(
                        value(
                                c,
                                broker,
                                "delete.retention.ms",
                                "log.cleaner.delete.retention.ms",
                                "86400000"),
                        86_400_000L));
    }

    private static String value(
            Map<String, String> topic, Config broker, String key, String brokerKey, String def) {
        String v = topic.get(key);
        if (v == null) {
            v = broker.raw(brokerKey);
        }
        return v == null ? def : v;
    }

    private static double parseDouble(String v, double def) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            return def;
        }
    }

    private static long parseLong(String v, long def) {
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return def;
        }
    }
}

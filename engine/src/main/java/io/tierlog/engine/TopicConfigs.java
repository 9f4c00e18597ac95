package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.Config;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.LogConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Effective configuration of each topic: the engine's config with the topic's overrides (kept in
 * the catalog) on top. As in Kafka, an unset {@code local.retention.ms}/{@code
 * local.retention.bytes} takes the value of {@code retention.ms}/{@code retention.bytes}, so local
 * disk never keeps data longer than the whole log does.
 *
 * <p>Thread-safe.
 */
final class TopicConfigs {
    private final Config base;
    private final Map<String, Map<String, String>> overrides = new ConcurrentHashMap<>();
    private final Function<String, Map<String, String>> external;

    /**
     * @param external topic overrides kept elsewhere (a server's topic registry); they win over the
     *     catalog's
     */
    TopicConfigs(Config base, Catalog catalog, Function<String, Map<String, String>> external) {
        this.base = base;
        this.external = external;
        for (TopicRecord t : catalog.topics()) {
            overrides.put(t.name(), t.configs());
        }
    }

    /** The effective config of {@code topic} (the base config for an unknown topic). */
    Config config(String topic) {
        Map<String, String> ext = external.apply(topic);
        if (ext == null || ext.isEmpty()) {
            return effective(overrides.getOrDefault(topic, Map.of()));
        }
        Map<String, String> merged = new HashMap<>(overrides.getOrDefault(topic, Map.of()));
        merged.putAll(ext);
        return effective(merged);
    }

    private Config effective(Map<String, String> topicOverrides) {
        Config c = base.with(topicOverrides);
        Map<String, String> derived = new HashMap<>();
        if (!c.contains(HotTierOptions.LOCAL_RETENTION_MS)) {
            derived.put(
                    HotTierOptions.LOCAL_RETENTION_MS.key(),
                    Long.toString(c.get(EngineOptions.RETENTION_MS).toMillis()));
        }
        if (!c.contains(HotTierOptions.LOCAL_RETENTION_BYTES)) {
            derived.put(
                    HotTierOptions.LOCAL_RETENTION_BYTES.key(),
                    Long.toString(c.get(EngineOptions.RETENTION_BYTES)));
        }
        return derived.isEmpty() ? c : c.with(derived);
    }

    LogConfig logConfig(String topic) {
        return LogConfig.from(config(topic));
    }

    /**
     * Checks topic overrides before anything is created.
     *
     * @throws io.tierlog.common.ConfigException naming the first invalid key
     */
    void validate(Map<String, String> topicOverrides) {
        Config c = effective(topicOverrides);
        LogConfig.from(c);
        c.validate(EngineOptions.ALL);
    }

    void put(String topic, Map<String, String> topicOverrides) {
        overrides.put(topic, Map.copyOf(topicOverrides));
    }

    void remove(String topic) {
        overrides.remove(topic);
    }
}

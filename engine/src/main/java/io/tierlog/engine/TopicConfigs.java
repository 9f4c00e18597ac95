package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.Config;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.LogConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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

    /** Starts with the overrides the catalog holds ({@link TopicRegistry} keeps them current). */
    TopicConfigs(Config base, Catalog catalog) {
        this.base = base;
        for (TopicRecord t : catalog.topics()) {
            overrides.put(t.name(), t.configs());
        }
    }

    /** The effective config of {@code topic} (the base config for an unknown topic). */
    Config config(String topic) {
        return effective(overrides.getOrDefault(topic, Map.of()));
    }

    /** The engine's config without any topic override (the topic defaults). */
    Config base() {
        return base;
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

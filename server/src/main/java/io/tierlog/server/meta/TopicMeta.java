package io.tierlog.server.meta;

import io.tierlog.hot.LogConfig;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * A topic as the server knows it: name, topic id, partition count, per-topic config overrides and
 * the hot-tier config resulting from server defaults and those overrides. Immutable.
 */
public record TopicMeta(
        String name, Uuid id, int partitions, Map<String, String> configs, LogConfig logConfig) {
    public TopicMeta {
        configs = java.util.Collections.unmodifiableMap(new TreeMap<>(configs));
    }
}

package io.tierlog.catalog;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A topic as the catalog knows it: a stable id (a topic deleted and created again gets a new one),
 * its name, partition count and topic-level configs. Immutable, so thread-safe.
 *
 * @param id unique id assigned at creation
 * @param name topic name
 * @param partitions number of partitions, numbered {@code 0..partitions-1}
 * @param configs topic-level config overrides (unmodifiable copy)
 * @param createdAt when the topic was created in the catalog
 */
public record TopicRecord(
        UUID id, String name, int partitions, Map<String, String> configs, Instant createdAt) {
    public TopicRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(createdAt, "createdAt");
        configs = Map.copyOf(configs);
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
    }
}

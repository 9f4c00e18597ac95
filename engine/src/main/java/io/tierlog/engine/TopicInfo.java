package io.tierlog.engine;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * A topic as the engine's {@link TopicRegistry} knows it: name, id, partition count and topic-level
 * config overrides. The id is the catalog's UUID; {@link #id()} gives the same 128 bits as Kafka's
 * topic id. Immutable, so thread-safe.
 *
 * @param name topic name
 * @param uuid stable id (a topic deleted and created again gets a new one)
 * @param partitions partitions {@code 0..partitions-1}
 * @param configs topic-level overrides (sorted, unmodifiable)
 */
public record TopicInfo(String name, UUID uuid, int partitions, Map<String, String> configs) {
    public TopicInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uuid, "uuid");
        configs = java.util.Collections.unmodifiableMap(new TreeMap<>(configs));
    }

    /** The id as Kafka's topic id (Metadata, Fetch v13+, CreateTopics, DeleteTopics). */
    public Uuid id() {
        return kafkaId(uuid);
    }

    /** The same 128 bits as a Kafka topic id. */
    public static Uuid kafkaId(UUID uuid) {
        return new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /** The same 128 bits as a UUID. */
    public static UUID uuid(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}

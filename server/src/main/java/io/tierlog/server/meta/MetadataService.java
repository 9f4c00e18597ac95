package io.tierlog.server.meta;

import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.Listener;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;

/**
 * What this server tells clients about the cluster: its node id, the cluster id, the endpoint
 * clients should connect to, and the topics (by name, by id, all). A read-only view: handlers that
 * only look topics up get this and nothing that can change them; creating and deleting topics stays
 * with the registry, which the admin area holds.
 *
 * <p>This server is the only broker, the controller and the leader of every partition, so the node
 * id answers "who leads", "who coordinates" and "who controls" alike.
 *
 * <p>Thread-safe: immutable identity, a memoised endpoint supplier, and the engine's thread-safe
 * topic registry.
 */
public final class MetadataService {
    private final int nodeId;
    private final String clusterId;
    private final Supplier<Listener> advertised;
    private final TopicRegistry topics;

    /**
     * @param advertised the endpoint clients are told to use; called per request, so it should be
     *     cheap (memoised once the listeners are bound)
     */
    public MetadataService(
            int nodeId, String clusterId, Supplier<Listener> advertised, TopicRegistry topics) {
        this.nodeId = nodeId;
        this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
        this.advertised = Objects.requireNonNull(advertised, "advertised");
        this.topics = Objects.requireNonNull(topics, "topics");
    }

    public int nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return clusterId;
    }

    /** The endpoint clients are told to connect to (for leaders and coordinators). */
    public Listener advertised() {
        return advertised.get();
    }

    /** A topic by name; empty when it does not exist. */
    public Optional<TopicInfo> topic(String name) {
        return topics.topic(name);
    }

    /** A topic by id; empty when no topic has that id. */
    public Optional<TopicInfo> topic(Uuid id) {
        return topics.topic(id);
    }

    /** Every topic, in no particular order; a snapshot. */
    public Collection<TopicInfo> topics() {
        return topics.topics();
    }

    /**
     * True when {@code name} is a legal topic name (Kafka's rules: length, characters, not ".").
     */
    public static boolean validTopicName(String name) {
        return TopicRegistry.isValidName(name);
    }
}

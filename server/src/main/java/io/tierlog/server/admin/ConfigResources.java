package io.tierlog.server.admin;

import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.meta.MetadataService;
import java.util.Map;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What AlterConfigs and IncrementalAlterConfigs share: the resources they may change (a topic, this
 * broker by its node id, or the cluster default broker resource {@code ""}), the current configs of
 * each, and the one call that replaces them. Thread-safe (the registry serialises).
 */
final class ConfigResources {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigResources.class);

    static final byte TOPIC = 2;
    static final byte BROKER = 4;

    /** A per-resource answer: an error code (NONE on success) and its message. */
    record Outcome(short errorCode, String errorMessage) {
        static final Outcome OK = new Outcome(Errors.NONE.code(), null);

        static Outcome of(Throwable e) {
            if (e instanceof ApiException) {
                return new Outcome(Errors.forException(e).code(), e.getMessage());
            }
            LOG.warn("altering configs failed", e);
            return new Outcome(Errors.UNKNOWN_SERVER_ERROR.code(), e.toString());
        }
    }

    private final MetadataService metadata;
    private final TopicRegistry topics;

    ConfigResources(MetadataService metadata, TopicRegistry topics) {
        this.metadata = metadata;
        this.topics = topics;
    }

    /**
     * Whether the broker resource {@code name} is the cluster default ({@code ""}) rather than this
     * node.
     *
     * @throws InvalidRequestException another broker's id (Kafka's message)
     */
    boolean isClusterDefault(String name) {
        if (name.isEmpty()) {
            return true;
        }
        if (!name.equals(Integer.toString(metadata.nodeId()))) {
            throw new InvalidRequestException(
                    "Unexpected broker id, expected "
                            + metadata.nodeId()
                            + " or empty string, but received "
                            + name);
        }
        return false;
    }

    /**
     * The current configs of a resource: a topic's overrides or the broker's dynamic configs.
     *
     * @throws ApiException unknown topic, another broker, an unsupported resource type
     */
    Map<String, String> current(byte type, String name) {
        if (type == TOPIC) {
            return topics.topic(name)
                    .orElseThrow(
                            () ->
                                    new org.apache.kafka.common.errors
                                            .UnknownTopicOrPartitionException(
                                            "The topic '" + name + "' does not exist."))
                    .configs();
        }
        if (type == BROKER) {
            return topics.brokerConfigs(isClusterDefault(name));
        }
        throw new InvalidRequestException("Unsupported resource type " + type + " for " + name);
    }

    /** Replaces the configs of a resource whose {@link #current} was read. */
    void replace(byte type, String name, Map<String, String> configs, boolean validateOnly) {
        if (type == TOPIC) {
            topics.alterConfigs(name, configs, validateOnly);
        } else {
            topics.alterBrokerConfigs(isClusterDefault(name), configs, validateOnly);
        }
    }
}

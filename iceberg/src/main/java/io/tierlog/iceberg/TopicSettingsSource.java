package io.tierlog.iceberg;

import io.tierlog.common.Config;

/**
 * A topic's effective configuration (its overrides over the broker defaults), asked on every
 * reconcile round so that a topic config change ({@code iceberg.enabled}) takes effect without a
 * restart. Must be thread-safe.
 */
@FunctionalInterface
public interface TopicSettingsSource {
    /** The effective config of {@code topic}; the broker defaults for an unknown topic. */
    Config topicConfig(String topic);
}

package io.tierlog.engine;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import java.util.List;

/**
 * A topic's produce-time schema contract (Confluent Server's schema ID validation): whether values
 * and keys must name a schema registered under the topic's subjects. Only {@link
 * EngineOptions#TOPIC_NAME_STRATEGY} is accepted for the strategies, so the subjects are {@code
 * <topic>-value} and {@code <topic>-key}. Immutable, so thread-safe.
 *
 * @param values whether non-null values are checked ({@code confluent.value.schema.validation})
 * @param keys whether non-null keys are checked ({@code confluent.key.schema.validation})
 */
record SchemaRules(boolean values, boolean keys) {
    static final SchemaRules NONE = new SchemaRules(false, false);

    /** The topic-level options behind these rules, in the order DescribeConfigs lists them. */
    static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    EngineOptions.VALUE_SCHEMA_VALIDATION,
                    EngineOptions.KEY_SCHEMA_VALIDATION,
                    EngineOptions.VALUE_SUBJECT_NAME_STRATEGY,
                    EngineOptions.KEY_SUBJECT_NAME_STRATEGY);

    static SchemaRules of(Config topicConfig) {
        boolean v = topicConfig.get(EngineOptions.VALUE_SCHEMA_VALIDATION);
        boolean k = topicConfig.get(EngineOptions.KEY_SCHEMA_VALIDATION);
        return v || k ? new SchemaRules(v, k) : NONE;
    }

    boolean any() {
        return values || keys;
    }

    /** The subject of {@code topic}'s values by TopicNameStrategy. */
    static String valueSubject(String topic) {
        return topic + "-value";
    }

    /** The subject of {@code topic}'s keys by TopicNameStrategy. */
    static String keySubject(String topic) {
        return topic + "-key";
    }
}

package io.tierlog.engine;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigException;
import io.tierlog.common.ConfigOption;
import io.tierlog.hot.HotTierOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * The checks of a topic's overrides and of dynamic broker configs, with the Kafka error each
 * failure is: {@code INVALID_CONFIG} for a topic, {@code INVALID_REQUEST} for a broker (Kafka's
 * choice for broker configs, KAFKA-13609). Stateless.
 */
final class TopicConfigChecks {
    private TopicConfigChecks() {}

    /**
     * Every key a Kafka topic config ({@link KafkaTopicConfigs}, validated as Kafka validates it),
     * Kafka's {@code internal.segment.bytes}, or one of {@link TopicRegistry#tierlogTopicOptions};
     * then a valid effective config ({@link #checkValues}). {@code cleanup.policy} may be {@code
     * delete}, {@code compact} or both; Kafka's empty list (no cleanup) is refused.
     *
     * @throws InvalidConfigurationException naming the first problem
     */
    static void checkTopic(TopicConfigs configs, Map<String, String> overrides) {
        Map<String, ConfigOption<?>> tierlog = new HashMap<>();
        for (ConfigOption<?> o : TopicRegistry.tierlogTopicOptions()) {
            tierlog.put(o.key(), o);
        }
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            String key = e.getKey();
            if (e.getValue() == null) {
                throw new InvalidConfigurationException(
                        "Null value not supported for topic configs: " + key);
            }
            Optional<KafkaTopicConfigs.Def> d = KafkaTopicConfigs.def(key);
            try {
                if (d.isPresent()) {
                    d.get().parse(e.getValue());
                    if (key.equals(KafkaTopicConfigs.CLEANUP_POLICY)
                            && KafkaTopicConfigs.isUnsupportedPolicy(e.getValue())) {
                        throw new InvalidConfigurationException(emptyPolicyRefusal(key));
                    }
                } else if (key.equals(KafkaTopicConfigs.INTERNAL_SEGMENT_BYTES)) {
                    HotTierOptions.SEGMENT_BYTES.parse(e.getValue());
                } else if (tierlog.containsKey(key)) {
                    tierlog.get(key).parse(e.getValue());
                } else {
                    throw new InvalidConfigurationException("Unknown topic config name: " + key);
                }
            } catch (org.apache.kafka.common.config.ConfigException | ConfigException ce) {
                throw new InvalidConfigurationException(ce.getMessage());
            }
        }
        try {
            configs.validate(overrides);
        } catch (RuntimeException ce) {
            throw new InvalidConfigurationException(ce.getMessage());
        }
    }

    /**
     * Every key the first Kafka broker synonym of a topic config (the dynamic ones), each value
     * valid as Kafka validates it, and the topic defaults they give valid.
     *
     * @throws InvalidRequestException naming the first problem
     */
    static void checkBroker(
            TopicConfigs configs,
            DynamicBrokerConfigs.Scope scope,
            Map<String, String> configsByBrokerKey) {
        List<String> notDynamic = new ArrayList<>();
        for (Map.Entry<String, String> e : configsByBrokerKey.entrySet()) {
            Optional<KafkaTopicConfigs.Def> d = KafkaTopicConfigs.forBrokerKey(e.getKey());
            if (d.isEmpty()) {
                notDynamic.add(e.getKey());
                continue;
            }
            if (e.getValue() == null) {
                throw new InvalidRequestException("Null value for " + e.getKey());
            }
            try {
                d.get().parseAs(e.getKey(), e.getValue());
            } catch (org.apache.kafka.common.config.ConfigException ce) {
                throw new InvalidRequestException(ce.getMessage());
            }
            if (d.get().name().equals(KafkaTopicConfigs.CLEANUP_POLICY)
                    && KafkaTopicConfigs.isUnsupportedPolicy(e.getValue())) {
                throw new InvalidRequestException(emptyPolicyRefusal(e.getKey()));
            }
        }
        if (!notDynamic.isEmpty()) {
            throw new InvalidRequestException(
                    "Cannot update these configs dynamically: Set("
                            + String.join(", ", notDynamic)
                            + ")");
        }
        try {
            configs.validateBroker(scope, configsByBrokerKey);
        } catch (RuntimeException ce) {
            throw new InvalidRequestException(ce.getMessage());
        }
    }

    /**
     * Kafka's checks across the values of one effective topic config ({@code
     * LogConfig.validateValues}): {@code min.compaction.lag.ms} at most {@code
     * max.compaction.lag.ms}.
     *
     * @throws InvalidConfigurationException Kafka's message
     */
    static void checkValues(Config effective) {
        long minLag = longValue(effective, KafkaTopicConfigs.MIN_COMPACTION_LAG_MS);
        long maxLag = longValue(effective, KafkaTopicConfigs.MAX_COMPACTION_LAG_MS);
        if (minLag > maxLag) {
            throw new InvalidConfigurationException(
                    "conflict topic config setting "
                            + KafkaTopicConfigs.MIN_COMPACTION_LAG_MS
                            + " ("
                            + minLag
                            + ") > "
                            + KafkaTopicConfigs.MAX_COMPACTION_LAG_MS
                            + " ("
                            + maxLag
                            + ")");
        }
    }

    private static long longValue(Config c, String key) {
        KafkaTopicConfigs.Def d = KafkaTopicConfigs.def(key).orElseThrow();
        String raw = c.raw(key);
        return (Long) d.parse(raw == null ? d.kafkaDefault() : raw.trim());
    }

    /**
     * Why Kafka's empty {@code cleanup.policy} (neither delete nor compact: keep everything) is
     * refused: honouring it takes both tiers' retention skipping the topic, which tierlog does not
     * do; the same effect is one config away.
     */
    static String emptyPolicyRefusal(String key) {
        return "An empty "
                + key
                + " (no cleanup) is not supported: use "
                + key
                + "=delete with retention.ms=-1 and retention.bytes=-1 to keep every record, or "
                + key
                + "=compact to keep the latest record of every key";
    }
}

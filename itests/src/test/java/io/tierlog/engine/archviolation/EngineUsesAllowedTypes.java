package io.tierlog.engine.archviolation;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * No violation (ModuleRulesBiteTest): a public signature with only JDK, tierlog and allowed
 * Kafka/Micrometer types, and a third-party type behind a private member.
 */
public final class EngineUsesAllowedTypes {
    private com.github.benmanes.caffeine.cache.Cache<String, String> hidden;

    public Map<TopicPartition, List<MemoryRecords>> read(MeterRegistry registry, int[] sizes) {
        return Map.of();
    }

    private com.github.benmanes.caffeine.cache.Cache<String, String> hidden() {
        return hidden;
    }
}

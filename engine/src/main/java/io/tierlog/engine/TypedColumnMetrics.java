package io.tierlog.engine;

import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.cold.TypedCounts;
import io.tierlog.compactor.OffloadListener;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Counts what the offload's typed columns hold ({@link MetricNames#OFFLOAD_TYPED_RECORDS}) and the
 * records it could not type by reason ({@link MetricNames#OFFLOAD_UNTYPED_RECORDS}), per committed
 * object. Thread-safe (Micrometer counters).
 */
final class TypedColumnMetrics implements OffloadListener {
    private final MeterRegistry registry;

    TypedColumnMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onTypedColumns(TopicPartition tp, TypedCounts c) {
        typed("value", "once", c.valuesRebuilt());
        typed("value", "twice", c.valuesTyped() - c.valuesRebuilt());
        typed("key", "twice", c.keysTyped());
        untyped("value", c.valueFailures());
        untyped("key", c.keyFailures());
    }

    private void typed(String part, String stored, long n) {
        if (n > 0) {
            registry.counter(MetricNames.OFFLOAD_TYPED_RECORDS, "part", part, "stored", stored)
                    .increment(n);
        }
    }

    private void untyped(String part, Map<String, Long> byReason) {
        byReason.forEach(
                (reason, n) ->
                        registry.counter(
                                        MetricNames.OFFLOAD_UNTYPED_RECORDS,
                                        "part",
                                        part,
                                        "reason",
                                        reason)
                                .increment(n));
    }
}

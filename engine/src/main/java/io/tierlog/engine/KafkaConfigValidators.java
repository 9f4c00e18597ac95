package io.tierlog.engine;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigException;

/** Kafka 4.4's validators that kafka-clients does not export, for {@link KafkaTopicConfigs}. */
final class KafkaConfigValidators {
    private KafkaConfigValidators() {}

    /** Kafka's gzip level rule: -1 (the codec's default) or 1..9. */
    static Validator gzipLevel() {
        return new Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                int v = (Integer) value;
                if (v != -1 && (v < 1 || v > 9)) {
                    throw new ConfigException(name, value, "Value must be between 1 and 9, or -1");
                }
            }

            @Override
            public String toString() {
                return "[1,...,9] or -1";
            }
        };
    }

    /**
     * Kafka's rule for the throttled-replica lists: empty, {@code *}, or {@code partition:broker}
     * pairs of integers.
     */
    static Validator throttledReplicas() {
        return new ThrottledReplicas();
    }

    private static final class ThrottledReplicas implements Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> items = new ArrayList<>((List<String>) value);
            if (items.size() == 1 && items.get(0).trim().equals("*")) {
                return;
            }
            for (String item : items) {
                if (!item.trim().matches("[0-9]+:[0-9]+")) {
                    throw new ConfigException(
                            name,
                            value,
                            name
                                    + " must be the literal '*' or a list of replicas in the"
                                    + " following format: [partitionId]:[brokerId],...");
                }
            }
        }

        @Override
        public String toString() {
            return "[partitionId]:[brokerId],[partitionId]:[brokerId],...";
        }
    }
}

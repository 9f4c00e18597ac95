package io.tierlog.engine;

import java.util.List;

/**
 * One config as Kafka's DescribeConfigs reports it: the value in effect, where it comes from, and
 * (most specific first) every level that sets it. Values are Kafka's text (milliseconds, bytes,
 * comma-joined lists). Immutable.
 *
 * @param type Kafka's config type name ({@code INT}, {@code LONG}, {@code LIST}, ...)
 * @param readOnly whether AlterConfigs may change it (broker configs that are not dynamic)
 */
public record DescribedConfig(
        String name,
        String value,
        Source source,
        List<Synonym> synonyms,
        String type,
        boolean readOnly,
        String doc) {

    /** Kafka's config sources, with their wire codes. */
    public enum Source {
        DYNAMIC_TOPIC_CONFIG(1),
        DYNAMIC_BROKER_CONFIG(2),
        DYNAMIC_DEFAULT_BROKER_CONFIG(3),
        STATIC_BROKER_CONFIG(4),
        DEFAULT_CONFIG(5);

        private final byte code;

        Source(int code) {
            this.code = (byte) code;
        }

        public byte code() {
            return code;
        }
    }

    /** One level that sets the config (its name at that level, its value there). */
    public record Synonym(String name, String value, Source source) {}
}

package io.tierlog.server.admin;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.engine.DescribedConfig;
import io.tierlog.engine.DescribedConfig.Source;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.ServerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What DescribeConfigs reports for the broker resource: the topic defaults under Kafka's broker
 * names (from the engine, dynamic ones included), then the server's own options (read-only: none is
 * dynamic), values rendered as Kafka reports them (byte sizes as plain numbers, durations as
 * milliseconds), and Kafka's wire codes for types. Stateless.
 */
final class ConfigDescriber {
    private ConfigDescriber() {}

    /** Kafka's DescribeConfigs config type code of a type name ({@code ConfigType} in the JSON). */
    static byte typeCode(String type) {
        switch (type) {
            case "BOOLEAN":
                return 1;
            case "STRING":
                return 2;
            case "INT":
                return 3;
            case "SHORT":
                return 4;
            case "LONG":
                return 5;
            case "DOUBLE":
                return 6;
            case "LIST":
                return 7;
            case "CLASS":
                return 8;
            case "PASSWORD":
                return 9;
            default:
                return 0;
        }
    }

    /** The broker's configs: topic defaults (dynamic), then server options (static). */
    static List<DescribedConfig> brokerConfigs(
            Config config, TopicRegistry topics, boolean clusterDefault) {
        List<DescribedConfig> out = new ArrayList<>(topics.describeBrokerConfigs(clusterDefault));
        Set<String> named = new HashSet<>();
        for (DescribedConfig c : out) {
            named.add(c.name());
        }
        if (clusterDefault) {
            // as Kafka: the cluster-default resource holds only the dynamic defaults that are set
            out.removeIf(c -> c.source() != Source.DYNAMIC_DEFAULT_BROKER_CONFIG);
            return out;
        }
        for (ConfigOption<?> o : ServerOptions.all()) {
            if (named.contains(o.key())) {
                continue;
            }
            boolean set = config.contains(o);
            String value = render(o, set ? config.raw(o.key()) : null);
            Source source = set ? Source.STATIC_BROKER_CONFIG : Source.DEFAULT_CONFIG;
            out.add(
                    new DescribedConfig(
                            o.key(),
                            value,
                            source,
                            List.of(new DescribedConfig.Synonym(o.key(), value, source)),
                            kafkaType(o),
                            true,
                            o.doc()));
        }
        return out;
    }

    private static <T> String render(ConfigOption<T> o, String raw) {
        T v = raw == null ? o.defaultValue() : o.parse(raw);
        if (v == null) {
            return null;
        }
        if (v instanceof ByteSize b) {
            return Long.toString(b.bytes());
        }
        if (v instanceof Duration d) {
            return Long.toString(d.toMillis());
        }
        return o.format(v);
    }

    private static String kafkaType(ConfigOption<?> o) {
        switch (o.type()) {
            case "boolean":
                return "BOOLEAN";
            case "int":
                return "INT";
            case "long":
            case "bytes":
            case "duration":
                return "LONG";
            default:
                return "STRING";
        }
    }
}

package io.tierlog.server.admin;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.ServerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Renders option values as Kafka reports them (byte sizes as plain numbers, durations as
 * milliseconds, so Kafka tools read them) with Kafka's config source codes. Stateless.
 */
final class ConfigDescriber {
    static final byte SOURCE_TOPIC = 1;
    static final byte SOURCE_STATIC_BROKER = 4;
    static final byte SOURCE_DEFAULT = 5;

    static final byte TYPE_BOOLEAN = 1;
    static final byte TYPE_STRING = 2;
    static final byte TYPE_INT = 3;
    static final byte TYPE_LONG = 5;

    /** One described option. */
    record Entry(String name, String value, byte source, byte type, String doc) {}

    private ConfigDescriber() {}

    /** Every topic option of a topic: its override, else the server value, else the default. */
    static List<Entry> topicConfigs(TopicRegistry topics, Map<String, String> overrides) {
        Config server = topics.topicDefaults();
        List<Entry> out = new ArrayList<>();
        for (ConfigOption<?> o : TopicRegistry.topicOptions()) {
            if (overrides.containsKey(o.key())) {
                out.add(entry(o, overrides.get(o.key()), SOURCE_TOPIC));
            } else if (server.contains(o)) {
                out.add(entry(o, server.raw(o.key()), SOURCE_STATIC_BROKER));
            } else {
                out.add(entry(o, null, SOURCE_DEFAULT));
            }
        }
        return out;
    }

    /** Every server option with its value. */
    static List<Entry> brokerConfigs(Config config, TopicRegistry topics) {
        List<Entry> out = new ArrayList<>();
        for (ConfigOption<?> o : ServerOptions.all()) {
            boolean set = config.contains(o);
            out.add(
                    entry(
                            o,
                            set ? config.raw(o.key()) : null,
                            set ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT));
        }
        for (Entry e : topicConfigs(topics, Map.of())) {
            out.add(e);
        }
        return out;
    }

    private static <T> Entry entry(ConfigOption<T> o, String raw, byte source) {
        T v = raw == null ? o.defaultValue() : o.parse(raw);
        return new Entry(o.key(), kafkaValue(o, v), source, kafkaType(o), o.doc());
    }

    private static <T> String kafkaValue(ConfigOption<T> o, T v) {
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

    private static byte kafkaType(ConfigOption<?> o) {
        switch (o.type()) {
            case "boolean":
                return TYPE_BOOLEAN;
            case "int":
                return TYPE_INT;
            case "long":
            case "bytes":
            case "duration":
                return TYPE_LONG;
            default:
                return TYPE_STRING;
        }
    }
}

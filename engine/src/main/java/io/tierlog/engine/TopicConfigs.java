package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.engine.DescribedConfig.Source;
import io.tierlog.engine.DescribedConfig.Synonym;
import io.tierlog.engine.DynamicBrokerConfigs.Scope;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.LogConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Effective configuration of each topic, by Kafka's precedence: the topic's override (kept in the
 * catalog), else this node's dynamic broker config, else the cluster-default dynamic broker config
 * ({@link DynamicBrokerConfigs}), else the server's config file, else the default. As in Kafka, an
 * unset {@code local.retention.ms}/{@code local.retention.bytes} (or -2) takes the value of {@code
 * retention.ms}/{@code retention.bytes}, so local disk never keeps data longer than the whole log
 * does; {@code internal.segment.bytes} (Kafka's test-only way past the 1 MiB minimum) wins over
 * {@code segment.bytes}.
 *
 * <p>The server's config file names topic defaults by their topic-level names ({@code
 * retention.ms}, {@code segment.bytes}), except {@code message.max.bytes}, Kafka's broker name of
 * the topic's {@code max.message.bytes}. Dynamic broker configs use Kafka's broker names ({@code
 * log.retention.ms}).
 *
 * <p>Thread-safe.
 */
final class TopicConfigs {
    private final Config base;
    private final DynamicBrokerConfigs dynamic;
    private final Map<String, Map<String, String>> overrides = new ConcurrentHashMap<>();

    /**
     * {@link #schemaRules} per topic, with the (immutable) maps it was computed from: valid while
     * the topic's overrides and both dynamic maps are still those instances, so the append path
     * pays a map lookup and three reference compares, not a config resolution.
     */
    private final Map<String, RulesMemo> rules = new ConcurrentHashMap<>();

    private record RulesMemo(
            Map<String, String> topic,
            Map<String, String> node,
            Map<String, String> clusterDefault,
            SchemaRules rules) {}

    /** Starts with the overrides the catalog holds ({@link TopicRegistry} keeps them current). */
    TopicConfigs(Config base, Catalog catalog, DynamicBrokerConfigs dynamic) {
        this.base = base;
        this.dynamic = dynamic;
        for (TopicRecord t : catalog.topics()) {
            overrides.put(t.name(), KafkaTopicConfigs.upgrade(t.configs()));
        }
    }

    TopicConfigs(Config base, Catalog catalog) {
        this(base, catalog, DynamicBrokerConfigs.none());
    }

    /** The effective config of {@code topic} (the topic defaults for an unknown topic). */
    Config config(String topic) {
        return effective(overrides.getOrDefault(topic, Map.of()), dynamic.get(Scope.NODE));
    }

    /** The engine's config without any topic override or dynamic config (the config file). */
    Config base() {
        return base;
    }

    /** The topic defaults in effect: the config file with the dynamic broker configs on top. */
    Config defaults() {
        return effective(Map.of(), dynamic.get(Scope.NODE));
    }

    DynamicBrokerConfigs dynamic() {
        return dynamic;
    }

    private Config effective(Map<String, String> topicOverrides, Map<String, String> node) {
        return effective(topicOverrides, node, dynamic.get(Scope.DEFAULT));
    }

    private Config effective(
            Map<String, String> topicOverrides,
            Map<String, String> node,
            Map<String, String> clusterDefault) {
        Map<String, String> m = new LinkedHashMap<>();
        putBrokerLevel(m, clusterDefault);
        putBrokerLevel(m, node);
        m.putAll(KafkaTopicConfigs.upgrade(topicOverrides));
        String bytes = m.get(KafkaTopicConfigs.RETENTION_BYTES);
        if (bytes != null && bytes.trim().startsWith("-")) {
            m.put(KafkaTopicConfigs.RETENTION_BYTES, "-1"); // Kafka: any negative is unlimited
        }
        String internal = m.get(KafkaTopicConfigs.INTERNAL_SEGMENT_BYTES);
        if (internal != null) {
            m.put(KafkaTopicConfigs.SEGMENT_BYTES, internal);
        }
        Config c = base.with(m);
        Map<String, String> derived = new HashMap<>();
        if (unset(c, HotTierOptions.LOCAL_RETENTION_MS)) {
            derived.put(
                    HotTierOptions.LOCAL_RETENTION_MS.key(),
                    Long.toString(c.get(EngineOptions.RETENTION_MS).toMillis()));
        }
        if (unset(c, HotTierOptions.LOCAL_RETENTION_BYTES)) {
            derived.put(
                    HotTierOptions.LOCAL_RETENTION_BYTES.key(),
                    Long.toString(c.get(EngineOptions.RETENTION_BYTES)));
        }
        return derived.isEmpty() ? c : c.with(derived);
    }

    private static boolean unset(Config c, ConfigOption<?> o) {
        return !c.contains(o) || "-2".equals(c.raw(o.key()).trim());
    }

    /** Broker keys ({@code log.retention.ms}) become the topic keys they default. */
    private static void putBrokerLevel(Map<String, String> into, Map<String, String> broker) {
        for (Map.Entry<String, String> e : broker.entrySet()) {
            KafkaTopicConfigs.forBrokerKey(e.getKey())
                    .ifPresent(d -> into.put(d.name(), e.getValue()));
        }
    }

    /** {@code topic}'s produce-time schema validation rules, from memory after the first call. */
    SchemaRules schemaRules(String topic) {
        Map<String, String> t = overrides.getOrDefault(topic, Map.of());
        Map<String, String> n = dynamic.get(Scope.NODE);
        Map<String, String> d = dynamic.get(Scope.DEFAULT);
        RulesMemo m = rules.get(topic);
        if (m != null && m.topic() == t && m.node() == n && m.clusterDefault() == d) {
            return m.rules();
        }
        SchemaRules r = SchemaRules.of(effective(t, n, d));
        rules.put(topic, new RulesMemo(t, n, d, r));
        return r;
    }

    /** Whether {@code topic}'s effective {@code cleanup.policy} holds {@code compact}. */
    boolean compacted(String topic) {
        String policy = config(topic).raw(KafkaTopicConfigs.CLEANUP_POLICY);
        return policy != null && KafkaTopicConfigs.isCompacted(policy);
    }

    LogConfig logConfig(String topic) {
        Config c = config(topic);
        LogConfig lc = LogConfig.from(c);
        // a topic that is an Iceberg table rolls by wall-clock age too, so that its records reach
        // the table within the freshness target even when the partition goes idle
        return icebergTable(c) ? lc.withWallClockRollMs(icebergRollMs(c)) : lc;
    }

    /** Whether a topic of effective config {@code c} is an Iceberg table. */
    static boolean icebergTable(Config c) {
        return c.get(io.tierlog.iceberg.IcebergOptions.ENABLED);
    }

    /**
     * The wall-clock roll age of an Iceberg table's active segment: half the freshness target (the
     * other half is for offload and the table commit), never above {@code segment.ms}.
     */
    static long icebergRollMs(Config c) {
        long half =
                Math.max(
                        1,
                        c.get(io.tierlog.iceberg.IcebergOptions.FRESHNESS_TARGET_MS).toMillis()
                                / 2);
        return Math.min(half, LogConfig.from(c).maxSegmentMs());
    }

    /**
     * Checks topic overrides before anything is created.
     *
     * @throws RuntimeException naming the first invalid key
     */
    void validate(Map<String, String> topicOverrides) {
        check(effective(topicOverrides, dynamic.get(Scope.NODE)));
    }

    /** Checks the topic defaults {@code configs} would give as {@code scope}'s broker configs. */
    void validateBroker(Scope scope, Map<String, String> configs) {
        Map<String, String> node = scope == Scope.NODE ? configs : dynamic.get(Scope.NODE);
        Map<String, String> def = scope == Scope.DEFAULT ? configs : dynamic.get(Scope.DEFAULT);
        check(effective(Map.of(), node, def));
    }

    private static void check(Config c) {
        LogConfig.from(c);
        c.validate(EngineOptions.ALL);
        c.validate(io.tierlog.iceberg.IcebergOptions.topicOptions());
        TopicConfigChecks.checkValues(c);
    }

    void put(String topic, Map<String, String> topicOverrides) {
        overrides.put(topic, Map.copyOf(KafkaTopicConfigs.upgrade(topicOverrides)));
    }

    void remove(String topic) {
        overrides.remove(topic);
        rules.remove(topic);
    }

    // ---------------------------------------------------------------- describe

    /** Every config of a topic with overrides {@code topicOverrides}, Kafka's and tierlog's own. */
    List<DescribedConfig> describeTopic(Map<String, String> topicOverrides) {
        Map<String, String> topic = KafkaTopicConfigs.upgrade(topicOverrides);
        List<DescribedConfig> out = new ArrayList<>();
        for (KafkaTopicConfigs.Def d : KafkaTopicConfigs.all()) {
            List<Synonym> levels = new ArrayList<>();
            if (topic.containsKey(d.name())) {
                levels.add(new Synonym(d.name(), topic.get(d.name()), Source.DYNAMIC_TOPIC_CONFIG));
            }
            brokerLevels(d, levels);
            out.add(described(d.name(), levels, d.type(), false, d.doc()));
        }
        for (ConfigOption<?> o : TopicRegistry.tierlogTopicOptions()) {
            List<Synonym> levels = new ArrayList<>();
            if (topic.containsKey(o.key())) {
                levels.add(new Synonym(o.key(), topic.get(o.key()), Source.DYNAMIC_TOPIC_CONFIG));
            }
            if (base.contains(o)) {
                levels.add(
                        new Synonym(
                                o.key(),
                                render(o, base.raw(o.key())),
                                Source.STATIC_BROKER_CONFIG));
            }
            levels.add(new Synonym(o.key(), render(o, null), Source.DEFAULT_CONFIG));
            out.add(described(o.key(), levels, kafkaType(o), false, o.doc()));
        }
        return out;
    }

    /** The topic defaults under their Kafka broker names (all dynamic in Kafka). */
    List<DescribedConfig> describeBroker(Scope scope) {
        List<DescribedConfig> out = new ArrayList<>();
        for (KafkaTopicConfigs.Def d : KafkaTopicConfigs.all()) {
            Optional<String> key = d.brokerKey();
            if (key.isEmpty()) {
                continue;
            }
            List<Synonym> levels = new ArrayList<>();
            brokerLevels(d, levels);
            if (scope == Scope.DEFAULT) {
                levels.removeIf(s -> s.source() == Source.DYNAMIC_BROKER_CONFIG);
            }
            out.add(described(key.get(), levels, d.type(), false, d.doc()));
        }
        return out;
    }

    /** The broker-wide levels of {@code d}, most specific first, ending with its default. */
    private void brokerLevels(KafkaTopicConfigs.Def d, List<Synonym> levels) {
        String brokerKey = d.brokerKey().orElse(d.name());
        String nodeValue = dynamic.get(Scope.NODE).get(brokerKey);
        if (nodeValue != null && d.brokerKey().isPresent()) {
            levels.add(new Synonym(brokerKey, nodeValue, Source.DYNAMIC_BROKER_CONFIG));
        }
        String defValue = dynamic.get(Scope.DEFAULT).get(brokerKey);
        if (defValue != null && d.brokerKey().isPresent()) {
            levels.add(new Synonym(brokerKey, defValue, Source.DYNAMIC_DEFAULT_BROKER_CONFIG));
        }
        Optional<ConfigOption<?>> option = TopicRegistry.tierlogOption(d.name());
        String staticKey = option.map(ConfigOption::key).orElse(d.name());
        String staticRaw = base.raw(staticKey);
        if (staticRaw != null) {
            levels.add(
                    new Synonym(
                            staticKey,
                            option.map(o -> render(o, staticRaw)).orElse(staticRaw),
                            Source.STATIC_BROKER_CONFIG));
        }
        String dflt =
                option.isPresent() && !d.kafkaDefault().equals("-2")
                        ? render(option.get(), null)
                        : d.kafkaDefault();
        levels.add(new Synonym(brokerKey, dflt, Source.DEFAULT_CONFIG));
    }

    private static DescribedConfig described(
            String name, List<Synonym> levels, String type, boolean readOnly, String doc) {
        Synonym top = levels.get(0);
        return new DescribedConfig(
                name, top.value(), top.source(), List.copyOf(levels), type, readOnly, doc);
    }

    /** {@code raw} (null: the default) as Kafka text: bytes and milliseconds as plain numbers. */
    static <T> String render(ConfigOption<T> o, String raw) {
        T v;
        try {
            v = raw == null ? o.defaultValue() : o.parse(raw);
        } catch (RuntimeException e) {
            return raw;
        }
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

    static String kafkaType(ConfigOption<?> o) {
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

package io.tierlog.compactor;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.cold.TypedColumns;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.SchemaRegistry;
import io.tierlog.registry.typed.RegistryValueTyper;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Typed columns from the schema registry (TopicNameStrategy): values typed by the subject {@code
 * <topic>-value}, keys by {@code <topic>-key}, with the struct of every version of the subject (a
 * typer per object, so an object written after a new version sees it). {@code cold.typed.columns}
 * and {@code cold.typed.one.copy} are read from the topic's configs in the catalog, else the
 * broker-level option. Keys are always stored raw too (only values go the one-copy path).
 *
 * <p>A registry or catalog that fails (unreachable catalog) makes that object untyped with a WARN:
 * raw bytes are always written, so nothing is lost and the offload never stalls on the registry.
 *
 * <p>Thread-safe.
 */
public final class RegistryTypedColumns implements TypedColumnsSource {
    private static final Logger LOG = LoggerFactory.getLogger(RegistryTypedColumns.class);

    private final SchemaRegistry registry;
    private final Catalog catalog;
    private final CompactorOptions broker;
    private final ValueRebuilder rebuilder;

    public RegistryTypedColumns(SchemaRegistry registry, Catalog catalog, CompactorOptions broker) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.broker = Objects.requireNonNull(broker, "broker");
        this.rebuilder = RegistryValueTyper.rebuilder(registry);
    }

    @Override
    public TypedColumns forObject(String topic) {
        try {
            Map<String, String> configs =
                    catalog.topic(topic).map(TopicRecord::configs).orElse(Map.of());
            if (!flag(configs, CompactorOptions.COLD_TYPED_COLUMNS.key(), broker.typedColumns())) {
                return TypedColumns.NONE;
            }
            boolean oneCopy =
                    flag(
                            configs,
                            CompactorOptions.COLD_TYPED_ONE_COPY.key(),
                            broker.typedOneCopy());
            Optional<ValueTyper> values =
                    RegistryValueTyper.forSubject(
                            registry,
                            topic + "-value",
                            RegistryValueTyper.VALUE_FIELD_ID_BASE,
                            oneCopy);
            Optional<ValueTyper> keys =
                    RegistryValueTyper.forSubject(
                            registry, topic + "-key", RegistryValueTyper.KEY_FIELD_ID_BASE, false);
            return new TypedColumns(values.orElse(null), keys.orElse(null), oneCopy);
        } catch (RuntimeException e) {
            LOG.warn(
                    "typed columns of the next object of topic {} left out (raw bytes only): {}",
                    topic,
                    e.toString());
            return TypedColumns.NONE;
        }
    }

    private static boolean flag(Map<String, String> configs, String key, boolean def) {
        String v = configs.get(key);
        if (v == null) {
            return def;
        }
        return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> def; // the topic checks refuse other values; an old row falls back
        };
    }

    @Override
    public ValueRebuilder rebuilder() {
        return rebuilder;
    }
}

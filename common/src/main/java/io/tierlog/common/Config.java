package io.tierlog.common;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Raw key/value settings with typed access through {@link ConfigOption}. Values parse on access, so
 * a bad value fails with a message naming the key. Immutable and thread-safe.
 */
public final class Config {
    private static final Config EMPTY = new Config(Map.of());

    private final Map<String, String> values;

    private Config(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    public static Config empty() {
        return EMPTY;
    }

    public static Config of(Map<String, String> values) {
        return new Config(values);
    }

    /** Reads a Java properties file (the format of Kafka's {@code server.properties}). */
    public static Config load(Path file) throws IOException {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            props.load(r);
        }
        Map<String, String> m = new LinkedHashMap<>();
        props.stringPropertyNames().forEach(k -> m.put(k, props.getProperty(k)));
        return new Config(m);
    }

    public <T> T get(ConfigOption<T> option) {
        String raw = values.get(option.key());
        return raw == null ? option.defaultValue() : option.parse(raw);
    }

    public boolean contains(ConfigOption<?> option) {
        return values.containsKey(option.key());
    }

    public String raw(String key) {
        return values.get(key);
    }

    public Map<String, String> asMap() {
        return values;
    }

    /** These settings overridden by {@code overrides}. */
    public Config with(Map<String, String> overrides) {
        Map<String, String> m = new TreeMap<>(values);
        m.putAll(overrides);
        return new Config(m);
    }

    public Config with(String key, String value) {
        return with(Map.of(key, value));
    }

    /** The settings whose keys are among {@code options}. */
    public Config filter(Collection<? extends ConfigOption<?>> options) {
        Map<String, String> m = new TreeMap<>();
        for (ConfigOption<?> o : options) {
            if (values.containsKey(o.key())) {
                m.put(o.key(), values.get(o.key()));
            }
        }
        return new Config(m);
    }

    /** Parses every known key once so that a bad value fails at startup, not at first use. */
    public void validate(Collection<? extends ConfigOption<?>> options) {
        for (ConfigOption<?> o : options) {
            get(o);
        }
    }

    @Override
    public String toString() {
        return values.toString();
    }
}

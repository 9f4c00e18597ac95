package io.tierlog.common;

import java.util.Objects;
import java.util.function.Function;

/**
 * One typed configuration key: its name, how a string value parses, the default, a validator and a
 * one-line doc. Each module declares its options as constants in one class (for example {@code
 * HotTierOptions}); the README reference table is generated from those declarations.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the parsed type
 */
public final class ConfigOption<T> {

    /** Checks a parsed value; returns {@code null} when valid, else a human-readable reason. */
    @FunctionalInterface
    public interface Validator<T> {
        String check(T value);
    }

    private final String key;
    private final String type;
    private final Function<String, T> parser;
    private final Function<T, String> printer;
    private final T defaultValue;
    private final Validator<T> validator;
    private final String doc;

    private ConfigOption(
            String key,
            String type,
            Function<String, T> parser,
            Function<T, String> printer,
            T defaultValue,
            Validator<T> validator,
            String doc) {
        this.key = Objects.requireNonNull(key);
        this.type = type;
        this.parser = parser;
        this.printer = printer;
        this.defaultValue = defaultValue;
        this.validator = validator;
        this.doc = doc;
    }

    public static Builder<String> stringOption(String key) {
        return new Builder<>(key, "string", s -> s, s -> s);
    }

    public static Builder<Integer> intOption(String key) {
        return new Builder<>(key, "int", ConfigParsers::parseInt, String::valueOf);
    }

    public static Builder<Long> longOption(String key) {
        return new Builder<>(key, "long", ConfigParsers::parseLong, String::valueOf);
    }

    public static Builder<Double> doubleOption(String key) {
        return new Builder<>(key, "double", s -> Double.parseDouble(s.trim()), String::valueOf);
    }

    public static Builder<Boolean> booleanOption(String key) {
        return new Builder<>(key, "boolean", ConfigParsers::parseBoolean, String::valueOf);
    }

    /** Byte sizes accept plain numbers or units: {@code 1048576}, {@code 512KiB}, {@code 1GiB}. */
    public static Builder<ByteSize> bytesOption(String key) {
        return new Builder<>(key, "bytes", ByteSize::parse, ByteSize::toString);
    }

    /**
     * Durations accept plain milliseconds (Kafka's {@code *.ms} convention) or units: {@code
     * 500ms}, {@code 30s}, {@code 10m}, {@code 7d}.
     */
    public static Builder<java.time.Duration> durationOption(String key) {
        return new Builder<>(
                key, "duration", ConfigParsers::parseDuration, ConfigParsers::printDuration);
    }

    public static <E extends Enum<E>> Builder<E> enumOption(String key, Class<E> type) {
        return new Builder<>(
                key,
                "enum",
                s -> ConfigParsers.parseEnum(type, s),
                e -> e.name().toLowerCase(java.util.Locale.ROOT));
    }

    public String key() {
        return key;
    }

    public String type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String doc() {
        return doc;
    }

    /** The default as it would be written in a config file, or empty when there is none. */
    public String defaultString() {
        return defaultValue == null ? "" : printer.apply(defaultValue);
    }

    /**
     * Parses and validates a raw value.
     *
     * @throws ConfigException naming the key when the value does not parse or is invalid
     */
    public T parse(String raw) {
        T value;
        try {
            value = parser.apply(raw.trim());
        } catch (RuntimeException e) {
            throw new ConfigException(
                    "Invalid value '" + raw + "' for " + key + " (" + type + "): " + e.getMessage(),
                    e);
        }
        validate(value);
        return value;
    }

    public void validate(T value) {
        if (validator != null && value != null) {
            String problem = validator.check(value);
            if (problem != null) {
                throw new ConfigException(
                        "Invalid value '" + value + "' for " + key + ": " + problem);
            }
        }
    }

    public String format(T value) {
        return value == null ? "" : printer.apply(value);
    }

    @Override
    public String toString() {
        return key;
    }

    /** Fluent builder; {@link #build()} validates the default. */
    public static final class Builder<T> {
        private final String key;
        private final String type;
        private final Function<String, T> parser;
        private final Function<T, String> printer;
        private T defaultValue;
        private Validator<T> validator;
        private String doc = "";

        private Builder(
                String key, String type, Function<String, T> parser, Function<T, String> printer) {
            this.key = key;
            this.type = type;
            this.parser = parser;
            this.printer = printer;
        }

        public Builder<T> defaultValue(T value) {
            this.defaultValue = value;
            return this;
        }

        public Builder<T> validator(Validator<T> validator) {
            this.validator = validator;
            return this;
        }

        public Builder<T> doc(String doc) {
            this.doc = doc;
            return this;
        }

        public ConfigOption<T> build() {
            ConfigOption<T> option =
                    new ConfigOption<>(key, type, parser, printer, defaultValue, validator, doc);
            option.validate(defaultValue);
            return option;
        }
    }
}

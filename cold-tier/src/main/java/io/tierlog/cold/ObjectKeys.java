package io.tierlog.cold;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Object key layout of the cold tier, deterministic and sortable:
 *
 * <pre>
 * [prefix/]topic/partition/FFFFFFFFFFFFFFFFFFFF-LLLLLLLLLLLLLLLLLLLL-suffix.parquet
 * </pre>
 *
 * <ul>
 *   <li>{@code prefix}: optional, without leading or trailing slashes (empty means none);
 *   <li>{@code topic}: the topic name (Kafka topic names never contain '/');
 *   <li>{@code partition}: the partition number in decimal;
 *   <li>{@code F...}: first offset, 20 zero-padded decimal digits;
 *   <li>{@code L...}: last offset (inclusive), 20 zero-padded decimal digits;
 *   <li>{@code suffix}: a random UUID, so that two attempts at the same range never collide.
 * </ul>
 *
 * Lexicographic order of keys within a partition is offset order. Stateless and thread-safe.
 */
public final class ObjectKeys {
    /** File name extension of cold objects. */
    public static final String EXTENSION = ".parquet";

    private static final Pattern KEY =
            Pattern.compile(
                    "^(?:(.+)/)?([^/]+)/(\\d+)/(\\d{20})-(\\d{20})-([A-Za-z0-9-]+)"
                            + Pattern.quote(EXTENSION)
                            + "$");

    private ObjectKeys() {}

    /** A parsed object key. */
    public record ParsedKey(
            String prefix,
            String topic,
            int partition,
            long firstOffset,
            long lastOffset,
            String suffix) {}

    /** A fresh unique key for an object holding offsets {@code first..last} (inclusive). */
    public static String newKey(String prefix, String topic, int partition, long first, long last) {
        return key(prefix, topic, partition, first, last, UUID.randomUUID().toString());
    }

    /** The key for the given parts; {@code suffix} must be letters, digits and dashes. */
    public static String key(
            String prefix, String topic, int partition, long first, long last, String suffix) {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty() || topic.indexOf('/') >= 0) {
            throw new IllegalArgumentException("invalid topic name for an object key: " + topic);
        }
        if (partition < 0 || first < 0 || last < first) {
            throw new IllegalArgumentException(
                    "invalid partition/offset range: " + partition + " " + first + ".." + last);
        }
        if (!suffix.matches("[A-Za-z0-9-]+")) {
            throw new IllegalArgumentException("invalid key suffix: " + suffix);
        }
        return partitionPrefix(prefix, topic, partition)
                + String.format(Locale.ROOT, "%020d-%020d-%s%s", first, last, suffix, EXTENSION);
    }

    /** The key prefix (ending with '/') under which all objects of one partition live. */
    public static String partitionPrefix(String prefix, String topic, int partition) {
        return normalizePrefix(prefix) + topic + "/" + partition + "/";
    }

    /** The prefix normalized to either "" or "some/path/" (one trailing slash). */
    public static String normalizePrefix(String prefix) {
        if (prefix == null) {
            return "";
        }
        String p = prefix;
        while (p.startsWith("/")) {
            p = p.substring(1);
        }
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p.isEmpty() ? "" : p + "/";
    }

    /** Parses a key made by {@link #newKey}; empty when the key does not follow the layout. */
    public static Optional<ParsedKey> parse(String key) {
        Matcher m = KEY.matcher(key);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new ParsedKey(
                            m.group(1) == null ? "" : m.group(1),
                            m.group(2),
                            Integer.parseInt(m.group(3)),
                            Long.parseLong(m.group(4)),
                            Long.parseLong(m.group(5)),
                            m.group(6)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}

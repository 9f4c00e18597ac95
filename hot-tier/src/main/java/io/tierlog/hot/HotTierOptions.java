package io.tierlog.hot;

import io.tierlog.common.ByteSize;
import io.tierlog.common.ConfigOption;
import io.tierlog.common.ConfigValidators;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.record.internal.CompressionType;

/**
 * The hot tier's configuration keys, named and defaulted as in Apache Kafka's topic configs. A
 * value of -1 (or Kafka's {@code Long.MAX_VALUE}) means "unlimited" where Kafka says so; {@link
 * LogConfig} turns those sentinels into {@code Optional.empty()}.
 *
 * <p>Stateless; the constants are immutable and thread-safe.
 */
public final class HotTierOptions {
    private HotTierOptions() {}

    public static final ConfigOption<ByteSize> SEGMENT_BYTES =
            ConfigOption.bytesOption("segment.bytes")
                    .defaultValue(ByteSize.ofGiB(1))
                    .validator(v -> between(v.bytes(), 14, Integer.MAX_VALUE))
                    .doc("Roll a new segment when the active one would grow past this size.")
                    .build();

    public static final ConfigOption<Duration> SEGMENT_MS =
            ConfigOption.durationOption("segment.ms")
                    .defaultValue(Duration.ofDays(7))
                    .validator(v -> v.toMillis() >= 1 ? null : "must be at least 1 ms")
                    .doc("Roll a non-empty segment once its first batch is older than this.")
                    .build();

    public static final ConfigOption<Duration> SEGMENT_JITTER_MS =
            ConfigOption.durationOption("segment.jitter.ms")
                    .defaultValue(Duration.ZERO)
                    .validator(ConfigValidators.nonNegative())
                    .doc(
                            "Each segment rolls a random amount below this (and below"
                                    + " segment.ms) early, so that partitions created together do"
                                    + " not all roll at once.")
                    .build();

    public static final ConfigOption<ByteSize> INDEX_INTERVAL_BYTES =
            ConfigOption.bytesOption("index.interval.bytes")
                    .defaultValue(ByteSize.ofBytes(4096))
                    .validator(v -> between(v.bytes(), 0, Integer.MAX_VALUE))
                    .doc("Bytes of log between two entries of the sparse offset and time indexes.")
                    .build();

    public static final ConfigOption<ByteSize> SEGMENT_INDEX_BYTES =
            ConfigOption.bytesOption("segment.index.bytes")
                    .defaultValue(ByteSize.ofMiB(10))
                    .validator(v -> between(v.bytes(), 12 * 2, Integer.MAX_VALUE))
                    .doc(
                            "Size preallocated for each index file; a full index rolls the"
                                    + " segment. Trimmed to the real size when the segment closes.")
                    .build();

    public static final ConfigOption<ByteSize> MESSAGE_MAX_BYTES =
            ConfigOption.bytesOption("message.max.bytes")
                    .defaultValue(ByteSize.ofBytes(1048588))
                    .validator(v -> between(v.bytes(), 61, Integer.MAX_VALUE))
                    .doc("Largest record batch accepted (whole batch, header included).")
                    .build();

    /**
     * Kafka's topic-level name of {@link #MESSAGE_MAX_BYTES} (the broker-wide default keeps Kafka's
     * broker name {@code message.max.bytes}): a topic override under this key wins over the broker
     * value. Not a server setting.
     */
    public static final ConfigOption<ByteSize> MAX_MESSAGE_BYTES =
            ConfigOption.bytesOption("max.message.bytes")
                    .defaultValue(ByteSize.ofBytes(1048588))
                    .validator(v -> between(v.bytes(), 0, Integer.MAX_VALUE))
                    .doc(
                            "Largest record batch accepted by one topic (overrides message.max.bytes).")
                    .build();

    /** Kafka's {@code BrokerCompressionType} names: a codec, or {@code producer} (keep it). */
    public static final List<String> COMPRESSION_TYPES =
            List.of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer");

    public static final ConfigOption<String> COMPRESSION_TYPE =
            ConfigOption.stringOption("compression.type")
                    .defaultValue("producer")
                    .validator(
                            v ->
                                    COMPRESSION_TYPES.contains(v)
                                            ? null
                                            : "expected one of " + COMPRESSION_TYPES)
                    .doc(
                            "producer keeps each batch as the producer compressed it; a codec"
                                    + " (uncompressed, gzip, snappy, lz4, zstd) recompresses"
                                    + " batches written with another one on append.")
                    .build();

    public static final ConfigOption<Integer> COMPRESSION_GZIP_LEVEL =
            levelOption(CompressionType.GZIP);

    public static final ConfigOption<Integer> COMPRESSION_LZ4_LEVEL =
            levelOption(CompressionType.LZ4);

    public static final ConfigOption<Integer> COMPRESSION_ZSTD_LEVEL =
            levelOption(CompressionType.ZSTD);

    public static final ConfigOption<String> MESSAGE_TIMESTAMP_TYPE =
            ConfigOption.stringOption("message.timestamp.type")
                    .defaultValue("CreateTime")
                    .validator(
                            v ->
                                    v.equalsIgnoreCase("CreateTime")
                                                    || v.equalsIgnoreCase("LogAppendTime")
                                            ? null
                                            : "expected CreateTime or LogAppendTime")
                    .doc(
                            "CreateTime keeps the producer's timestamps; LogAppendTime stamps"
                                    + " every batch with the broker's clock.")
                    .build();

    public static final ConfigOption<Duration> MESSAGE_TIMESTAMP_BEFORE_MAX_MS =
            ConfigOption.durationOption("message.timestamp.before.max.ms")
                    .defaultValue(Duration.ofMillis(Long.MAX_VALUE))
                    .validator(ConfigValidators.nonNegative())
                    .doc("CreateTime records may be at most this much older than the broker clock.")
                    .build();

    public static final ConfigOption<Duration> MESSAGE_TIMESTAMP_AFTER_MAX_MS =
            ConfigOption.durationOption("message.timestamp.after.max.ms")
                    .defaultValue(Duration.ofHours(1))
                    .validator(ConfigValidators.nonNegative())
                    .doc(
                            "CreateTime records may be at most this much ahead of the broker"
                                    + " clock (Kafka 4.0 default, KIP-1030).")
                    .build();

    public static final ConfigOption<Duration> LOCAL_RETENTION_MS =
            ConfigOption.durationOption("local.retention.ms")
                    .defaultValue(Duration.ofMillis(-1))
                    .validator(HotTierOptions::minusOneOrNonNegative)
                    .doc(
                            "Delete closed local segments whose newest record is older than this"
                                    + " (-1: unlimited); never past the caller's offset bound.")
                    .build();

    public static final ConfigOption<Long> LOCAL_RETENTION_BYTES =
            ConfigOption.longOption("local.retention.bytes")
                    .defaultValue(-1L)
                    .validator(v -> v >= -1 ? null : "must be -1 (unlimited) or >= 0")
                    .doc(
                            "Delete the oldest closed local segments while the partition is larger"
                                    + " than this (-1: unlimited); never past the offset bound.")
                    .build();

    public static final ConfigOption<Long> FLUSH_MESSAGES =
            ConfigOption.longOption("flush.messages")
                    .defaultValue(Long.MAX_VALUE)
                    .validator(ConfigValidators.atLeast(1))
                    .doc("Fsync after this many records (default: never; page cache only).")
                    .build();

    public static final ConfigOption<Duration> FLUSH_MS =
            ConfigOption.durationOption("flush.ms")
                    .defaultValue(Duration.ofMillis(Long.MAX_VALUE))
                    .validator(HotTierOptions::minusOneOrNonNegative)
                    .doc("Fsync data older than this (default: never; page cache only).")
                    .build();

    public static final ConfigOption<Durability> LOG_DURABILITY =
            ConfigOption.enumOption("log.durability", Durability.class)
                    .defaultValue(Durability.PAGE_CACHE)
                    .doc(
                            "page_cache: acknowledge after writing to the page cache (Kafka);"
                                    + " fsync: acknowledge after an fsync shared by concurrent"
                                    + " appenders (group commit).")
                    .build();

    public static final ConfigOption<Duration> FILE_DELETE_DELAY_MS =
            ConfigOption.durationOption("file.delete.delay.ms")
                    .defaultValue(Duration.ofSeconds(60))
                    .validator(ConfigValidators.nonNegative())
                    .doc(
                            "Deleted segments are renamed to .deleted and removed after this"
                                    + " delay, so in-flight reads finish.")
                    .build();

    public static final ConfigOption<Duration> PRODUCER_ID_EXPIRATION_MS =
            ConfigOption.durationOption("producer.id.expiration.ms")
                    .defaultValue(Duration.ofDays(1))
                    .validator(v -> v.toMillis() >= 1 ? null : "must be at least 1 ms")
                    .doc(
                            "Forget an idempotent producer whose last batch timestamp is older than"
                                    + " this (its retries are then no longer deduplicated).")
                    .build();

    /** Kafka's {@code cleanup.policy} values. */
    public static final List<String> CLEANUP_POLICIES = List.of("delete", "compact");

    public static final ConfigOption<String> CLEANUP_POLICY =
            ConfigOption.stringOption("cleanup.policy")
                    .defaultValue("delete")
                    .validator(HotTierOptions::cleanupPolicy)
                    .doc(
                            "delete, compact or compact,delete: compact keeps the latest record"
                                    + " of each key (the log cleaner); hot segments leave only by"
                                    + " local retention after offload either way.")
                    .build();

    public static final ConfigOption<Double> MIN_CLEANABLE_DIRTY_RATIO =
            ConfigOption.doubleOption("min.cleanable.dirty.ratio")
                    .defaultValue(0.5)
                    .validator(v -> v >= 0 && v <= 1 ? null : "must be between 0 and 1")
                    .doc(
                            "Clean a compacted partition once its dirty bytes are more than this"
                                    + " share of its closed bytes.")
                    .build();

    public static final ConfigOption<Duration> MIN_COMPACTION_LAG_MS =
            ConfigOption.durationOption("min.compaction.lag.ms")
                    .defaultValue(Duration.ZERO)
                    .validator(ConfigValidators.nonNegative())
                    .doc("A record stays uncompacted at least this long after it was written.")
                    .build();

    public static final ConfigOption<Duration> MAX_COMPACTION_LAG_MS =
            ConfigOption.durationOption("max.compaction.lag.ms")
                    .defaultValue(Duration.ofMillis(Long.MAX_VALUE))
                    .validator(v -> v.toMillis() >= 1 ? null : "must be at least 1 ms")
                    .doc(
                            "A record is compacted at most this long after it was written"
                                    + " (forces cleaning below the dirty ratio, and rolls).")
                    .build();

    public static final ConfigOption<Duration> DELETE_RETENTION_MS =
            ConfigOption.durationOption("delete.retention.ms")
                    .defaultValue(Duration.ofDays(1))
                    .validator(ConfigValidators.nonNegative())
                    .doc(
                            "Tombstones of a compacted topic are kept this long after their first"
                                    + " cleaning (the KIP-534 delete horizon).")
                    .build();

    public static final ConfigOption<Boolean> LOG_CLEANER_ENABLE =
            ConfigOption.booleanOption("log.cleaner.enable")
                    .defaultValue(true)
                    .doc("Run the log cleaner, which compacts topics with cleanup.policy=compact.")
                    .build();

    public static final ConfigOption<Integer> LOG_CLEANER_THREADS =
            ConfigOption.intOption("log.cleaner.threads")
                    .defaultValue(1)
                    .validator(ConfigValidators.atLeast(0))
                    .doc("Threads of the log cleaner (never the append path).")
                    .build();

    public static final ConfigOption<Double> LOG_CLEANER_IO_MAX_BYTES_PER_SECOND =
            ConfigOption.doubleOption("log.cleaner.io.max.bytes.per.second")
                    .defaultValue(Double.MAX_VALUE)
                    .validator(v -> v > 0 ? null : "must be positive")
                    .doc("Bytes the log cleaner threads together read and write per second.")
                    .build();

    public static final ConfigOption<ByteSize> LOG_CLEANER_DEDUPE_BUFFER_SIZE =
            ConfigOption.bytesOption("log.cleaner.dedupe.buffer.size")
                    .defaultValue(ByteSize.ofMiB(128))
                    .validator(v -> between(v.bytes(), 1024, Long.MAX_VALUE))
                    .doc(
                            "Memory of the cleaners' offset maps (key hash to latest offset),"
                                    + " shared by the threads; bounds the dirty section of one"
                                    + " cleaning.")
                    .build();

    public static final ConfigOption<Duration> LOG_CLEANER_BACKOFF_MS =
            ConfigOption.durationOption("log.cleaner.backoff.ms")
                    .defaultValue(Duration.ofSeconds(15))
                    .validator(ConfigValidators.nonNegative())
                    .doc("How long a cleaner thread sleeps when no partition needs cleaning.")
                    .build();

    /** Server-wide (one value per log dir, not a topic config): the bound of {@link OpenFiles}. */
    public static final ConfigOption<Integer> LOG_OPEN_FILES_MAX =
            ConfigOption.intOption("log.open.files.max")
                    .defaultValue(0)
                    .validator(
                            v ->
                                    v == 0 || v >= OpenFiles.MIN_MAX
                                            ? null
                                            : "must be 0 (derived) or at least "
                                                    + OpenFiles.MIN_MAX)
                    .doc(
                            "Most segment files held open per log dir; idle ones are closed and"
                                    + " reopened on use. 0: half of the process's descriptor"
                                    + " limit after 256 kept for sockets and jars.")
                    .build();

    /** Options of the log dir as a whole (server-wide, never per topic), in documentation order. */
    public static List<ConfigOption<?>> logDirOptions() {
        return List.of(
                LOG_OPEN_FILES_MAX,
                LOG_CLEANER_ENABLE,
                LOG_CLEANER_THREADS,
                LOG_CLEANER_IO_MAX_BYTES_PER_SECOND,
                LOG_CLEANER_DEDUPE_BUFFER_SIZE,
                LOG_CLEANER_BACKOFF_MS);
    }

    /** Every topic-level option of the hot tier, in documentation order. */
    public static List<ConfigOption<?>> all() {
        return List.of(
                SEGMENT_BYTES,
                SEGMENT_MS,
                SEGMENT_JITTER_MS,
                INDEX_INTERVAL_BYTES,
                SEGMENT_INDEX_BYTES,
                MESSAGE_MAX_BYTES,
                COMPRESSION_TYPE,
                COMPRESSION_GZIP_LEVEL,
                COMPRESSION_LZ4_LEVEL,
                COMPRESSION_ZSTD_LEVEL,
                MESSAGE_TIMESTAMP_TYPE,
                MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
                MESSAGE_TIMESTAMP_AFTER_MAX_MS,
                LOCAL_RETENTION_MS,
                LOCAL_RETENTION_BYTES,
                FLUSH_MESSAGES,
                FLUSH_MS,
                LOG_DURABILITY,
                FILE_DELETE_DELAY_MS,
                PRODUCER_ID_EXPIRATION_MS,
                CLEANUP_POLICY,
                MIN_CLEANABLE_DIRTY_RATIO,
                MIN_COMPACTION_LAG_MS,
                MAX_COMPACTION_LAG_MS,
                DELETE_RETENTION_MS);
    }

    static boolean isLogAppendTime(String timestampType) {
        return timestampType.toLowerCase(Locale.ROOT).equals("logappendtime");
    }

    /**
     * {@code compression.<codec>.level}: Kafka's default and range for the codec (gzip also takes
     * -1, zlib's default level), used only when this tier recompresses a batch.
     */
    private static ConfigOption<Integer> levelOption(CompressionType type) {
        int min = type.minLevel();
        int max = type.maxLevel();
        int dflt = type.defaultLevel();
        return ConfigOption.intOption("compression." + type.name + ".level")
                .defaultValue(dflt)
                .validator(
                        v ->
                                (v >= min && v <= max) || v == dflt
                                        ? null
                                        : "must be between "
                                                + min
                                                + " and "
                                                + max
                                                + (dflt < min || dflt > max ? " or " + dflt : ""))
                .doc(
                        "Level of "
                                + type.name
                                + " when compression.type="
                                + type.name
                                + " recompresses a batch ("
                                + min
                                + ".."
                                + max
                                + (dflt < min ? "; " + dflt + ": the codec's own default" : "")
                                + ").")
                .build();
    }

    /** The policies of a {@code cleanup.policy} value (comma separated, Kafka's list form). */
    static List<String> cleanupPolicies(String value) {
        String v = value.trim();
        if (v.startsWith("[") && v.endsWith("]")) {
            v = v.substring(1, v.length() - 1);
        }
        List<String> out = new java.util.ArrayList<>();
        for (String p : v.split(",")) {
            if (!p.isBlank()) {
                out.add(p.trim().toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    private static String cleanupPolicy(String value) {
        for (String p : cleanupPolicies(value)) {
            if (!CLEANUP_POLICIES.contains(p)) {
                return "expected a list of " + CLEANUP_POLICIES + ", not " + p;
            }
        }
        return null;
    }

    private static String between(long v, long min, long max) {
        return v >= min && v <= max ? null : "must be between " + min + " and " + max;
    }

    private static String minusOneOrNonNegative(Duration d) {
        return d.toMillis() >= -1 ? null : "must be -1 (unlimited) or >= 0";
    }
}

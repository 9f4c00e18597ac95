package io.tierlog.compactor;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.common.ConfigValidators;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The compactor's configuration keys (offload loop, object sizing, upload rate, orphan sweeping,
 * retries, and where the offload daemon finds its catalog) and a typed, validated view of one
 * {@link Config}. Immutable and thread-safe.
 */
public final class CompactorOptions {

    public static final ConfigOption<Duration> OFFLOAD_INTERVAL_MS =
            ConfigOption.durationOption("offload.interval.ms")
                    .defaultValue(Duration.ofSeconds(30))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "How often the offload loop looks for closed segments not yet in the"
                                    + " cold tier (a rolled segment also wakes it up).")
                    .build();

    public static final ConfigOption<Integer> OFFLOAD_THREADS =
            ConfigOption.intOption("offload.threads")
                    .defaultValue(1)
                    .validator(v -> v >= 1 && v <= 256 ? null : "must be between 1 and 256")
                    .doc("Partitions offloaded in parallel (each partition by one thread).")
                    .build();

    public static final ConfigOption<ByteSize> OFFLOAD_UPLOAD_RATE_BYTES =
            ConfigOption.bytesOption("offload.upload.rate.bytes")
                    .defaultValue(ByteSize.ofBytes(0))
                    .doc(
                            "Upload rate limit in bytes per second over all offload threads;"
                                    + " 0 means unlimited.")
                    .build();

    public static final ConfigOption<ByteSize> OFFLOAD_TARGET_OBJECT_BYTES =
            ConfigOption.bytesOption("offload.target.object.bytes")
                    .defaultValue(ByteSize.ofMiB(128))
                    .validator(v -> v.bytes() >= 1024 ? null : "must be at least 1KiB")
                    .doc(
                            "Segment bytes per cold object: consecutive small segments merge into"
                                    + " one object up to this size, larger ones are split on"
                                    + " batch boundaries.")
                    .build();

    public static final ConfigOption<Duration> OFFLOAD_ORPHAN_GRACE_MS =
            ConfigOption.durationOption("offload.orphan.grace.ms")
                    .defaultValue(Duration.ofHours(1))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "Objects under the prefix that the catalog does not reference are"
                                    + " deleted once older than this; an upload older than half"
                                    + " of it is never committed.")
                    .build();

    public static final ConfigOption<Duration> OFFLOAD_SWEEP_INTERVAL_MS =
            ConfigOption.durationOption("offload.sweep.interval.ms")
                    .defaultValue(Duration.ofMinutes(10))
                    .validator(ConfigValidators.positive())
                    .doc("How often the daemon sweeps orphaned objects.")
                    .build();

    public static final ConfigOption<String> OFFLOAD_TMP_DIR =
            ConfigOption.stringOption("offload.tmp.dir")
                    .defaultValue("")
                    .doc(
                            "Directory for Parquet files before upload; empty means the JVM's"
                                    + " temporary directory. Never inside a source log dir.")
                    .build();

    public static final ConfigOption<Duration> OFFLOAD_RETRY_BACKOFF_MS =
            ConfigOption.durationOption("offload.retry.backoff.ms")
                    .defaultValue(Duration.ofMillis(200))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "First wait before retrying a failed upload or commit (doubles, jittered).")
                    .build();

    public static final ConfigOption<Duration> OFFLOAD_RETRY_BACKOFF_MAX_MS =
            ConfigOption.durationOption("offload.retry.backoff.max.ms")
                    .defaultValue(Duration.ofSeconds(30))
                    .validator(ConfigValidators.positive())
                    .doc("Longest wait between retries.")
                    .build();

    public static final ConfigOption<Duration> OFFLOAD_RETRY_TIMEOUT_MS =
            ConfigOption.durationOption("offload.retry.timeout.ms")
                    .defaultValue(Duration.ofMinutes(5))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "How long one object keeps being retried before the partition is"
                                    + " left for the next pass (its lag shows the error).")
                    .build();

    public static final ConfigOption<String> OFFLOAD_TOPICS_EXCLUDE =
            ConfigOption.stringOption("offload.topics.exclude")
                    .defaultValue("__cluster_metadata")
                    .validator(CompactorOptions::validRegex)
                    .doc(
                            "Regular expression of topics never offloaded (by default Kafka's KRaft"
                                    + " metadata log, which shares a combined node's log dir).")
                    .build();

    public static final ConfigOption<String> CATALOG_URL =
            ConfigOption.stringOption("catalog.url")
                    .defaultValue("")
                    .validator(
                            v ->
                                    v.isEmpty() || v.startsWith("jdbc:")
                                            ? null
                                            : "expected a JDBC URL (jdbc:sqlite:... or"
                                                    + " jdbc:postgresql:...)")
                    .doc(
                            "JDBC URL of the catalog; empty means the SQLite file catalog.db in"
                                    + " the data dir.")
                    .build();

    public static final ConfigOption<String> DATA_DIR =
            ConfigOption.stringOption("data.dir")
                    .defaultValue("./data")
                    .validator(ConfigValidators.notBlank())
                    .doc(
                            "Root of everything stored locally: hot-tier logs in <data.dir>/log,"
                                    + " server metadata in <data.dir>/meta, the id of its catalog"
                                    + " in <data.dir>/catalog.id; with the embedded defaults also"
                                    + " the SQLite catalog <data.dir>/catalog.db and the S3"
                                    + " server's files <data.dir>/s3.")
                    .build();

    public static final ConfigOption<Boolean> OFFLOAD_MERGE_ENABLED =
            ConfigOption.booleanOption("offload.merge.enabled")
                    .defaultValue(true)
                    .doc(
                            "Whether the compactor merges small cold objects: after each pass,"
                                    + " runs of at least two adjacent committed objects of a"
                                    + " partition, each smaller than a quarter of"
                                    + " offload.target.object.bytes and committed longer ago than"
                                    + " offload.merge.min.age.ms, are rewritten into one object"
                                    + " of up to the target holding exactly their batches; the"
                                    + " merged objects are retired (deleted after the grace"
                                    + " period).")
                    .build();

    public static final ConfigOption<Duration> OFFLOAD_MERGE_MIN_AGE_MS =
            ConfigOption.durationOption("offload.merge.min.age.ms")
                    .defaultValue(Duration.ofMinutes(10))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "How long a small object stays as committed before it may be merged"
                                    + " with its neighbours (readers and tables see it settle"
                                    + " first).")
                    .build();

    public static final ConfigOption<Boolean> COLD_CLEANER_ENABLE =
            ConfigOption.booleanOption("cold.cleaner.enable")
                    .defaultValue(true)
                    .doc(
                            "Whether the compactor compacts the cold objects of compacted topics"
                                    + " (cleanup.policy with compact): each pass of the offload"
                                    + " loop rewrites, per partition due for it, the cold objects"
                                    + " from the cold log start into compacted objects, committed"
                                    + " one replace per run of objects.")
                    .build();

    public static final ConfigOption<ByteSize> COLD_CLEANER_DEDUPE_BUFFER_SIZE =
            ConfigOption.bytesOption("cold.cleaner.dedupe.buffer.size")
                    .defaultValue(ByteSize.ofMiB(32))
                    .validator(v -> v.bytes() >= 24 * 1024 ? null : "must be at least 24KiB")
                    .doc(
                            "Memory of one cold compaction pass's key map (24 bytes per key, 3/4"
                                    + " filled): the dirty cold objects mapped in one pass hold at"
                                    + " most that many records; more wait for the next pass.")
                    .build();

    /** Every option of this module, for validation and the generated reference table. */
    public static final ConfigOption<Boolean> COLD_TYPED_COLUMNS =
            ConfigOption.booleanOption("cold.typed.columns")
                    .defaultValue(true)
                    .doc(
                            "Whether offloaded objects get typed columns (value_record, key_record)"
                                    + " decoded from the schema registry for records whose value"
                                    + " (key) carries a registered schema id of the topic's"
                                    + " subject <topic>-value (<topic>-key). Records that cannot"
                                    + " be decoded keep their raw bytes with the reason in"
                                    + " value_error (key_error). A topic config of the same name"
                                    + " overrides it per topic.")
                    .build();

    public static final ConfigOption<Boolean> COLD_TYPED_ONE_COPY =
            ConfigOption.booleanOption("cold.typed.one.copy")
                    .defaultValue(true)
                    .doc(
                            "With typed columns: store an Avro value only once, typed, when"
                                    + " re-encoding its typed row was verified at offload to give"
                                    + " its exact bytes (the cold reader rebuilds them, checked by"
                                    + " a CRC-32C). Off: raw bytes are always stored too. A topic"
                                    + " config of the same name overrides it per topic.")
                    .build();

    public static final List<ConfigOption<?>> ALL =
            List.of(
                    OFFLOAD_INTERVAL_MS,
                    OFFLOAD_THREADS,
                    OFFLOAD_UPLOAD_RATE_BYTES,
                    OFFLOAD_TARGET_OBJECT_BYTES,
                    OFFLOAD_ORPHAN_GRACE_MS,
                    OFFLOAD_SWEEP_INTERVAL_MS,
                    OFFLOAD_TMP_DIR,
                    OFFLOAD_RETRY_BACKOFF_MS,
                    OFFLOAD_RETRY_BACKOFF_MAX_MS,
                    OFFLOAD_RETRY_TIMEOUT_MS,
                    OFFLOAD_TOPICS_EXCLUDE,
                    OFFLOAD_MERGE_ENABLED,
                    OFFLOAD_MERGE_MIN_AGE_MS,
                    COLD_CLEANER_ENABLE,
                    COLD_CLEANER_DEDUPE_BUFFER_SIZE,
                    COLD_TYPED_COLUMNS,
                    COLD_TYPED_ONE_COPY,
                    CATALOG_URL,
                    DATA_DIR);

    private final Config config;

    private CompactorOptions(Config config) {
        this.config = config;
        config.validate(ALL);
    }

    /**
     * The compactor view of {@code config}; unknown keys are ignored.
     *
     * @throws io.tierlog.common.ConfigException naming the key of the first invalid value
     */
    public static CompactorOptions from(Config config) {
        return new CompactorOptions(Objects.requireNonNull(config, "config"));
    }

    public static CompactorOptions defaults() {
        return from(Config.empty());
    }

    /** The underlying raw settings (also read by the cold tier: s3.*, cold.*). */
    public Config config() {
        return config;
    }

    public Duration interval() {
        return config.get(OFFLOAD_INTERVAL_MS);
    }

    public int threads() {
        return config.get(OFFLOAD_THREADS);
    }

    /** Bytes per second, empty when unlimited. */
    public Optional<Long> uploadRateBytes() {
        long v = config.get(OFFLOAD_UPLOAD_RATE_BYTES).bytes();
        return v == 0 ? Optional.empty() : Optional.of(v);
    }

    public long targetObjectBytes() {
        return config.get(OFFLOAD_TARGET_OBJECT_BYTES).bytes();
    }

    public Duration orphanGrace() {
        return config.get(OFFLOAD_ORPHAN_GRACE_MS);
    }

    public Duration sweepInterval() {
        return config.get(OFFLOAD_SWEEP_INTERVAL_MS);
    }

    /** The temporary directory for Parquet files before upload. */
    public Path tmpDir() {
        String v = config.get(OFFLOAD_TMP_DIR);
        return Path.of(v.isEmpty() ? System.getProperty("java.io.tmpdir") : v);
    }

    public Duration retryBackoff() {
        return config.get(OFFLOAD_RETRY_BACKOFF_MS);
    }

    public Duration retryBackoffMax() {
        return config.get(OFFLOAD_RETRY_BACKOFF_MAX_MS);
    }

    public Duration retryTimeout() {
        return config.get(OFFLOAD_RETRY_TIMEOUT_MS);
    }

    /** Whether small cold objects are merged ({@code offload.merge.enabled}). */
    public boolean mergeEnabled() {
        return config.get(OFFLOAD_MERGE_ENABLED);
    }

    /** How old a small object must be to be merged ({@code offload.merge.min.age.ms}). */
    public Duration mergeMinAge() {
        return config.get(OFFLOAD_MERGE_MIN_AGE_MS);
    }

    /** Whether cold objects of compacted topics are compacted. */
    public boolean coldCleanerEnabled() {
        return config.get(COLD_CLEANER_ENABLE);
    }

    /** Bytes of one cold compaction pass's key map. */
    public long coldCleanerDedupeBytes() {
        return config.get(COLD_CLEANER_DEDUPE_BUFFER_SIZE).bytes();
    }

    /** {@code cold.typed.columns}, broker level (a topic config overrides it). */
    public boolean typedColumns() {
        return config.get(COLD_TYPED_COLUMNS);
    }

    /** {@code cold.typed.one.copy}, broker level (a topic config overrides it). */
    public boolean typedOneCopy() {
        return config.get(COLD_TYPED_ONE_COPY);
    }

    /** Topics never offloaded. */
    public Pattern topicsExclude() {
        return Pattern.compile(config.get(OFFLOAD_TOPICS_EXCLUDE));
    }

    private static String validRegex(String v) {
        try {
            Pattern.compile(v);
            return null;
        } catch (PatternSyntaxException e) {
            return "not a regular expression: " + e.getDescription();
        }
    }

    public Path dataDir() {
        return Path.of(config.get(DATA_DIR));
    }

    /** The catalog's JDBC URL: {@code catalog.url}, else the SQLite file in the data dir. */
    public String catalogUrl() {
        String v = config.get(CATALOG_URL);
        return v.isEmpty() ? "jdbc:sqlite:" + dataDir().resolve("catalog.db") : v;
    }

    /** True if {@code catalog.url} is set (no embedded catalog). */
    public boolean catalogUrlSet() {
        return !config.get(CATALOG_URL).isEmpty();
    }

    @Override
    public String toString() {
        return "CompactorOptions" + config.filter(ALL);
    }
}

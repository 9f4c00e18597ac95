package io.tierlog.engine;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.common.ConfigValidators;
import io.tierlog.compactor.CompactorOptions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The engine's own configuration keys: total (both tiers) retention with Kafka's names and
 * meanings, cold read tuning, background work and the metrics endpoint. {@code data.dir} and {@code
 * catalog.url} are the compactor's options (same keys, one declaration).
 *
 * <p>Stateless; the constants are immutable and thread-safe.
 */
public final class EngineOptions {
    private EngineOptions() {}

    public static final ConfigOption<String> DATA_DIR = CompactorOptions.DATA_DIR;
    public static final ConfigOption<String> CATALOG_URL = CompactorOptions.CATALOG_URL;

    public static final ConfigOption<Boolean> TIERED_ENABLED =
            ConfigOption.booleanOption("tiered.enabled")
                    .defaultValue(true)
                    .doc(
                            "Serve both tiers: closed segments are offloaded to Parquet in S3"
                                    + " (embedded s3proxy under data.dir/s3 unless s3.endpoint is"
                                    + " set) and old offsets are read back from there. false: hot"
                                    + " tier only (no object store, offload or cold reads; the"
                                    + " catalog still holds the topics; retention.ms and"
                                    + " retention.bytes delete hot segments).")
                    .build();

    public static final ConfigOption<String> S3_MODE =
            ConfigOption.stringOption("s3.mode")
                    .defaultValue("auto")
                    .validator(
                            v ->
                                    v.equals("auto") || v.equals("embedded") || v.equals("external")
                                            ? null
                                            : "expected auto, embedded or external")
                    .doc(
                            "embedded: run an S3-compatible server (s3proxy) under data.dir/s3;"
                                    + " external: use s3.endpoint/s3.bucket; auto: embedded unless"
                                    + " s3.endpoint or s3.bucket is set.")
                    .build();

    public static final ConfigOption<Boolean> OFFLOAD_ENABLED =
            ConfigOption.booleanOption("offload.enabled")
                    .defaultValue(true)
                    .doc(
                            "Run the compactor in this process: closed segments go to the cold"
                                    + " tier. When false, another process (tierlog offload) must.")
                    .build();

    public static final ConfigOption<Boolean> BACKGROUND_ENABLED =
            ConfigOption.booleanOption("engine.background.enabled")
                    .defaultValue(true)
                    .doc(
                            "Run housekeeping (rolls, flushes, local and total retention) and the"
                                    + " offload loop in background threads; false leaves them to"
                                    + " TieredLog.maintain() (tests, one-shot tools).")
                    .build();

    public static final ConfigOption<Duration> RETENTION_MS =
            ConfigOption.durationOption("retention.ms")
                    .defaultValue(Duration.ofDays(7))
                    .validator(v -> v.toMillis() >= -1 ? null : "must be -1 (unlimited) or >= 0")
                    .doc(
                            "Total retention by time: cold objects whose newest record is older"
                                    + " than this are deleted (-1: unlimited).")
                    .build();

    public static final ConfigOption<Long> RETENTION_BYTES =
            ConfigOption.longOption("retention.bytes")
                    .defaultValue(-1L)
                    .validator(v -> v >= -1 ? null : "must be -1 (unlimited) or >= 0")
                    .doc(
                            "Total retention by size of a partition across both tiers: the oldest"
                                    + " cold objects are deleted while it is larger (-1: unlimited).")
                    .build();

    public static final ConfigOption<Duration> RETENTION_CHECK_INTERVAL_MS =
            ConfigOption.durationOption("retention.check.interval.ms")
                    .defaultValue(Duration.ofMinutes(5))
                    .validator(v -> v.toMillis() >= 1 ? null : "must be at least 1 ms")
                    .doc(
                            "How often total retention is applied to the cold tier (Kafka's"
                                    + " log.retention.check.interval.ms).")
                    .build();

    public static final ConfigOption<Integer> COLD_READ_THREADS =
            ConfigOption.intOption("cold.read.threads")
                    .defaultValue(4)
                    .validator(v -> v >= 1 && v <= 256 ? null : "must be between 1 and 256")
                    .doc("Threads that fetch and decode cold objects (never a caller's thread).")
                    .build();

    public static final ConfigOption<ByteSize> COLD_READ_CHUNK_BYTES =
            ConfigOption.bytesOption("cold.read.chunk.bytes")
                    .defaultValue(ByteSize.ofMiB(16))
                    .validator(
                            v ->
                                    v.bytes() >= 1024 && v.bytes() <= (256L << 20)
                                            ? null
                                            : "must be between 1KiB and 256MiB")
                    .doc(
                            "Bytes of batches a read-ahead chunk decodes from a cold object: the unit"
                                    + " of the decoded-batch cache, of single-flight and of"
                                    + " read-ahead; a read that misses the cache decodes only its"
                                    + " fetch size (at least 1MiB, at most this). A chunk load"
                                    + " fetches about this many bytes (plus up to two pages) in"
                                    + " two ranged GETs.")
                    .build();

    public static final ConfigOption<java.time.Duration> COLD_READ_TIMEOUT_MS =
            ConfigOption.durationOption("cold.read.timeout.ms")
                    .defaultValue(java.time.Duration.ofSeconds(15))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "Deadline of one cold read (catalog lookup, object GETs, decoding):"
                                    + " past it the fetch answers the partition with the"
                                    + " retriable KAFKA_STORAGE_ERROR. Keep it below the clients'"
                                    + " request.timeout.ms (30s).")
                    .build();

    public static final ConfigOption<Boolean> COLD_READ_AHEAD =
            ConfigOption.booleanOption("cold.read.ahead")
                    .defaultValue(true)
                    .doc(
                            "Prefetch the next chunk of an object after serving one (sequential readers).")
                    .build();

    public static final ConfigOption<Integer> COLD_READ_AHEAD_CHUNKS =
            ConfigOption.intOption("cold.read.ahead.chunks")
                    .defaultValue(3)
                    .validator(v -> v >= 1 && v <= 64 ? null : "must be between 1 and 64")
                    .doc(
                            "Chunks a sequential reader's read-ahead keeps loading in parallel"
                                    + " (S3 latency, not CPU, bounds a single chunk load).")
                    .build();

    public static final ConfigOption<Integer> COLD_METADATA_CACHE_OBJECTS =
            ConfigOption.intOption("cold.metadata.cache.objects")
                    .defaultValue(1000)
                    .validator(ConfigValidators.atLeast(1))
                    .doc(
                            "Cold objects whose Parquet footer, page indexes and small"
                                    + " dictionaries (at most 128KiB per object) stay in memory.")
                    .build();

    public static final ConfigOption<String> METRICS_LISTEN =
            ConfigOption.stringOption("metrics.listen")
                    .defaultValue("")
                    .validator(
                            v ->
                                    v.isEmpty() || v.lastIndexOf(':') > 0
                                            ? null
                                            : "expected host:port")
                    .doc(
                            "host:port of the Prometheus text endpoint (GET /metrics); empty: no"
                                    + " endpoint.")
                    .build();

    /**
     * Confluent's default subject name strategy, the only one tierlog validates by: subject {@code
     * <topic>-value} / {@code <topic>-key}.
     */
    public static final String TOPIC_NAME_STRATEGY =
            "io.confluent.kafka.serializers.subject.TopicNameStrategy";

    public static final ConfigOption<Boolean> VALUE_SCHEMA_VALIDATION =
            ConfigOption.booleanOption("confluent.value.schema.validation")
                    .defaultValue(false)
                    .doc(
                            "Confluent Server's schema ID validation of record values: a batch"
                                    + " with a non-null value that lacks the wire-format header"
                                    + " (magic byte 0, 4-byte schema id, Protobuf's message"
                                    + " indexes), names an id the schema registry does not know,"
                                    + " or an id not registered under the subject (<topic>-value)"
                                    + " is refused whole with INVALID_RECORD and per-record"
                                    + " errors; nothing of it is written. Topic-level; the server"
                                    + " config file sets the default.")
                    .build();

    public static final ConfigOption<Boolean> KEY_SCHEMA_VALIDATION =
            ConfigOption.booleanOption("confluent.key.schema.validation")
                    .defaultValue(false)
                    .doc(
                            "As confluent.value.schema.validation, for non-null record keys"
                                    + " (subject <topic>-key).")
                    .build();

    public static final ConfigOption<String> VALUE_SUBJECT_NAME_STRATEGY =
            subjectNameStrategy("confluent.value.subject.name.strategy", "value");

    public static final ConfigOption<String> KEY_SUBJECT_NAME_STRATEGY =
            subjectNameStrategy("confluent.key.subject.name.strategy", "key");

    private static ConfigOption<String> subjectNameStrategy(String key, String part) {
        return ConfigOption.stringOption(key)
                .defaultValue(TOPIC_NAME_STRATEGY)
                .validator(
                        v ->
                                v.equals(TOPIC_NAME_STRATEGY)
                                        ? null
                                        : "tierlog validates record "
                                                + part
                                                + "s by "
                                                + TOPIC_NAME_STRATEGY
                                                + " only (subject <topic>-"
                                                + part
                                                + "); RecordNameStrategy and"
                                                + " TopicRecordNameStrategy are not supported")
                .doc(
                        "Subject name strategy of confluent."
                                + part
                                + ".schema.validation (Confluent's class name); only "
                                + TOPIC_NAME_STRATEGY
                                + " is accepted.")
                .build();
    }

    /** Every option declared here (not the reused compactor ones). */
    public static final List<ConfigOption<?>> ALL =
            List.of(
                    TIERED_ENABLED,
                    S3_MODE,
                    OFFLOAD_ENABLED,
                    BACKGROUND_ENABLED,
                    RETENTION_MS,
                    RETENTION_BYTES,
                    RETENTION_CHECK_INTERVAL_MS,
                    COLD_READ_THREADS,
                    COLD_READ_CHUNK_BYTES,
                    COLD_READ_TIMEOUT_MS,
                    COLD_READ_AHEAD,
                    COLD_READ_AHEAD_CHUNKS,
                    COLD_METADATA_CACHE_OBJECTS,
                    METRICS_LISTEN,
                    VALUE_SCHEMA_VALIDATION,
                    KEY_SCHEMA_VALIDATION,
                    VALUE_SUBJECT_NAME_STRATEGY,
                    KEY_SUBJECT_NAME_STRATEGY);

    /** Total retention by time of a topic config, empty for unlimited. */
    static Optional<Duration> retentionMs(Config c) {
        Duration d = c.get(RETENTION_MS);
        return d.isNegative() ? Optional.empty() : Optional.of(d);
    }

    /** Total retention by size of a topic config, empty for unlimited. */
    static Optional<Long> retentionBytes(Config c) {
        long b = c.get(RETENTION_BYTES);
        return b < 0 ? Optional.empty() : Optional.of(b);
    }
}

package io.tierlog.cold;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.common.ConfigValidators;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The cold tier's configuration keys (object store and Parquet layout) and a typed, validated view
 * of one {@link Config}. An empty string for {@code s3.endpoint} means AWS S3 of {@code s3.region};
 * empty {@code s3.access.key}/{@code s3.secret.key} mean the AWS default credentials provider chain
 * (environment, system properties, profile, container/instance role).
 *
 * <p>Immutable and thread-safe.
 */
public final class ColdTierOptions {

    public static final ConfigOption<String> S3_ENDPOINT =
            ConfigOption.stringOption("s3.endpoint")
                    .defaultValue("")
                    .validator(
                            v ->
                                    v.isEmpty()
                                                    || v.startsWith("http://")
                                                    || v.startsWith("https://")
                                            ? null
                                            : "expected an http:// or https:// URL, or empty")
                    .doc(
                            "S3-compatible endpoint URL (MinIO, Ceph RGW, s3proxy); empty means AWS"
                                    + " S3 in s3.region.")
                    .build();

    public static final ConfigOption<String> S3_BUCKET =
            ConfigOption.stringOption("s3.bucket")
                    .defaultValue("tierlog")
                    .validator(ConfigValidators.notBlank())
                    .doc("Bucket holding the cold objects.")
                    .build();

    public static final ConfigOption<String> S3_REGION =
            ConfigOption.stringOption("s3.region")
                    .defaultValue("us-east-1")
                    .validator(ConfigValidators.notBlank())
                    .doc("Region used for request signing and, without s3.endpoint, routing.")
                    .build();

    public static final ConfigOption<Boolean> S3_PATH_STYLE =
            ConfigOption.booleanOption("s3.path.style")
                    .defaultValue(false)
                    .doc(
                            "Address the bucket in the path (http://host/bucket/key) instead of the"
                                    + " host name; needed by most S3-compatible servers.")
                    .build();

    public static final ConfigOption<String> S3_ACCESS_KEY =
            ConfigOption.stringOption("s3.access.key")
                    .defaultValue("")
                    .doc("Static access key id; empty means the AWS default credentials chain.")
                    .build();

    public static final ConfigOption<String> S3_SECRET_KEY =
            ConfigOption.stringOption("s3.secret.key")
                    .defaultValue("")
                    .doc("Static secret access key, used with s3.access.key.")
                    .build();

    public static final ConfigOption<String> S3_PREFIX =
            ConfigOption.stringOption("s3.prefix")
                    .defaultValue("")
                    .doc(
                            "Key prefix under which tierlog writes its objects (for example"
                                    + " 'prod/cluster-1'); empty means the bucket root.")
                    .build();

    public static final ConfigOption<ByteSize> S3_MULTIPART_THRESHOLD_BYTES =
            ConfigOption.bytesOption("s3.multipart.threshold.bytes")
                    .defaultValue(ByteSize.ofMiB(64))
                    .validator(v -> v.bytes() >= 5L << 20 ? null : "must be at least 5MiB")
                    .doc("Files larger than this are uploaded with a multipart upload.")
                    .build();

    public static final ConfigOption<ByteSize> S3_MULTIPART_PART_BYTES =
            ConfigOption.bytesOption("s3.multipart.part.bytes")
                    .defaultValue(ByteSize.ofMiB(16))
                    .validator(
                            v ->
                                    v.bytes() >= 5L << 20 && v.bytes() <= 5L << 30
                                            ? null
                                            : "must be between 5MiB and 5GiB (S3 limits)")
                    .doc("Size of each part of a multipart upload (the last part may be smaller).")
                    .build();

    public static final ConfigOption<Duration> S3_REQUEST_TIMEOUT_MS =
            ConfigOption.durationOption("s3.request.timeout.ms")
                    .defaultValue(Duration.ofSeconds(5))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "Timeout of one HTTP attempt of a read or metadata call, and the"
                                    + " longest silence of the S3 endpoint on a connection during"
                                    + " any call (socket timeout); a timed-out attempt is retried"
                                    + " within s3.api.call.timeout.ms.")
                    .build();

    public static final ConfigOption<Duration> S3_API_CALL_TIMEOUT_MS =
            ConfigOption.durationOption("s3.api.call.timeout.ms")
                    .defaultValue(Duration.ofSeconds(10))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "Deadline of a whole S3 read or metadata call (GET, HEAD, LIST,"
                                    + " DELETE, multipart create/complete), every retry"
                                    + " included: an endpoint that accepts connections and never"
                                    + " answers fails the call after this long. Keep it well"
                                    + " below the clients' request.timeout.ms (30s).")
                    .build();

    public static final ConfigOption<Duration> S3_UPLOAD_TIMEOUT_MS =
            ConfigOption.durationOption("s3.upload.timeout.ms")
                    .defaultValue(Duration.ofMinutes(2))
                    .validator(ConfigValidators.positive())
                    .doc(
                            "Deadline of one upload (a PUT of an object or of one multipart"
                                    + " part), every retry included; the offload that made it"
                                    + " retries later with backoff.")
                    .build();

    public static final ConfigOption<Integer> S3_RETRY_MAX_ATTEMPTS =
            ConfigOption.intOption("s3.retry.max.attempts")
                    .defaultValue(10)
                    .validator(ConfigValidators.atLeast(1))
                    .doc(
                            "Attempts per request (1 = no retry) for throttling, 5xx, timeouts and"
                                    + " connection errors.")
                    .build();

    public static final ConfigOption<Duration> S3_RETRY_BACKOFF_MS =
            ConfigOption.durationOption("s3.retry.backoff.ms")
                    .defaultValue(Duration.ofMillis(100))
                    .validator(ConfigValidators.positive())
                    .doc("Base delay of the exponential backoff (full jitter) between attempts.")
                    .build();

    public static final ConfigOption<Duration> S3_RETRY_BACKOFF_MAX_MS =
            ConfigOption.durationOption("s3.retry.backoff.max.ms")
                    .defaultValue(Duration.ofSeconds(20))
                    .validator(ConfigValidators.positive())
                    .doc("Upper bound of the delay between two attempts.")
                    .build();

    public static final ConfigOption<ColdCompression> COLD_COMPRESSION =
            ConfigOption.enumOption("cold.compression", ColdCompression.class)
                    .defaultValue(ColdCompression.ZSTD)
                    .doc("Parquet page compression: zstd, snappy, gzip, lz4_raw or uncompressed.")
                    .build();

    public static final ConfigOption<Integer> COLD_ZSTD_LEVEL =
            ConfigOption.intOption("cold.zstd.level")
                    .defaultValue(3)
                    .validator(v -> v >= 1 && v <= 22 ? null : "must be between 1 and 22")
                    .doc("ZSTD compression level when cold.compression=zstd.")
                    .build();

    public static final ConfigOption<ByteSize> COLD_ROW_GROUP_BYTES =
            ConfigOption.bytesOption("cold.parquet.row.group.bytes")
                    .defaultValue(ByteSize.ofMiB(64))
                    .validator(v -> v.bytes() >= 64 * 1024 ? null : "must be at least 64KiB")
                    .doc("Target size of a Parquet row group (buffered in memory while writing).")
                    .build();

    public static final ConfigOption<ByteSize> COLD_PAGE_BYTES =
            ConfigOption.bytesOption("cold.parquet.page.bytes")
                    .defaultValue(ByteSize.ofMiB(1))
                    .validator(
                            v ->
                                    v.bytes() >= 1024 && v.bytes() <= Integer.MAX_VALUE
                                            ? null
                                            : "must be between 1KiB and 2GiB")
                    .doc(
                            "Target size of a Parquet data page: the unit a ranged read fetches"
                                    + " through the page index.")
                    .build();

    public static final ConfigOption<Integer> COLD_PAGE_ROW_LIMIT =
            ConfigOption.intOption("cold.parquet.page.row.limit")
                    .defaultValue(10_000)
                    .validator(ConfigValidators.atLeast(1))
                    .doc(
                            "Maximum rows per Parquet data page. Every column's pages end on the"
                                    + " same rows, about cold.parquet.page.bytes / 2 of records"
                                    + " (estimated from the first batch, at most this many), so"
                                    + " that a read fetches the value pages of about as many rows"
                                    + " as it returns, plus up to one page.")
                    .build();

    public static final ConfigOption<ByteSize> COLD_CACHE_BYTES =
            ConfigOption.bytesOption("cold.cache.bytes")
                    .defaultValue(ByteSize.ofMiB(256))
                    .doc(
                            "Memory for decoded cold batches: the cold reader's cache of read"
                                    + " chunks (cold.read.chunk.bytes each at most), weighed by"
                                    + " their bytes. Footers and page indexes are cached apart,"
                                    + " per object (cold.metadata.cache.objects).")
                    .build();

    /** Every option of this module, for validation and the generated reference table. */
    public static final List<ConfigOption<?>> ALL =
            List.of(
                    S3_ENDPOINT,
                    S3_BUCKET,
                    S3_REGION,
                    S3_PATH_STYLE,
                    S3_ACCESS_KEY,
                    S3_SECRET_KEY,
                    S3_PREFIX,
                    S3_MULTIPART_THRESHOLD_BYTES,
                    S3_MULTIPART_PART_BYTES,
                    S3_REQUEST_TIMEOUT_MS,
                    S3_API_CALL_TIMEOUT_MS,
                    S3_UPLOAD_TIMEOUT_MS,
                    S3_RETRY_MAX_ATTEMPTS,
                    S3_RETRY_BACKOFF_MS,
                    S3_RETRY_BACKOFF_MAX_MS,
                    COLD_COMPRESSION,
                    COLD_ZSTD_LEVEL,
                    COLD_ROW_GROUP_BYTES,
                    COLD_PAGE_BYTES,
                    COLD_PAGE_ROW_LIMIT,
                    COLD_CACHE_BYTES);

    private static final ColdTierOptions DEFAULTS = new ColdTierOptions(Config.empty());

    private final Config config;

    private ColdTierOptions(Config config) {
        this.config = config;
        config.validate(ALL);
        if (accessKey().isPresent() != secretKey().isPresent()) {
            throw new io.tierlog.common.ConfigException(
                    "s3.access.key and s3.secret.key must be set together");
        }
    }

    /**
     * The cold-tier view of {@code config}; unknown keys are ignored.
     *
     * @throws io.tierlog.common.ConfigException naming the key of the first invalid value
     */
    public static ColdTierOptions from(Config config) {
        return new ColdTierOptions(Objects.requireNonNull(config, "config"));
    }

    public static ColdTierOptions defaults() {
        return DEFAULTS;
    }

    /** The underlying raw settings. */
    public Config config() {
        return config;
    }

    public Optional<String> endpoint() {
        String v = config.get(S3_ENDPOINT);
        return v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    public String bucket() {
        return config.get(S3_BUCKET);
    }

    public String region() {
        return config.get(S3_REGION);
    }

    public boolean pathStyle() {
        return config.get(S3_PATH_STYLE);
    }

    public Optional<String> accessKey() {
        String v = config.get(S3_ACCESS_KEY);
        return v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    public Optional<String> secretKey() {
        String v = config.get(S3_SECRET_KEY);
        return v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    /** The key prefix, normalized to "" or "path/" (see {@link ObjectKeys#normalizePrefix}). */
    public String prefix() {
        return ObjectKeys.normalizePrefix(config.get(S3_PREFIX));
    }

    public long multipartThresholdBytes() {
        return config.get(S3_MULTIPART_THRESHOLD_BYTES).bytes();
    }

    public long multipartPartBytes() {
        return config.get(S3_MULTIPART_PART_BYTES).bytes();
    }

    public Duration requestTimeout() {
        return config.get(S3_REQUEST_TIMEOUT_MS);
    }

    /** Deadline of a whole read or metadata call, retries included. */
    public Duration apiCallTimeout() {
        return config.get(S3_API_CALL_TIMEOUT_MS);
    }

    /** Deadline of a whole upload call (object PUT or one part), retries included. */
    public Duration uploadTimeout() {
        return config.get(S3_UPLOAD_TIMEOUT_MS);
    }

    public int retryMaxAttempts() {
        return config.get(S3_RETRY_MAX_ATTEMPTS);
    }

    public Duration retryBackoff() {
        return config.get(S3_RETRY_BACKOFF_MS);
    }

    public Duration retryBackoffMax() {
        return config.get(S3_RETRY_BACKOFF_MAX_MS);
    }

    public ColdCompression compression() {
        return config.get(COLD_COMPRESSION);
    }

    public int zstdLevel() {
        return config.get(COLD_ZSTD_LEVEL);
    }

    public long rowGroupBytes() {
        return config.get(COLD_ROW_GROUP_BYTES).bytes();
    }

    public int pageBytes() {
        return config.get(COLD_PAGE_BYTES).toIntExact();
    }

    public int pageRowLimit() {
        return config.get(COLD_PAGE_ROW_LIMIT);
    }

    public long cacheBytes() {
        return config.get(COLD_CACHE_BYTES).bytes();
    }

    /** These options with one value replaced, e.g. for tests. */
    public ColdTierOptions with(ConfigOption<?> option, String value) {
        return new ColdTierOptions(config.with(option.key(), value));
    }

    @Override
    public String toString() {
        return "ColdTierOptions"
                + config.filter(ALL)
                        .with(S3_SECRET_KEY.key(), secretKey().isPresent() ? "***" : "");
    }
}

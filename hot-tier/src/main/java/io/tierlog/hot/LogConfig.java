package io.tierlog.hot;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;

/**
 * The resolved configuration of one partition log (see {@link HotTierOptions} for meanings).
 * Kafka's "unlimited" sentinels become {@code Optional.empty()}. Immutable and thread-safe.
 */
public final class LogConfig {
    private final int segmentBytes;
    private final Duration segmentMs;
    private final long segmentJitterMs;
    private final int indexIntervalBytes;
    private final int segmentIndexBytes;
    private final int messageMaxBytes;
    private final Compression targetCompression;
    private final TimestampType messageTimestampType;
    private final long timestampBeforeMaxMs;
    private final long timestampAfterMaxMs;
    private final Optional<Duration> localRetentionMs;
    private final Optional<ByteSize> localRetentionBytes;
    private final long flushMessages;
    private final Optional<Duration> flushMs;
    private final Durability durability;
    private final Duration fileDeleteDelay;
    private final Duration producerIdExpiration;
    private final boolean compact;
    private final boolean delete;
    private final double minCleanableDirtyRatio;
    private final long minCompactionLagMs;
    private final long maxCompactionLagMs;
    private final long deleteRetentionMs;
    private final long wallClockRollMs;
    private final Config source;

    private LogConfig(Config c) {
        this(c, -1);
    }

    private LogConfig(Config c, long wallClockRollMs) {
        this.source = c;
        this.wallClockRollMs = wallClockRollMs;
        segmentBytes = c.get(HotTierOptions.SEGMENT_BYTES).toIntExact();
        segmentMs = c.get(HotTierOptions.SEGMENT_MS);
        segmentJitterMs = c.get(HotTierOptions.SEGMENT_JITTER_MS).toMillis();
        indexIntervalBytes = c.get(HotTierOptions.INDEX_INTERVAL_BYTES).toIntExact();
        segmentIndexBytes = c.get(HotTierOptions.SEGMENT_INDEX_BYTES).toIntExact();
        messageMaxBytes =
                (c.contains(HotTierOptions.MAX_MESSAGE_BYTES)
                                ? c.get(HotTierOptions.MAX_MESSAGE_BYTES)
                                : c.get(HotTierOptions.MESSAGE_MAX_BYTES))
                        .toIntExact();
        targetCompression = targetCompression(c);
        messageTimestampType =
                HotTierOptions.isLogAppendTime(c.get(HotTierOptions.MESSAGE_TIMESTAMP_TYPE))
                        ? TimestampType.LOG_APPEND_TIME
                        : TimestampType.CREATE_TIME;
        timestampBeforeMaxMs = c.get(HotTierOptions.MESSAGE_TIMESTAMP_BEFORE_MAX_MS).toMillis();
        timestampAfterMaxMs = c.get(HotTierOptions.MESSAGE_TIMESTAMP_AFTER_MAX_MS).toMillis();
        Duration rms = c.get(HotTierOptions.LOCAL_RETENTION_MS);
        localRetentionMs = rms.isNegative() ? Optional.empty() : Optional.of(rms);
        long rb = c.get(HotTierOptions.LOCAL_RETENTION_BYTES);
        localRetentionBytes = rb < 0 ? Optional.empty() : Optional.of(ByteSize.ofBytes(rb));
        flushMessages = c.get(HotTierOptions.FLUSH_MESSAGES);
        Duration fms = c.get(HotTierOptions.FLUSH_MS);
        flushMs =
                fms.isNegative() || fms.toMillis() == Long.MAX_VALUE
                        ? Optional.empty()
                        : Optional.of(fms);
        durability = c.get(HotTierOptions.LOG_DURABILITY);
        fileDeleteDelay = c.get(HotTierOptions.FILE_DELETE_DELAY_MS);
        producerIdExpiration = c.get(HotTierOptions.PRODUCER_ID_EXPIRATION_MS);
        java.util.List<String> policies =
                HotTierOptions.cleanupPolicies(c.get(HotTierOptions.CLEANUP_POLICY));
        compact = policies.contains("compact");
        delete = policies.contains("delete");
        minCleanableDirtyRatio = c.get(HotTierOptions.MIN_CLEANABLE_DIRTY_RATIO);
        minCompactionLagMs = c.get(HotTierOptions.MIN_COMPACTION_LAG_MS).toMillis();
        maxCompactionLagMs = c.get(HotTierOptions.MAX_COMPACTION_LAG_MS).toMillis();
        deleteRetentionMs = c.get(HotTierOptions.DELETE_RETENTION_MS).toMillis();
    }

    /** The codec {@code compression.type} names with its level, or null for {@code producer}. */
    private static Compression targetCompression(Config c) {
        String type = c.get(HotTierOptions.COMPRESSION_TYPE);
        return switch (type) {
            case "producer" -> null;
            case "uncompressed" -> Compression.NONE;
            case "snappy" -> Compression.snappy().build();
            case "gzip" ->
                    Compression.gzip().level(c.get(HotTierOptions.COMPRESSION_GZIP_LEVEL)).build();
            case "lz4" ->
                    Compression.lz4().level(c.get(HotTierOptions.COMPRESSION_LZ4_LEVEL)).build();
            case "zstd" ->
                    Compression.zstd().level(c.get(HotTierOptions.COMPRESSION_ZSTD_LEVEL)).build();
            default -> throw new IllegalStateException("validated compression.type " + type);
        };
    }

    /** Resolves every hot-tier option of {@code c}; unset keys take their defaults. */
    public static LogConfig from(Config c) {
        return new LogConfig(c);
    }

    /** Convenience for tests and tools: {@code from(Config.of(values))}. */
    public static LogConfig from(Map<String, String> values) {
        return new LogConfig(Config.of(values));
    }

    /**
     * This config, with the active segment also rolled {@code ms} after its first append by the
     * log's clock (wall-clock age, whatever the records' timestamps), as long as it holds a record;
     * {@code ms <= 0} turns it off. What a consumer of the closed segments that needs them soon (an
     * Iceberg table's freshness target) sets on top of {@code segment.ms}.
     */
    public LogConfig withWallClockRollMs(long ms) {
        return new LogConfig(source, ms > 0 ? ms : -1);
    }

    /**
     * The wall-clock age of the active segment's first append at which it rolls, or -1 (only {@code
     * segment.ms} then).
     */
    public long wallClockRollMs() {
        return wallClockRollMs;
    }

    public static LogConfig defaults() {
        return new LogConfig(Config.empty());
    }

    public int segmentBytes() {
        return segmentBytes;
    }

    public Duration segmentMs() {
        return segmentMs;
    }

    /** {@code segment.jitter.ms} in ms (0: every segment rolls exactly at segment.ms). */
    public long segmentJitterMs() {
        return segmentJitterMs;
    }

    /**
     * A new segment's roll jitter, as Kafka draws it: uniform in [0, min(segment.jitter.ms,
     * segment.ms)), 0 without jitter.
     */
    long randomSegmentJitterMs() {
        if (segmentJitterMs == 0) {
            return 0;
        }
        long bound = Math.min(segmentJitterMs, segmentMs.toMillis());
        return ThreadLocalRandom.current().nextLong(bound);
    }

    /**
     * The codec every appended batch is stored with ({@code compression.type} and its level), or
     * empty for {@code producer}: each batch keeps the codec the producer chose.
     */
    public Optional<Compression> targetCompression() {
        return Optional.ofNullable(targetCompression);
    }

    public int indexIntervalBytes() {
        return indexIntervalBytes;
    }

    public int segmentIndexBytes() {
        return segmentIndexBytes;
    }

    public int messageMaxBytes() {
        return messageMaxBytes;
    }

    public TimestampType messageTimestampType() {
        return messageTimestampType;
    }

    /** Max age of a CreateTime timestamp relative to the broker clock, in ms. */
    public long timestampBeforeMaxMs() {
        return timestampBeforeMaxMs;
    }

    /** Max lead of a CreateTime timestamp over the broker clock, in ms. */
    public long timestampAfterMaxMs() {
        return timestampAfterMaxMs;
    }

    public Optional<Duration> localRetentionMs() {
        return localRetentionMs;
    }

    public Optional<ByteSize> localRetentionBytes() {
        return localRetentionBytes;
    }

    public long flushMessages() {
        return flushMessages;
    }

    public Optional<Duration> flushMs() {
        return flushMs;
    }

    public Durability durability() {
        return durability;
    }

    public Duration fileDeleteDelay() {
        return fileDeleteDelay;
    }

    public Duration producerIdExpiration() {
        return producerIdExpiration;
    }

    /** {@code cleanup.policy} holds {@code compact}: the log cleaner keeps the latest per key. */
    public boolean compact() {
        return compact;
    }

    /** {@code cleanup.policy} holds {@code delete} (retention by time and size). */
    public boolean delete() {
        return delete;
    }

    public double minCleanableDirtyRatio() {
        return minCleanableDirtyRatio;
    }

    public long minCompactionLagMs() {
        return minCompactionLagMs;
    }

    /** {@code max.compaction.lag.ms}; {@code Long.MAX_VALUE} for none. */
    public long maxCompactionLagMs() {
        return maxCompactionLagMs;
    }

    public long deleteRetentionMs() {
        return deleteRetentionMs;
    }

    /**
     * The age at which a segment rolls, as Kafka's {@code LogConfig.maxSegmentMs}: {@code
     * segment.ms}, or {@code max.compaction.lag.ms} when smaller on a compacted topic, so that a
     * record never waits in the active segment (which is never cleaned) past its lag.
     */
    public long maxSegmentMs() {
        long ms = segmentMs.toMillis();
        return compact && maxCompactionLagMs > 0 ? Math.min(ms, maxCompactionLagMs) : ms;
    }

    @Override
    public String toString() {
        return "LogConfig{segmentBytes="
                + segmentBytes
                + ", segmentMs="
                + segmentMs
                + ", indexIntervalBytes="
                + indexIntervalBytes
                + ", messageMaxBytes="
                + messageMaxBytes
                + ", compression="
                + (targetCompression == null ? "producer" : targetCompression.type().name)
                + ", timestampType="
                + messageTimestampType
                + ", durability="
                + durability
                + (compact ? ", compact" : "")
                + "}";
    }
}

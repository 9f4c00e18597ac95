package io.tierlog.hot;

import io.tierlog.common.ByteSize;
import io.tierlog.common.Config;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.record.TimestampType;

/**
 * The resolved configuration of one partition log (see {@link HotTierOptions} for meanings).
 * Kafka's "unlimited" sentinels become {@code Optional.empty()}. Immutable and thread-safe.
 */
public final class LogConfig {
    private final int segmentBytes;
    private final Duration segmentMs;
    private final int indexIntervalBytes;
    private final int segmentIndexBytes;
    private final int messageMaxBytes;
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

    private LogConfig(Config c) {
        segmentBytes = c.get(HotTierOptions.SEGMENT_BYTES).toIntExact();
        segmentMs = c.get(HotTierOptions.SEGMENT_MS);
        indexIntervalBytes = c.get(HotTierOptions.INDEX_INTERVAL_BYTES).toIntExact();
        segmentIndexBytes = c.get(HotTierOptions.SEGMENT_INDEX_BYTES).toIntExact();
        messageMaxBytes =
                (c.contains(HotTierOptions.MAX_MESSAGE_BYTES)
                                ? c.get(HotTierOptions.MAX_MESSAGE_BYTES)
                                : c.get(HotTierOptions.MESSAGE_MAX_BYTES))
                        .toIntExact();
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
    }

    /** Resolves every hot-tier option of {@code c}; unset keys take their defaults. */
    public static LogConfig from(Config c) {
        return new LogConfig(c);
    }

    /** Convenience for tests and tools: {@code from(Config.of(values))}. */
    public static LogConfig from(Map<String, String> values) {
        return new LogConfig(Config.of(values));
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
                + ", timestampType="
                + messageTimestampType
                + ", durability="
                + durability
                + "}";
    }
}

package io.tierlog.catalog;

import java.time.Instant;
import java.util.Objects;

/**
 * One Parquet object of one partition in the object store, as committed to the catalog: it holds
 * every record of offsets {@code firstOffset..lastOffset} (inclusive; offsets inside may be missing
 * after Kafka compaction, but no other object holds them). Immutable, so thread-safe.
 *
 * @param topic topic name
 * @param partition partition number
 * @param firstOffset offset of the first record (base offset of the first batch)
 * @param lastOffset last offset covered (last offset of the last batch)
 * @param minTimestamp smallest record timestamp, epoch millis
 * @param maxTimestamp largest record timestamp, epoch millis
 * @param recordCount number of records (rows)
 * @param sizeInBytes object size in the store
 * @param key full object key
 * @param createdAt when the object was written
 */
public record ColdObject(
        String topic,
        int partition,
        long firstOffset,
        long lastOffset,
        long minTimestamp,
        long maxTimestamp,
        long recordCount,
        long sizeInBytes,
        String key,
        Instant createdAt) {
    public ColdObject {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(createdAt, "createdAt");
        if (partition < 0) {
            throw new IllegalArgumentException("partition must be >= 0, got " + partition);
        }
        if (firstOffset < 0 || lastOffset < firstOffset) {
            throw new IllegalArgumentException(
                    "invalid offset range " + firstOffset + ".." + lastOffset + " of " + key);
        }
        if (recordCount < 0 || sizeInBytes < 0) {
            throw new IllegalArgumentException("negative recordCount or sizeInBytes of " + key);
        }
    }

    /** The offset after this object: {@code lastOffset + 1}. */
    public long nextOffset() {
        return lastOffset + 1;
    }

    /** True if this object holds {@code offset} in its range. */
    public boolean contains(long offset) {
        return offset >= firstOffset && offset <= lastOffset;
    }

    /** Same object as far as idempotent commits are concerned: same key, partition and range. */
    public boolean sameObjectAs(ColdObject other) {
        return key.equals(other.key)
                && topic.equals(other.topic)
                && partition == other.partition
                && firstOffset == other.firstOffset
                && lastOffset == other.lastOffset;
    }

    /** {@code topic-partition offsets first..last}, as error messages name the object's range. */
    public String describeRange() {
        return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset;
    }
}

package io.tierlog.compactor;

import io.tierlog.catalog.CommitResult;
import org.apache.kafka.common.TopicPartition;

/**
 * One object the compactor wrote and committed. Immutable, so thread-safe.
 *
 * @param tp the partition
 * @param firstOffset first offset the object covers
 * @param lastOffset last offset it covers
 * @param recordCount records (rows) in it
 * @param sourceBytes segment bytes it replaces
 * @param objectBytes its size in the object store
 * @param key its object key
 * @param elapsedNanos time from the first batch read to the commit
 * @param result what the catalog said
 */
public record ObjectReport(
        TopicPartition tp,
        long firstOffset,
        long lastOffset,
        long recordCount,
        long sourceBytes,
        long objectBytes,
        String key,
        long elapsedNanos,
        CommitResult result) {}

package io.tierlog.catalog;

import java.util.Objects;

/**
 * An object that a compaction replaced ({@link Catalog#replaceObjects}): no partition references it
 * any more, and it waits for its grace period to pass before the sweeper deletes it from the store.
 * Immutable, so thread-safe.
 *
 * @param topic topic name
 * @param partition partition number
 * @param key full object key
 * @param retiredAtMs when it was replaced, epoch millis
 */
public record RetiredObject(String topic, int partition, String key, long retiredAtMs) {
    public RetiredObject {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(key, "key");
    }
}

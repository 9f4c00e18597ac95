package io.tierlog.cold;

import java.time.Instant;
import java.util.Objects;

/**
 * Metadata of one stored object. Immutable.
 *
 * @param key the full object key
 * @param size size in bytes
 * @param lastModified when the store last wrote the object
 */
public record ObjectInfo(String key, long size, Instant lastModified) {
    public ObjectInfo {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(lastModified, "lastModified");
        if (size < 0) {
            throw new IllegalArgumentException("negative size " + size + " for " + key);
        }
    }
}

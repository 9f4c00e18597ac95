package io.tierlog.cold;

import java.io.IOException;

/**
 * An object-store operation failed for a given key, after the store's retries were exhausted (or
 * immediately, for errors that retrying cannot fix). The message always names the key. Immutable.
 */
public class ObjectStoreException extends IOException {
    private final String key;

    public ObjectStoreException(String key, String message) {
        super(message + " [key=" + key + "]");
        this.key = key;
    }

    public ObjectStoreException(String key, String message, Throwable cause) {
        super(message + " [key=" + key + "]", cause);
        this.key = key;
    }

    /** The object key (or key prefix, for {@code list}) the operation was about. */
    public String key() {
        return key;
    }
}

package io.tierlog.cold;

/** The object does not exist (HTTP 404 / NoSuchKey). Never retried. Immutable. */
public class ObjectNotFoundException extends ObjectStoreException {
    public ObjectNotFoundException(String key) {
        super(key, "object not found");
    }

    public ObjectNotFoundException(String key, Throwable cause) {
        super(key, "object not found", cause);
    }
}

package io.tierlog.cold;

/**
 * An object was fetched but its content cannot be decoded: a damaged Parquet footer, page index,
 * page or tierlog metadata. Retrying the same object does not help; another copy (the hot tier)
 * may. Immutable.
 */
public class ObjectCorruptException extends ObjectStoreException {
    public ObjectCorruptException(String key, String message, Throwable cause) {
        super(key, message, cause);
    }

    /**
     * The failure of decoding {@code key}: the store's own exception when one is in the cause chain
     * (the bytes never arrived), else an {@link ObjectCorruptException} saying {@code what} failed.
     */
    public static ObjectStoreException decodeFailure(String key, String what, Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof ObjectStoreException ose) {
                return ose;
            }
        }
        return new ObjectCorruptException(key, what + ": " + e, e);
    }
}

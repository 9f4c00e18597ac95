package io.tierlog.cold;

/**
 * An object-store call did not complete within its deadline ({@code s3.api.call.timeout.ms} or
 * {@code s3.upload.timeout.ms}, retries included): the endpoint may be up but not answering.
 * Retriable later. The message names the key and the setting. Immutable.
 */
public class ObjectStoreTimeoutException extends ObjectStoreException {
    public ObjectStoreTimeoutException(String key, String message, Throwable cause) {
        super(key, message, cause);
    }
}

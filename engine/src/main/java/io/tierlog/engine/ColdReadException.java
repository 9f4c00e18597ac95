package io.tierlog.engine;

import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * A cold read failed because the object store (or the catalog) could not be reached or answered
 * with an error. Retriable: the data is still committed and will be readable once the store is
 * back. It is a {@link KafkaStorageException}, so a Kafka server answers {@code
 * KAFKA_STORAGE_ERROR}, which every client retries. Immutable.
 */
public final class ColdReadException extends KafkaStorageException {
    private static final long serialVersionUID = 1L;

    public ColdReadException(String message, Throwable cause) {
        super(message, cause);
    }
}

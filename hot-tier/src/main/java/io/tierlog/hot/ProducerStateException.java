package io.tierlog.hot;

/**
 * An idempotent producer's batch does not fit its known state; nothing of the request was written.
 * The {@link Kind} maps to the Kafka error code. Immutable.
 */
public final class ProducerStateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Kafka error code to return. */
    public enum Kind {
        OUT_OF_ORDER_SEQUENCE,
        INVALID_PRODUCER_EPOCH,
        UNKNOWN_PRODUCER_ID
    }

    private final Kind kind;

    public ProducerStateException(Kind kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}

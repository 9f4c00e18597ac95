package io.tierlog.hot;

/**
 * An idempotent or transactional producer's batch (or a marker) does not fit its known state;
 * nothing of the request was written. The {@link Kind} maps to the Kafka error code. Immutable.
 */
public final class ProducerStateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Kafka error code to return. */
    public enum Kind {
        OUT_OF_ORDER_SEQUENCE,
        INVALID_PRODUCER_EPOCH,
        UNKNOWN_PRODUCER_ID,
        /**
         * A transactional batch outside a verified transaction, or a non-transactional batch while
         * the producer's transaction is open (Kafka's {@code INVALID_TXN_STATE}).
         */
        INVALID_TXN_STATE,
        /** A marker from a coordinator older than the last one seen (Kafka's code 52). */
        TRANSACTION_COORDINATOR_FENCED
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

package io.tierlog.hot;

/**
 * An append request holds a batch that is refused; nothing of the request was written. The {@link
 * Kind} maps one to one to a Kafka error code. Immutable.
 */
public final class InvalidBatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why the batch was refused, named after the Kafka error code to return. */
    public enum Kind {
        /** CRC mismatch, truncated batch, inconsistent lengths. */
        CORRUPT_MESSAGE,
        /** Batch larger than {@code message.max.bytes}. */
        MESSAGE_TOO_LARGE,
        /** Timestamp out of range or inconsistent with the batch's max timestamp. */
        INVALID_TIMESTAMP,
        /** Record count, offset deltas or record framing inconsistent with the header. */
        INVALID_RECORD,
        /** Magic other than 2. */
        UNSUPPORTED_MAGIC
    }

    private final Kind kind;

    public InvalidBatchException(Kind kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    public InvalidBatchException(Kind kind, String message, Throwable cause) {
        super(kind + ": " + message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}

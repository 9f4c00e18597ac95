package io.tierlog.iceberg;

/**
 * A table operation failed (catalog unreachable, commit refused and not resolved, bad metadata).
 */
public class TableException extends RuntimeException {
    public TableException(String message) {
        super(message);
    }

    public TableException(String message, Throwable cause) {
        super(message, cause);
    }
}

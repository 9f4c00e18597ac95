package io.tierlog.catalog;

/**
 * A commit was refused or failed before its commit point: nothing was written, so the caller may
 * retry, or delete the object it meant to commit (Iceberg's {@code CommitFailedException}).
 * Immutable, so thread-safe.
 */
public class CommitFailedException extends CatalogException {
    private static final long serialVersionUID = 1L;

    public CommitFailedException(String message) {
        super(message);
    }

    public CommitFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}

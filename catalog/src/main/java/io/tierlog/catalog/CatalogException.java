package io.tierlog.catalog;

/**
 * A catalog operation failed. Unchecked: callers either handle the specific subtypes ({@link
 * CommitFailedException}, {@link CommitConflictException}, {@link CommitStateUnknownException},
 * {@link TopicConflictException}) or let the failure propagate. Immutable, so thread-safe.
 */
public class CatalogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CatalogException(String message) {
        super(message);
    }

    public CatalogException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.tierlog.catalog;

/**
 * The commit may or may not have taken effect (the connection failed while committing). The caller
 * must never delete the object it tried to commit: either the catalog references it, or it is an
 * orphan the sweeper removes after its grace period. Reading {@link Catalog#partitionState} later
 * tells which. Immutable, so thread-safe.
 */
public class CommitStateUnknownException extends CatalogException {
    private static final long serialVersionUID = 1L;

    public CommitStateUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.tierlog.catalog;

/**
 * A schema registration was refused because another writer changed the subject (or took the schema
 * id) between the caller's read and its write. Nothing was written: re-read the subject, decide
 * again, retry. Immutable, so thread-safe.
 */
public class SchemaConflictException extends CatalogException {
    private static final long serialVersionUID = 1L;

    public SchemaConflictException(String message) {
        super(message);
    }

    public SchemaConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.tierlog.catalog;

/**
 * The catalog is not there, not the one expected, or no longer durable: its SQLite file is missing,
 * empty, was deleted or replaced while open, or its write-ahead log vanished. Nothing may be
 * deleted or committed on its word until it is back (see {@link CatalogGuard}). The message names
 * the catalog and what is wrong. Immutable, so thread-safe.
 */
public class CatalogUnavailableException extends CatalogException {
    private static final long serialVersionUID = 1L;

    public CatalogUnavailableException(String message) {
        super(message);
    }

    public CatalogUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}

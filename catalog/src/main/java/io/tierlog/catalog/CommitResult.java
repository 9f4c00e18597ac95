package io.tierlog.catalog;

/** Outcome of a successful {@link Catalog#commit}. Immutable, so thread-safe. */
public enum CommitResult {
    /** The object was appended and the cold high watermark advanced past it. */
    COMMITTED,
    /** The same object (same key and offset range) was already committed: nothing changed. */
    ALREADY_COMMITTED
}

package io.tierlog.catalog;

import java.util.List;

/**
 * The outcome of {@link Catalog#advanceLogStart}: the partition's log start offset as committed,
 * and the objects the catalog no longer references (wholly below it), which the caller deletes from
 * the store (or leaves to the orphan sweeper). Immutable, so thread-safe.
 *
 * @param logStartOffset the log start offset now committed (never lower than before)
 * @param removed the objects removed from the catalog by this call, in offset order
 */
public record LogStartUpdate(long logStartOffset, List<ColdObject> removed) {
    public LogStartUpdate {
        removed = List.copyOf(removed);
    }
}

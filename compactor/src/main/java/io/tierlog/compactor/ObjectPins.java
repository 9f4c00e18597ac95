package io.tierlog.compactor;

/**
 * Objects something outside the catalog still references (an Iceberg table's data files), which
 * must stay in the bucket even when the catalog no longer lists them: the orphan sweeper keeps a
 * pinned orphan or retired object, and total retention leaves pinned objects to the sweeper.
 * Implementations are quick (in memory) and thread-safe.
 */
@FunctionalInterface
public interface ObjectPins {
    /** Nothing pinned. */
    ObjectPins NONE = key -> false;

    /** Whether the object at {@code key} must not be deleted now. */
    boolean pinned(String key);
}

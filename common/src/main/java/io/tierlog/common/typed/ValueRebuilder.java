package io.tierlog.common.typed;

/**
 * Rebuilds a payload's exact bytes (wire-format header included) from its schema id and its typed
 * row, for rows whose raw bytes the writer left out because {@link ValueTyper.Typed#rebuildable()}
 * said so. Thread-safe.
 */
public interface ValueRebuilder {
    /**
     * @param schemaId the schema id stored with the row
     * @param struct the struct type the object was written with
     * @param row the typed row as read back
     * @return the payload bytes
     * @throws IllegalStateException when the schema is unknown or the row does not fit it (the
     *     object is then unreadable for that row, a verify finding)
     */
    byte[] rebuild(int schemaId, TypedType.Struct struct, Object[] row);
}

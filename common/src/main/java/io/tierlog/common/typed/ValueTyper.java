package io.tierlog.common.typed;

import java.nio.ByteBuffer;

/**
 * Decodes the keys or the values of one object's records into typed columns (see {@link
 * TypedType}). The cold-tier writer asks it once for the object's struct, then once per record with
 * a payload. Built by whoever knows the schemas (the schema registry); the cold tier only writes
 * what it returns. Not necessarily thread-safe: one per object written.
 */
public interface ValueTyper {
    /** The struct type of the typed column for the object (fixed for the object). */
    TypedType.Struct struct();

    /**
     * Types one record's payload (key or value bytes, never null; position to limit). Never throws
     * for bad input: a payload that cannot be decoded gives {@link Typed#failed}.
     */
    Typed type(ByteBuffer payload);

    /**
     * The outcome for one payload.
     *
     * @param schemaId the schema id of the payload's wire-format header, or -1 when it has none
     * @param row the decoded row, one entry per field of {@link #struct()} (null when {@code error}
     *     is set)
     * @param error why the payload has no typed row (null when decoded), for the {@code _error}
     *     column; {@code reason} is its short, stable class for metrics ({@code no-header}, {@code
     *     unknown-id}, {@code not-in-subject}, {@code decode})
     * @param reason see {@code error}; null when decoded
     * @param rebuildable true when the payload's exact bytes are rebuilt from {@code row} and
     *     {@code schemaId} by the matching {@link ValueRebuilder} (verified by doing it), so that
     *     the writer may leave the raw bytes out
     */
    record Typed(int schemaId, Object[] row, String error, String reason, boolean rebuildable) {
        public static Typed decoded(int schemaId, Object[] row, boolean rebuildable) {
            return new Typed(schemaId, row, null, null, rebuildable);
        }

        public static Typed failed(int schemaId, String reason, String error) {
            return new Typed(schemaId, null, error, reason, false);
        }
    }
}

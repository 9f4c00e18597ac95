package io.tierlog.registry.typed;

import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.SchemaRegistry;
import java.util.Optional;

/**
 * Typed columns from the registry: a {@link ValueTyper} for the records of one subject (values of a
 * topic under {@code <topic>-value}, keys under {@code <topic>-key}), and the {@link
 * ValueRebuilder} of values stored once. Stateless, so thread-safe (typers are not: one per
 * object).
 */
public final class RegistryValueTyper {
    private RegistryValueTyper() {}

    /**
     * Parquet field id base of {@code value_record}'s nested fields (plus the subject-local id).
     */
    public static final int VALUE_FIELD_ID_BASE = 1_000_000;

    /** Parquet field id base of {@code key_record}'s nested fields (plus the subject-local id). */
    public static final int KEY_FIELD_ID_BASE = 2_000_000;

    /**
     * A typer for one object's payloads of {@code subject}: its struct merges every version of the
     * subject (soft-deleted included) by field id, fields at {@code fieldIdBase} + the subject's
     * field id. Empty when the subject has no version with a typed view. Payloads that cannot be
     * typed come back failed with a reason: {@code no-header}, {@code unknown-id}, {@code
     * not-in-subject}, {@code decode}; the typer never throws for a payload. May block on the
     * registry (call it from offload threads).
     *
     * @param verifyRebuild when true, Avro payloads whose exact bytes the rebuilder reproduces from
     *     the typed row (checked by doing it, byte for byte) are marked {@code rebuildable}
     */
    public static Optional<ValueTyper> forSubject(
            SchemaRegistry registry, String subject, int fieldIdBase, boolean verifyRebuild) {
        return SubjectTyper.create(registry, subject, fieldIdBase, verifyRebuild);
    }

    /**
     * The rebuilder of payloads marked rebuildable by typers of {@code registry}: Avro binary
     * written from the row by the writer schema, the 5-byte header in front. Thread-safe.
     */
    public static ValueRebuilder rebuilder(SchemaRegistry registry) {
        return new AvroRebuilder(registry);
    }
}

package io.tierlog.registry;

import java.util.List;
import java.util.Objects;

/**
 * A schema as the registry stores it under its global id. Ids are assigned once, never reused (not
 * even after a hard delete), and the same canonical schema (with the same references) has one id in
 * every subject. Immutable, so thread-safe.
 *
 * @param id the global id, {@code >= 1}
 * @param type its format
 * @param text the schema text as registered
 * @param references its references
 */
public record RegisteredSchema(
        int id, SchemaType type, String text, List<SchemaReference> references) {
    public RegisteredSchema {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(text, "text");
        references = List.copyOf(references);
        if (id < 1) {
            throw new IllegalArgumentException("schema id must be >= 1, got " + id);
        }
    }
}

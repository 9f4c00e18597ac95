package io.tierlog.registry;

import java.util.Objects;

/**
 * A version of a subject with its schema: what {@code GET /subjects/{s}/versions/{v}}, a lookup and
 * a registration answer. Immutable, so thread-safe.
 */
public record SubjectSchema(SubjectVersion version, RegisteredSchema schema) {
    public SubjectSchema {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(schema, "schema");
    }

    public String subject() {
        return version.subject();
    }

    public int id() {
        return schema.id();
    }
}

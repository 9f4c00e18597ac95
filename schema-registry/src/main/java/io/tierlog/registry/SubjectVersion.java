package io.tierlog.registry;

import java.util.Map;
import java.util.Objects;

/**
 * One version of a subject. {@code fieldIds} maps each field path of the version's schema (as
 * {@code io.tierlog.registry.typed.TypedMapping#fieldPaths} names them, dotted) to its field id,
 * stable per subject across versions: a field keeps its id in later versions; a new field, or one
 * re-added after a version without it, gets a new one; ids are never reused within the subject.
 * Immutable, so thread-safe.
 *
 * @param subject the subject
 * @param version the version number, from 1, increasing; never reused after a delete
 * @param schemaId the global schema id
 * @param deleted true once soft-deleted (still readable with {@code deleted=true})
 * @param fieldIds field path -> field id (unmodifiable)
 */
public record SubjectVersion(
        String subject, int version, int schemaId, boolean deleted, Map<String, Integer> fieldIds) {
    public SubjectVersion {
        Objects.requireNonNull(subject, "subject");
        fieldIds = Map.copyOf(fieldIds);
    }
}

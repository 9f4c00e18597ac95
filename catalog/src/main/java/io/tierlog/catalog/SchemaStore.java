package io.tierlog.catalog;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The schema registry's rows in the catalog: schemas under global ids, the versions of subjects,
 * the field ids of each version, and registry settings. Plain records only: what a schema means
 * (its format, canonical form, compatibility) is the registry's business; this store only keeps
 * rows and the rules of numbering, so every process sharing the catalog numbers alike.
 *
 * <p>Numbering rules, enforced here in one transaction per call:
 *
 * <ul>
 *   <li>Schema ids are global, from 1; a schema row is never deleted (a hard delete removes
 *       versions, not the schema text, so values written with it stay decodable), so an id is never
 *       reused. One id per {@code fingerprint}: registering the same fingerprint again under any
 *       subject reuses its id.
 *   <li>Versions are per subject, from 1, and a subject's next version never goes down (not even
 *       after a hard delete of its latest version or of the whole subject).
 *   <li>Field ids are per subject, from 1, from a counter that never goes down: a path keeps the id
 *       it had in the subject's latest version (soft-deleted included), any other path gets the
 *       next one.
 * </ul>
 *
 * <p>"Not found" is an empty {@link Optional} or list. Failures are {@link CatalogException}s; a
 * registration that lost a race is a {@link SchemaConflictException} (nothing written; re-read and
 * retry). Thread-safe; owned by its catalog (closing the catalog closes it).
 */
public interface SchemaStore {

    /** The scope of registry-wide settings in {@link #config}. */
    String GLOBAL = "";

    /**
     * A reference from a schema to a version of a subject.
     *
     * @param name how the referring schema names it
     * @param schemaId the id of the referenced schema: what the reference resolves to even after
     *     the referenced version is deleted permanently (schema rows are never deleted)
     */
    record Reference(String name, String subject, int version, int schemaId) {
        public Reference {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(subject, "subject");
        }
    }

    /**
     * A schema row.
     *
     * @param type the format's name ({@code AVRO}, {@code JSON}, {@code PROTOBUF})
     * @param fingerprint what makes two registrations the same schema (the registry's hash of type,
     *     canonical form and references)
     */
    record Schema(
            int id, String type, String text, String fingerprint, List<Reference> references) {
        public Schema {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(fingerprint, "fingerprint");
            references = List.copyOf(references);
        }
    }

    /**
     * A version row of a subject with its field ids (path to id).
     *
     * @param deleted soft-deleted
     */
    record Version(
            String subject,
            int version,
            int schemaId,
            boolean deleted,
            Map<String, Integer> fieldIds) {
        public Version {
            Objects.requireNonNull(subject, "subject");
            fieldIds = Map.copyOf(fieldIds);
        }
    }

    /**
     * A new version to write.
     *
     * @param expectedNextVersion the subject's {@link #nextVersion} as the caller read it before
     *     deciding (its compatibility check ran against the versions then): if another process
     *     registered meanwhile, the call fails with {@link SchemaConflictException}
     * @param fieldPaths the field paths of the schema, in order (see the class comment for ids)
     */
    record Registration(
            String subject,
            int expectedNextVersion,
            String type,
            String text,
            String fingerprint,
            List<Reference> references,
            List<String> fieldPaths) {
        public Registration {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(fingerprint, "fingerprint");
            references = List.copyOf(references);
            fieldPaths = List.copyOf(fieldPaths);
        }
    }

    /** The schema with id {@code id}, if one was ever registered (hard-deleted ones included). */
    Optional<Schema> schema(int id);

    /** The schema with this fingerprint, if any. */
    Optional<Schema> schemaByFingerprint(String fingerprint);

    /** The highest schema id ever assigned, 0 when none. */
    int maxSchemaId();

    /** The versions of {@code subject} in version order, soft-deleted ones when asked. */
    List<Version> versions(String subject, boolean includeDeleted);

    /** One version of {@code subject} (soft-deleted included), if it is not hard-deleted. */
    Optional<Version> version(String subject, int version);

    /**
     * The version {@link #register} would write next for {@code subject}: 1 for a subject never
     * seen, else one more than the highest version ever written (hard-deleted ones count).
     */
    int nextVersion(String subject);

    /**
     * Subjects with at least one version that is not hard-deleted (or, without {@code
     * includeDeleted}, not deleted at all), sorted.
     */
    List<String> subjects(boolean includeDeleted);

    /** The versions (of any subject) whose schema is {@code schemaId}, by subject then version. */
    List<Version> versionsOf(int schemaId, boolean includeDeleted);

    /**
     * The ids of schemas that reference {@code subject} version {@code version} and are still the
     * schema of a version that is not hard-deleted, ascending.
     */
    List<Integer> referencedBy(String subject, int version);

    /**
     * Writes a new version (and the schema row, unless one with the fingerprint exists), assigning
     * the version, the schema id and the field ids, in one transaction.
     *
     * @return the version written
     * @throws SchemaConflictException another process changed the subject first, or took the id
     *     this call computed: nothing was written
     */
    Version register(Registration registration);

    /**
     * Marks a version soft-deleted. Idempotent.
     *
     * @return false when the version does not exist (or is hard-deleted)
     */
    boolean softDelete(String subject, int version);

    /**
     * Removes a version row and its field ids (the schema row stays). Idempotent.
     *
     * @return false when the version did not exist
     */
    boolean hardDelete(String subject, int version);

    /** The settings of {@code scope} (a subject, or {@link #GLOBAL}); empty map when none. */
    Map<String, String> config(String scope);

    /** Sets (adds or replaces) settings of {@code scope}, leaving the others as they are. */
    void putConfig(String scope, Map<String, String> settings);

    /**
     * Removes the named settings of {@code scope}.
     *
     * @return the settings removed (those that existed)
     */
    Map<String, String> deleteConfig(String scope, Set<String> keys);

    /**
     * A subject's counters: the version and the field id the next registration under it takes. The
     * row outlives every version of the subject (a hard-deleted subject keeps numbering).
     */
    record Counters(String subject, int nextVersion, int nextFieldId) {
        public Counters {
            Objects.requireNonNull(subject, "subject");
        }
    }

    /**
     * Every row of the store: what a copy kept elsewhere must hold to give the same answers and
     * number on alike ({@link #importSnapshot}).
     *
     * @param configs settings per scope ({@link #GLOBAL} or a subject); scopes without settings are
     *     absent
     */
    record Snapshot(
            List<Schema> schemas,
            List<Version> versions,
            List<Counters> counters,
            Map<String, Map<String, String>> configs) {
        public Snapshot {
            schemas = List.copyOf(schemas);
            versions = List.copyOf(versions);
            counters = List.copyOf(counters);
            Map<String, Map<String, String>> copy = new java.util.TreeMap<>();
            configs.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
            configs = java.util.Collections.unmodifiableMap(copy);
        }
    }

    /**
     * All rows, read in one transaction (a consistent view): schemas by id, versions by subject
     * then version, counters by subject.
     */
    default Snapshot snapshot() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot take a snapshot");
    }

    /**
     * Writes rows kept elsewhere (a catalog rebuilt from the bucket's copy) with their exact ids,
     * versions and field ids, in one transaction. Rows already present are kept; a schema id
     * present with another fingerprint, or a fingerprint present under another id, fails the whole
     * call. A subject's counters become the highest of those stored, those imported and one above
     * every imported version and field id, so numbering continues above everything ever handed out.
     * Settings imported replace those stored under the same key. Listeners are told once.
     *
     * @throws CatalogException on a conflict or a failure (nothing written)
     */
    default void importSnapshot(Snapshot snapshot) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot import");
    }

    /**
     * Runs {@code listener} after each committed change made through this store (register, deletes,
     * settings, import), on the changing thread before the call returns, so a listener that copies
     * the registry elsewhere has copied it before the change is acknowledged. A listener must not
     * throw (what it throws is dropped) and should be quick. Changes made by other processes on the
     * same catalog are not seen. The default store takes no listeners.
     */
    default void addChangeListener(Runnable listener) {}
}

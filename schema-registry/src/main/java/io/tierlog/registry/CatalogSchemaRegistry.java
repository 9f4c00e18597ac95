package io.tierlog.registry;

import com.github.benmanes.caffeine.cache.Ticker;
import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.SchemaStore;
import io.tierlog.registry.format.ReferenceResolver;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The schema registry stored in the catalog ({@link Catalog#schemas()}): every process that opens
 * one over the same catalog (servers, offload daemons) sees the same schemas, ids and versions, and
 * numbers new ones without clashing (the catalog's transactions decide; see {@link SchemaStore}).
 * Besides the {@link SchemaRegistry} view the rest of tierlog uses, it offers the whole service the
 * Confluent REST API ({@code io.tierlog.registry.http}) serves: registration with compatibility
 * checks, lookups, versions, soft and permanent deletes, references, settings and modes. Failures
 * are {@link SchemaRegistryException}s with Confluent's codes (a catalog failure is 50001).
 *
 * <p>Caches (see {@link RegistryCaches}): schemas by id and parsed schemas forever (immutable); the
 * ids a subject holds for 30 s (1 s for an answer "not there"). The catalog is not owned: {@link
 * #close()} only refuses further calls. Thread-safe.
 */
public final class CatalogSchemaRegistry implements SchemaRegistry {
    private final SchemaStore store;
    private final Formats formats;
    private final RegistryCaches caches;
    private final RegistrySettings settings;
    private final Registrations registrations;
    private final Deletions deletions;
    private final AtomicBoolean closed = new AtomicBoolean();

    CatalogSchemaRegistry(SchemaStore store, Formats formats, Ticker ticker) {
        this.store = new StoreErrors(store);
        this.formats = formats;
        this.caches = new RegistryCaches(ticker);
        this.settings = new RegistrySettings(this.store);
        this.registrations = new Registrations(this, this.store, settings, formats);
        this.deletions = new Deletions(this, this.store, settings);
    }

    /** A registry over {@code catalog}'s schema tables; the caller keeps owning the catalog. */
    public static CatalogSchemaRegistry open(Catalog catalog) {
        return new CatalogSchemaRegistry(
                catalog.schemas(), Formats.STANDARD, Ticker.systemTicker());
    }

    // ------------------------------------------------------------ SchemaRegistry

    @Override
    public Optional<RegisteredSchema> schema(int id) {
        return entry(id).map(RegistryCaches.Entry::schema);
    }

    /** The cached row of schema {@code id}, read from the catalog on a miss. */
    Optional<RegistryCaches.Entry> entry(int id) {
        open();
        Optional<RegistryCaches.Entry> cached = caches.schema(id);
        if (cached.isPresent() || id < 1 || caches.knownUnknown(id)) {
            return cached;
        }
        Optional<SchemaStore.Schema> row = store.schema(id);
        if (row.isEmpty()) {
            caches.putUnknown(id);
            return Optional.empty();
        }
        java.util.Map<SchemaReference, Integer> refIds = new java.util.HashMap<>();
        for (SchemaStore.Reference r : row.get().references()) {
            refIds.put(new SchemaReference(r.name(), r.subject(), r.version()), r.schemaId());
        }
        RegistryCaches.Entry e =
                new RegistryCaches.Entry(
                        fromStore(row.get()), row.get().fingerprint(), Map.copyOf(refIds));
        caches.putSchema(e);
        return Optional.of(e);
    }

    @Override
    public Optional<ParsedSchema> parsed(int id) {
        Optional<ParsedSchema> cached = caches.parsed(id);
        if (cached.isPresent()) {
            return cached;
        }
        Optional<RegistryCaches.Entry> e = entry(id);
        if (e.isEmpty()) {
            return Optional.empty();
        }
        RegisteredSchema r = e.get().schema();
        // As registered: normalization, if asked for, is already in the stored text.
        ParsedSchema p =
                formats.parse(
                        r.type(),
                        r.text(),
                        r.references(),
                        storedResolver(e.get().referenceIds()),
                        false);
        caches.putParsed(id, p);
        return Optional.of(p);
    }

    @Override
    public boolean registeredUnder(String subject, int id) {
        Optional<RegistryCaches.SubjectIds> cached = caches.subjectIds(subject);
        if (cached.isPresent() && cached.get().ids().contains(id)) {
            return true;
        }
        if (cached.isPresent() && caches.fresh(cached.get())) {
            return false;
        }
        return loadSubjectIds(subject).contains(id);
    }

    private Set<Integer> loadSubjectIds(String subject) {
        open();
        Set<Integer> ids = new HashSet<>();
        for (SchemaStore.Version v : store.versions(subject, true)) {
            ids.add(v.schemaId());
        }
        caches.putSubjectIds(subject, ids);
        return ids;
    }

    @Override
    public List<SubjectVersion> versions(String subject, boolean includeDeleted) {
        open();
        return store.versions(subject, includeDeleted).stream()
                .map(CatalogSchemaRegistry::fromStore)
                .toList();
    }

    @Override
    public Optional<RegisteredSchema> cachedSchema(int id) {
        return caches.schema(id).map(RegistryCaches.Entry::schema);
    }

    @Override
    public Optional<Boolean> cachedRegisteredUnder(String subject, int id) {
        Optional<RegistryCaches.SubjectIds> cached = caches.subjectIds(subject);
        if (cached.isEmpty()) {
            return Optional.empty();
        }
        if (cached.get().ids().contains(id)) {
            return Optional.of(true);
        }
        return caches.fresh(cached.get()) ? Optional.of(false) : Optional.empty();
    }

    /** Refuses further calls. Idempotent; the catalog stays open (its owner closes it). */
    @Override
    public void close() {
        closed.set(true);
    }

    // ------------------------------------------------------------ the service

    /**
     * Registers {@code text} under {@code subject}, or returns the version already holding it (the
     * same id in every subject).
     *
     * @param normalize as Confluent's {@code normalize=true} (also when the subject's or the
     *     registry's config says so)
     * @throws SchemaRegistryException 409 incompatible (naming the broken rules), 42201 invalid
     *     schema or reference, 42205 read-only, 42208 invalid subject, 50001 catalog failure
     */
    public SubjectSchema register(
            String subject,
            SchemaType type,
            String text,
            List<SchemaReference> references,
            boolean normalize) {
        open();
        return registrations.register(subject, type, text, references, normalize);
    }

    /**
     * The version of {@code subject} holding this schema ({@code POST /subjects/{subject}}).
     *
     * @throws SchemaRegistryException 40401 unknown subject, 40403 not under it, 42201 invalid
     */
    public SubjectSchema lookup(
            String subject,
            SchemaType type,
            String text,
            List<SchemaReference> references,
            boolean normalize,
            boolean includeDeleted) {
        open();
        return registrations.lookup(subject, type, text, references, normalize, includeDeleted);
    }

    /**
     * The rules {@code text} breaks against version {@code version} of {@code subject} ("latest" or
     * a number), or, when {@code version} is null, against the versions the subject's level names;
     * empty when it is compatible.
     *
     * @throws SchemaRegistryException 40401/40402 when the version does not exist, 42201 invalid
     */
    public List<String> testCompatibility(
            String subject,
            String version,
            SchemaType type,
            String text,
            List<SchemaReference> references,
            boolean normalize) {
        open();
        return registrations.test(subject, version, type, text, references, normalize);
    }

    /** Subjects starting with {@code prefix} (empty: all), sorted. */
    public List<String> subjects(String prefix, boolean includeDeleted) {
        open();
        return store.subjects(includeDeleted).stream()
                .filter(s -> prefix == null || s.startsWith(prefix))
                .toList();
    }

    /**
     * The version numbers of {@code subject}.
     *
     * @throws SchemaRegistryException 40401 when it has none
     */
    public List<Integer> versionNumbers(String subject, boolean includeDeleted) {
        List<SubjectVersion> vs = versions(subject, includeDeleted);
        if (vs.isEmpty()) {
            throw Subjects.notFound(subject);
        }
        return vs.stream().map(SubjectVersion::version).toList();
    }

    /**
     * Version {@code spec} ("latest", -1 or a number) of {@code subject}; soft-deleted versions
     * only with {@code includeDeleted}.
     *
     * @throws SchemaRegistryException 40401 unknown subject, 40402 unknown version, 42202 invalid
     *     spec
     */
    public SubjectSchema version(String subject, String spec, boolean includeDeleted) {
        open();
        int number = Subjects.version(spec);
        List<SchemaStore.Version> vs = store.versions(subject, includeDeleted);
        if (vs.isEmpty()) {
            throw Subjects.notFound(subject);
        }
        if (number == Subjects.LATEST_NUMBER) {
            return subjectSchema(vs.get(vs.size() - 1));
        }
        return vs.stream()
                .filter(v -> v.version() == number)
                .findFirst()
                .map(this::subjectSchema)
                .orElseThrow(() -> Subjects.versionNotFound(subject, spec));
    }

    /**
     * Schema {@code id} as the REST API shows it: absent (40403) once no version of any subject
     * holds it (after permanent deletes), although the catalog keeps its text for rebuilding.
     */
    public RegisteredSchema schemaById(int id) {
        Optional<RegisteredSchema> s = schema(id);
        if (s.isEmpty() || store.versionsOf(id, true).isEmpty()) {
            throw schemaNotFound(id);
        }
        return s.get();
    }

    /**
     * The versions holding schema {@code id}, by subject then version.
     *
     * @throws SchemaRegistryException 40403 when none does
     */
    public List<SubjectVersion> versionsOfSchema(int id, boolean includeDeleted) {
        open();
        List<SchemaStore.Version> vs = store.versionsOf(id, includeDeleted);
        if (vs.isEmpty() && store.versionsOf(id, true).isEmpty()) {
            throw schemaNotFound(id);
        }
        return vs.stream().map(CatalogSchemaRegistry::fromStore).toList();
    }

    /** The ids of schemas referencing version {@code spec} of {@code subject}. */
    public List<Integer> referencedBy(String subject, String spec) {
        SubjectSchema v = version(subject, spec, true);
        return store.referencedBy(subject, v.version().version());
    }

    /** The highest id ever assigned (Confluent's {@code fetchMaxId}). */
    public int maxSchemaId() {
        open();
        return store.maxSchemaId();
    }

    /**
     * @return the version numbers deleted (see {@link Deletions})
     */
    public List<Integer> deleteSubject(String subject, boolean permanent) {
        open();
        return deletions.deleteSubject(subject, permanent);
    }

    /**
     * @return the version number deleted (see {@link Deletions})
     */
    public int deleteVersion(String subject, String spec, boolean permanent) {
        open();
        return deletions.deleteVersion(subject, spec, permanent);
    }

    /** The formats served, as Confluent lists them. */
    public List<SchemaType> schemaTypes() {
        return List.of(SchemaType.JSON, SchemaType.PROTOBUF, SchemaType.AVRO);
    }

    /** The settings of {@code subject} (null: the registry's), if configured. */
    public Optional<SubjectConfig> config(String subject) {
        open();
        return settings.config(subject);
    }

    /** The settings that apply to {@code subject} (null: the registry's, defaults included). */
    public SubjectConfig effectiveConfig(String subject) {
        open();
        return settings.effective(subject);
    }

    /**
     * @throws SchemaRegistryException 42203 for an unknown level, 42208 invalid subject
     */
    public SubjectConfig putConfig(String subject, String level, Boolean normalize) {
        open();
        if (subject != null) {
            Subjects.validate(subject);
        }
        return settings.put(subject, level, normalize);
    }

    /**
     * @return the settings before; 40408 when a subject had none
     */
    public SubjectConfig deleteConfig(String subject) {
        open();
        return settings.delete(subject);
    }

    /** The mode of {@code subject} (null: the registry's), if set. */
    public Optional<RegistryMode> mode(String subject) {
        open();
        return settings.mode(subject);
    }

    /** The mode that applies to {@code subject} (null: the registry's). */
    public RegistryMode effectiveMode(String subject) {
        open();
        return settings.effectiveMode(subject);
    }

    /**
     * @throws SchemaRegistryException 42204 for an unknown or unsupported mode
     */
    public RegistryMode putMode(String subject, String mode) {
        open();
        if (subject != null) {
            Subjects.validate(subject);
        }
        return settings.putMode(subject, mode);
    }

    /**
     * @return the mode before; 40409 when a subject had none
     */
    public RegistryMode deleteMode(String subject) {
        open();
        return settings.deleteMode(subject);
    }

    // ------------------------------------------------------------ internals

    /**
     * Resolves references whose ids are known ({@code roots}: a stored schema's, or a candidate's
     * just pinned), and those of the schemas they reference, to the ids they resolved to at
     * registration, so a schema parses for ever, also after a referenced version was deleted
     * permanently (its schema row stays); others by subject and version.
     */
    ReferenceResolver storedResolver(Map<SchemaReference, Integer> roots) {
        Map<SchemaReference, Integer> known = new ConcurrentHashMap<>(roots);
        return ref -> {
            Integer id = known.get(ref);
            if (id == null) {
                return registrations.resolver().resolve(ref);
            }
            RegistryCaches.Entry e =
                    entry(id)
                            .orElseThrow(
                                    () ->
                                            new SchemaRegistryException(
                                                    ErrorCodes.STORE_ERROR,
                                                    "reference "
                                                            + ref
                                                            + " names schema "
                                                            + id
                                                            + ", which the catalog does not hold"));
            known.putAll(e.referenceIds());
            return e.schema();
        };
    }

    /** This process wrote a version of {@code subject} with schema {@code id}. */
    void registered(String subject, int id) {
        Optional<RegistryCaches.SubjectIds> cached = caches.subjectIds(subject);
        if (cached.isPresent()) {
            Set<Integer> ids = new HashSet<>(cached.get().ids());
            ids.add(id);
            caches.putSubjectIds(subject, ids);
        }
    }

    /** This process deleted versions of {@code subject}. */
    void changed(String subject) {
        caches.invalidateSubject(subject);
    }

    SubjectSchema subjectSchema(SchemaStore.Version v) {
        RegisteredSchema s =
                schema(v.schemaId())
                        .orElseThrow(
                                () ->
                                        new SchemaRegistryException(
                                                ErrorCodes.STORE_ERROR,
                                                "version "
                                                        + v.version()
                                                        + " of "
                                                        + v.subject()
                                                        + " names schema "
                                                        + v.schemaId()
                                                        + ", which the catalog does not hold"));
        return new SubjectSchema(fromStore(v), s);
    }

    private void open() {
        if (closed.get()) {
            throw new SchemaRegistryException(ErrorCodes.STORE_ERROR, "the registry is closed");
        }
    }

    private static SchemaRegistryException schemaNotFound(int id) {
        return new SchemaRegistryException(
                ErrorCodes.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
    }

    static SubjectVersion fromStore(SchemaStore.Version v) {
        return new SubjectVersion(
                v.subject(), v.version(), v.schemaId(), v.deleted(), v.fieldIds());
    }

    static RegisteredSchema fromStore(SchemaStore.Schema s) {
        List<SchemaReference> refs = new ArrayList<>(s.references().size());
        for (SchemaStore.Reference r : s.references()) {
            refs.add(new SchemaReference(r.name(), r.subject(), r.version()));
        }
        return new RegisteredSchema(s.id(), SchemaType.of(s.type()), s.text(), refs);
    }

    static SchemaStore.Reference toStore(SchemaReference r, int schemaId) {
        return new SchemaStore.Reference(r.name(), r.subject(), r.version(), schemaId);
    }
}

package io.tierlog.registry;

import io.tierlog.catalog.SchemaConflictException;
import io.tierlog.catalog.SchemaStore;
import io.tierlog.registry.format.ReferenceResolver;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registration, lookup and compatibility tests of {@link CatalogSchemaRegistry}: parse the
 * candidate (references resolved through the catalog), find it among the subject's versions by
 * fingerprint, check it against the versions the level names, then write it. The write is
 * conditional on the subject's next version being the one read before the check (see {@link
 * SchemaStore.Registration}), so a registration racing with another process's is decided again
 * against what that one wrote, never written unchecked. Thread-safe (stateless besides its
 * collaborators).
 */
final class Registrations {
    private static final Logger LOG = LoggerFactory.getLogger(Registrations.class);

    /** Attempts before a registration that keeps losing races gives up (with 50001). */
    static final int ATTEMPTS = 20;

    private final CatalogSchemaRegistry registry;
    private final SchemaStore store;
    private final RegistrySettings settings;
    private final Formats formats;

    Registrations(
            CatalogSchemaRegistry registry,
            SchemaStore store,
            RegistrySettings settings,
            Formats formats) {
        this.registry = registry;
        this.store = store;
        this.settings = settings;
        this.formats = formats;
    }

    /**
     * A parsed candidate with the references as stored (versions pinned, and the ids they name) and
     * its fingerprint.
     */
    record Candidate(
            ParsedSchema parsed,
            List<SchemaReference> references,
            List<Integer> referenceIds,
            String fingerprint) {
        List<SchemaStore.Reference> stored() {
            List<SchemaStore.Reference> out = new ArrayList<>(references.size());
            for (int i = 0; i < references.size(); i++) {
                out.add(CatalogSchemaRegistry.toStore(references.get(i), referenceIds.get(i)));
            }
            return out;
        }
    }

    SubjectSchema register(
            String subject,
            SchemaType type,
            String text,
            List<SchemaReference> references,
            boolean normalize) {
        Subjects.validate(subject);
        settings.checkWritable(subject);
        SubjectConfig config = settings.effective(subject);
        boolean norm = normalize || config.normalize().orElse(false);
        for (int attempt = 1; ; attempt++) {
            int next = store.nextVersion(subject);
            Candidate c = candidate(type, text, references, norm);
            List<SchemaStore.Version> live = store.versions(subject, false);
            Optional<SubjectSchema> same = find(c, live);
            if (same.isPresent()) {
                return same.get();
            }
            checkCompatible(subject, c.parsed(), live, config.compatibility());
            List<String> paths = formats.fieldPaths(c.parsed());
            try {
                SchemaStore.Version v =
                        store.register(
                                new SchemaStore.Registration(
                                        subject,
                                        next,
                                        type.name(),
                                        c.parsed().text(),
                                        c.fingerprint(),
                                        c.stored(),
                                        paths));
                registry.registered(subject, v.schemaId());
                return registry.subjectSchema(v);
            } catch (SchemaConflictException e) {
                if (attempt >= ATTEMPTS) {
                    throw new SchemaRegistryException(
                            ErrorCodes.STORE_ERROR,
                            "Error while registering under subject '"
                                    + subject
                                    + "': lost "
                                    + attempt
                                    + " races with concurrent registrations",
                            e);
                }
                LOG.debug(
                        "registration under {} raced ({}); deciding again",
                        subject,
                        e.getMessage());
            }
        }
    }

    /**
     * The version of {@code subject} holding this schema.
     *
     * @throws SchemaRegistryException 40401 when the subject has no versions, 40403 when none holds
     *     the schema, 42201 when it does not parse
     */
    SubjectSchema lookup(
            String subject,
            SchemaType type,
            String text,
            List<SchemaReference> references,
            boolean normalize,
            boolean includeDeleted) {
        List<SchemaStore.Version> versions = store.versions(subject, includeDeleted);
        if (versions.isEmpty()) {
            throw Subjects.notFound(subject);
        }
        boolean norm = normalize || settings.effective(subject).normalize().orElse(false);
        Candidate c = candidate(type, text, references, norm);
        return find(c, versions)
                .orElseThrow(
                        () ->
                                new SchemaRegistryException(
                                        ErrorCodes.SCHEMA_NOT_FOUND, "Schema not found"));
    }

    /**
     * The broken rules of {@code text} against the version of {@code subject} that {@code version}
     * names, or (null) the versions its level names; empty when compatible.
     */
    List<String> test(
            String subject,
            String version,
            SchemaType type,
            String text,
            List<SchemaReference> references,
            boolean normalize) {
        SubjectConfig config = settings.effective(subject);
        Candidate c =
                candidate(type, text, references, normalize || config.normalize().orElse(false));
        List<SchemaStore.Version> live = store.versions(subject, false);
        if (version == null) {
            return problems(c.parsed(), live, config.compatibility());
        }
        SubjectSchema against = registry.version(subject, version, false);
        if (config.compatibility() == CompatibilityLevel.NONE) {
            return List.of();
        }
        return formats.check(
                c.parsed(),
                List.of(registry.parsed(against.id()).orElseThrow()),
                config.compatibility());
    }

    private void checkCompatible(
            String subject,
            ParsedSchema candidate,
            List<SchemaStore.Version> live,
            CompatibilityLevel level) {
        List<String> problems = problems(candidate, live, level);
        if (!problems.isEmpty()) {
            throw new SchemaRegistryException(
                    ErrorCodes.INCOMPATIBLE_SCHEMA,
                    "Schema being registered is incompatible with an earlier schema for subject \""
                            + subject
                            + "\" ("
                            + level
                            + "), details: "
                            + problems);
        }
    }

    private List<String> problems(
            ParsedSchema candidate, List<SchemaStore.Version> live, CompatibilityLevel level) {
        if (level == CompatibilityLevel.NONE || live.isEmpty()) {
            return List.of();
        }
        List<SchemaStore.Version> against =
                level.transitive() ? live : List.of(live.get(live.size() - 1));
        List<ParsedSchema> existing = new ArrayList<>(against.size());
        for (SchemaStore.Version v : against) {
            existing.add(registry.parsed(v.schemaId()).orElseThrow());
        }
        return formats.check(candidate, existing, level);
    }

    private Optional<SubjectSchema> find(Candidate c, List<SchemaStore.Version> versions) {
        for (SchemaStore.Version v : versions) {
            Optional<RegistryCaches.Entry> e = registry.entry(v.schemaId());
            if (e.isPresent() && e.get().fingerprint().equals(c.fingerprint())) {
                return Optional.of(registry.subjectSchema(v));
            }
        }
        return Optional.empty();
    }

    /**
     * Parses {@code text} with its references pinned to concrete versions ({@code -1}, "latest",
     * becomes the subject's latest version now).
     *
     * @throws SchemaRegistryException 42201 for an invalid schema or a reference to nothing
     */
    Candidate candidate(
            SchemaType type, String text, List<SchemaReference> references, boolean normalize) {
        if (text == null || text.isBlank()) {
            throw new SchemaRegistryException(ErrorCodes.INVALID_SCHEMA, "Empty schema");
        }
        List<SchemaReference> pinned = new ArrayList<>(references.size());
        List<Integer> ids = new ArrayList<>(references.size());
        ReferenceResolver resolver = resolver();
        for (SchemaReference r : references) {
            SchemaReference p = pin(r);
            pinned.add(p);
            ids.add(resolver.resolve(p).id());
        }
        ParsedSchema parsed;
        try {
            java.util.Map<SchemaReference, Integer> roots = new java.util.HashMap<>();
            for (int i = 0; i < pinned.size(); i++) {
                roots.put(pinned.get(i), ids.get(i));
            }
            parsed = formats.parse(type, text, pinned, registry.storedResolver(roots), normalize);
        } catch (SchemaRegistryException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SchemaRegistryException(
                    ErrorCodes.INVALID_SCHEMA, "Invalid schema: " + e.getMessage(), e);
        }
        return new Candidate(parsed, pinned, List.copyOf(ids), fingerprint(parsed, pinned));
    }

    private SchemaReference pin(SchemaReference r) {
        if (r.version() != -1) {
            return r;
        }
        List<SchemaStore.Version> live = store.versions(r.subject(), false);
        if (live.isEmpty()) {
            throw new SchemaRegistryException(
                    ErrorCodes.INVALID_SCHEMA,
                    "Invalid schema: reference '"
                            + r.name()
                            + "' names subject '"
                            + r.subject()
                            + "', which has no versions");
        }
        return new SchemaReference(r.name(), r.subject(), live.get(live.size() - 1).version());
    }

    /** Resolves references through the catalog (soft-deleted versions included). */
    ReferenceResolver resolver() {
        return ref -> {
            Optional<SchemaStore.Version> v = store.version(ref.subject(), ref.version());
            if (v.isEmpty()) {
                throw new SchemaRegistryException(
                        ErrorCodes.INVALID_SCHEMA,
                        "Invalid schema: reference '"
                                + ref.name()
                                + "' names version "
                                + ref.version()
                                + " of subject '"
                                + ref.subject()
                                + "', which does not exist");
            }
            return registry.schema(v.get().schemaId()).orElseThrow();
        };
    }

    /**
     * What makes two registrations one schema: SHA-256 over the type, the canonical form and the
     * references (name, subject, version), each length-prefixed so no two inputs collide by
     * concatenation.
     */
    static String fingerprint(ParsedSchema parsed, List<SchemaReference> references) {
        MessageDigest d;
        try {
            d = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
        add(d, parsed.type().name());
        add(d, parsed.canonical());
        for (SchemaReference r : references) {
            add(d, r.name());
            add(d, r.subject());
            add(d, Integer.toString(r.version()));
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static void add(MessageDigest d, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        d.update((byte) (b.length >>> 24));
        d.update((byte) (b.length >>> 16));
        d.update((byte) (b.length >>> 8));
        d.update((byte) b.length);
        d.update(b);
    }
}

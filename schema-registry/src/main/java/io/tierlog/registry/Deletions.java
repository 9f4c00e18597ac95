package io.tierlog.registry;

import io.tierlog.catalog.SchemaStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Deleting versions and subjects as Confluent's registry does: a soft delete first (the version
 * stays readable with {@code deleted=true} and its records stay valid for the produce guards),
 * then, only after it, a permanent one ({@code permanent=true}) that removes the version; a version
 * another schema references is never deleted (42206). The schema text itself stays in the catalog
 * under its id (see {@link SchemaStore}), so values stored once can always be rebuilt. Deleting a
 * subject is one catalog transaction per version: an interruption leaves some versions deleted and
 * the rest not, and repeating the call finishes it. Thread-safe.
 */
final class Deletions {
    private final CatalogSchemaRegistry registry;
    private final SchemaStore store;
    private final RegistrySettings settings;

    Deletions(CatalogSchemaRegistry registry, SchemaStore store, RegistrySettings settings) {
        this.registry = registry;
        this.store = store;
        this.settings = settings;
    }

    /**
     * @return the version numbers deleted
     */
    List<Integer> deleteSubject(String subject, boolean permanent) {
        settings.checkWritable(subject);
        List<SchemaStore.Version> all = store.versions(subject, true);
        if (all.isEmpty()) {
            throw Subjects.notFound(subject);
        }
        List<Integer> out = new ArrayList<>();
        try {
            if (!permanent) {
                List<SchemaStore.Version> live = all.stream().filter(v -> !v.deleted()).toList();
                if (live.isEmpty()) {
                    throw new SchemaRegistryException(
                            ErrorCodes.SUBJECT_SOFT_DELETED,
                            "Subject '"
                                    + subject
                                    + "' was soft deleted. Set permanent=true to delete"
                                    + " permanently");
                }
                for (SchemaStore.Version v : live) {
                    checkNotReferenced(v);
                }
                for (SchemaStore.Version v : live) {
                    store.softDelete(subject, v.version());
                    out.add(v.version());
                }
                return out;
            }
            if (all.stream().anyMatch(v -> !v.deleted())) {
                throw new SchemaRegistryException(
                        ErrorCodes.SUBJECT_NOT_SOFT_DELETED,
                        "Subject '"
                                + subject
                                + "' was not deleted first before being permanently deleted");
            }
            for (SchemaStore.Version v : all) {
                checkNotReferenced(v);
            }
            for (SchemaStore.Version v : all) {
                store.hardDelete(subject, v.version());
                out.add(v.version());
            }
            settings.forget(subject);
            return out;
        } finally {
            registry.changed(subject);
        }
    }

    /**
     * @return the version number deleted
     */
    int deleteVersion(String subject, String spec, boolean permanent) {
        settings.checkWritable(subject);
        int number = Subjects.version(spec);
        List<SchemaStore.Version> all = store.versions(subject, true);
        if (all.isEmpty()) {
            throw Subjects.notFound(subject);
        }
        SchemaStore.Version v;
        if (number == Subjects.LATEST_NUMBER) {
            List<SchemaStore.Version> candidates =
                    permanent ? all : all.stream().filter(x -> !x.deleted()).toList();
            if (candidates.isEmpty()) {
                throw Subjects.versionNotFound(subject, spec);
            }
            v = candidates.get(candidates.size() - 1);
        } else {
            v =
                    all.stream()
                            .filter(x -> x.version() == number)
                            .findFirst()
                            .orElseThrow(() -> Subjects.versionNotFound(subject, spec));
        }
        try {
            if (!permanent && v.deleted()) {
                throw new SchemaRegistryException(
                        ErrorCodes.SCHEMA_VERSION_SOFT_DELETED,
                        "Subject '"
                                + subject
                                + "' Version "
                                + v.version()
                                + " was soft deleted. Set permanent=true to delete permanently");
            }
            if (permanent && !v.deleted()) {
                throw new SchemaRegistryException(
                        ErrorCodes.SCHEMA_VERSION_NOT_SOFT_DELETED,
                        "Subject '"
                                + subject
                                + "' Version "
                                + v.version()
                                + " was not deleted first before being permanently deleted");
            }
            checkNotReferenced(v);
            if (permanent) {
                store.hardDelete(subject, v.version());
            } else {
                store.softDelete(subject, v.version());
            }
            return v.version();
        } finally {
            registry.changed(subject);
        }
    }

    private void checkNotReferenced(SchemaStore.Version v) {
        List<Integer> by = store.referencedBy(v.subject(), v.version());
        if (!by.isEmpty()) {
            throw new SchemaRegistryException(
                    ErrorCodes.REFERENCE_EXISTS,
                    "One or more references exist to the schema {subject="
                            + v.subject()
                            + ", version="
                            + v.version()
                            + "}: schema ids "
                            + by);
        }
    }
}

package io.tierlog.registry;

import io.tierlog.catalog.CatalogException;
import io.tierlog.catalog.SchemaConflictException;
import io.tierlog.catalog.SchemaStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A {@link SchemaStore} whose failures are the registry's: a {@link CatalogException} becomes a
 * {@link SchemaRegistryException} 50001 (store error) naming the operation, except a {@link
 * SchemaConflictException}, which the registration loop handles. Thread-safe as its delegate.
 */
final class StoreErrors implements SchemaStore {
    private final SchemaStore store;

    StoreErrors(SchemaStore store) {
        this.store = store;
    }

    private static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (SchemaConflictException e) {
            throw e;
        } catch (CatalogException e) {
            throw new SchemaRegistryException(
                    ErrorCodes.STORE_ERROR,
                    "Error while " + what + " in the catalog: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public Optional<Schema> schema(int id) {
        return call("reading schema " + id, () -> store.schema(id));
    }

    @Override
    public Optional<Schema> schemaByFingerprint(String fingerprint) {
        return call("looking up a schema", () -> store.schemaByFingerprint(fingerprint));
    }

    @Override
    public int maxSchemaId() {
        return call("reading the highest schema id", store::maxSchemaId);
    }

    @Override
    public List<Version> versions(String subject, boolean includeDeleted) {
        return call(
                "reading the versions of " + subject,
                () -> store.versions(subject, includeDeleted));
    }

    @Override
    public Optional<Version> version(String subject, int version) {
        return call(
                "reading version " + version + " of " + subject,
                () -> store.version(subject, version));
    }

    @Override
    public int nextVersion(String subject) {
        return call("reading the next version of " + subject, () -> store.nextVersion(subject));
    }

    @Override
    public List<String> subjects(boolean includeDeleted) {
        return call("listing subjects", () -> store.subjects(includeDeleted));
    }

    @Override
    public List<Version> versionsOf(int schemaId, boolean includeDeleted) {
        return call(
                "reading the versions of schema " + schemaId,
                () -> store.versionsOf(schemaId, includeDeleted));
    }

    @Override
    public List<Integer> referencedBy(String subject, int version) {
        return call(
                "reading references to " + subject + " version " + version,
                () -> store.referencedBy(subject, version));
    }

    @Override
    public Version register(Registration registration) {
        return call(
                "registering a schema under " + registration.subject(),
                () -> store.register(registration));
    }

    @Override
    public boolean softDelete(String subject, int version) {
        return call(
                "deleting version " + version + " of " + subject,
                () -> store.softDelete(subject, version));
    }

    @Override
    public boolean hardDelete(String subject, int version) {
        return call(
                "deleting version " + version + " of " + subject,
                () -> store.hardDelete(subject, version));
    }

    @Override
    public Map<String, String> config(String scope) {
        return call("reading settings", () -> store.config(scope));
    }

    @Override
    public void putConfig(String scope, Map<String, String> settings) {
        call(
                "writing settings",
                () -> {
                    store.putConfig(scope, settings);
                    return null;
                });
    }

    @Override
    public Map<String, String> deleteConfig(String scope, Set<String> keys) {
        return call("deleting settings", () -> store.deleteConfig(scope, keys));
    }
}

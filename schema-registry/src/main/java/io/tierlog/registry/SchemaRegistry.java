package io.tierlog.registry;

import java.util.List;
import java.util.Optional;

/**
 * The schema registry, stored in the catalog, so that every server and offload daemon of one
 * catalog sees the same schemas and ids. This interface is what the rest of tierlog uses (produce
 * guards, typed columns at offload, rebuilding values at cold reads); the REST API serves the full
 * Confluent API over the implementation. Lookups of immutable facts (a schema by id, a version of a
 * subject) are cached; lookups may query the catalog, so they may block: a caller on an event loop
 * uses {@link #cachedSchema(int)} and {@link #cachedRegisteredUnder(String, int)} first.
 * Thread-safe.
 */
public interface SchemaRegistry extends AutoCloseable {

    /** The schema with global id {@code id}, if one was ever registered (soft-deleted included). */
    Optional<RegisteredSchema> schema(int id);

    /** The parsed form of schema {@code id} (cached), if the id exists. */
    Optional<ParsedSchema> parsed(int id);

    /**
     * True when schema {@code id} is a version of {@code subject} that is not hard-deleted
     * (soft-deleted versions count: records written with them stay valid).
     */
    boolean registeredUnder(String subject, int id);

    /**
     * The versions of {@code subject} in version order, soft-deleted included when {@code
     * includeDeleted}; empty when the subject has none.
     */
    List<SubjectVersion> versions(String subject, boolean includeDeleted);

    /**
     * From memory only, for threads that must not block: the schema if it is cached, else empty
     * (then ask {@link #schema(int)} where blocking is allowed).
     */
    Optional<RegisteredSchema> cachedSchema(int id);

    /**
     * From memory only: {@code Optional.of(true/false)} when known without the catalog, empty when
     * {@link #registeredUnder(String, int)} must be asked where blocking is allowed.
     */
    Optional<Boolean> cachedRegisteredUnder(String subject, int id);

    @Override
    void close();
}

package io.tierlog.registry.format;

import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaRegistryException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The schemas a schema's references name, resolved recursively (a reference may itself have
 * references) into dependency order: every schema comes after the schemas it references, and a
 * schema reached twice (two references to one subject version) appears once. Cycles and chains
 * deeper than {@link #MAX_DEPTH} are refused as invalid schemas, so a hostile reference graph
 * cannot recurse without end. Not thread-safe; one instance per parse.
 */
final class References {
    /** Deeper than any real schema graph; a guard, not a feature. */
    static final int MAX_DEPTH = 32;

    /** One resolved schema: where it is registered and what it is. */
    record Resolved(String subject, int version, RegisteredSchema schema) {
        /** Schemas are told apart by global id: one id is one canonical schema. */
        int key() {
            return schema.id();
        }
    }

    private final ReferenceResolver resolver;
    private final Map<Integer, Resolved> ordered = new LinkedHashMap<>();
    private final Set<Integer> inProgress = new HashSet<>();

    private References(ReferenceResolver resolver) {
        this.resolver = resolver;
    }

    /** The schemas {@code references} reach, in dependency order (leaves first). */
    static List<Resolved> resolveAll(List<SchemaReference> references, ReferenceResolver resolver) {
        if (references.isEmpty()) {
            return List.of();
        }
        if (resolver == null) {
            throw invalid("the schema has references but no resolver was given");
        }
        References walk = new References(resolver);
        for (SchemaReference ref : references) {
            walk.visit(ref, 1);
        }
        return List.copyOf(walk.ordered.values());
    }

    /** Resolves one reference (not recursively); its key is {@link Resolved#key()}. */
    static Resolved resolveOne(SchemaReference ref, ReferenceResolver resolver) {
        RegisteredSchema schema = resolver.resolve(ref);
        if (schema == null) {
            throw invalid(
                    "reference "
                            + ref.name()
                            + " names subject "
                            + ref.subject()
                            + " version "
                            + ref.version()
                            + ", which does not exist");
        }
        return new Resolved(ref.subject(), ref.version(), schema);
    }

    private void visit(SchemaReference ref, int depth) {
        if (depth > MAX_DEPTH) {
            throw invalid("references nest deeper than " + MAX_DEPTH + " (at " + ref.name() + ")");
        }
        Resolved resolved = resolveOne(ref, resolver);
        int key = resolved.key();
        if (ordered.containsKey(key)) {
            return;
        }
        if (!inProgress.add(key)) {
            throw invalid("references form a cycle through subject " + ref.subject());
        }
        for (SchemaReference inner : resolved.schema().references()) {
            visit(inner, depth + 1);
        }
        inProgress.remove(key);
        ordered.put(key, resolved);
    }

    static SchemaRegistryException invalid(String message) {
        return new SchemaRegistryException(42201, "Invalid schema: " + message);
    }

    static SchemaRegistryException invalid(String message, Throwable cause) {
        return new SchemaRegistryException(42201, "Invalid schema: " + message, cause);
    }
}

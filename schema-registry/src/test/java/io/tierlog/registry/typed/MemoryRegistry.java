package io.tierlog.registry.typed;

import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.SubjectVersion;
import io.tierlog.registry.format.SchemaFormats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An in-memory registry for the typer's unit tests, assigning field ids the way the registry does
 * (a path keeps its id while every version since has it; a new or re-added path gets the next id of
 * the subject). Schemas are parsed by the real {@link SchemaFormats}. Not thread-safe.
 */
final class MemoryRegistry implements SchemaRegistry {
    private final Map<Integer, RegisteredSchema> schemas = new HashMap<>();
    private final Map<Integer, ParsedSchema> parsed = new HashMap<>();
    private final Map<String, List<SubjectVersion>> subjects = new HashMap<>();
    private final Map<String, Integer> counters = new HashMap<>();
    private int nextId = 1;

    int register(String subject, SchemaType type, String text) {
        ParsedSchema p = SchemaFormats.parse(type, text, List.of(), r -> null, false);
        int id = nextId++;
        schemas.put(id, new RegisteredSchema(id, type, text, List.of()));
        parsed.put(id, p);
        List<SubjectVersion> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
        Map<String, Integer> previous =
                versions.isEmpty() ? Map.of() : versions.get(versions.size() - 1).fieldIds();
        Map<String, Integer> ids = new HashMap<>();
        for (String path : TypedMapping.fieldPaths(p)) {
            Integer old = previous.get(path);
            ids.put(path, old != null ? old : counters.merge(subject, 1, Integer::sum));
        }
        versions.add(new SubjectVersion(subject, versions.size() + 1, id, false, ids));
        return id;
    }

    @Override
    public Optional<RegisteredSchema> schema(int id) {
        return Optional.ofNullable(schemas.get(id));
    }

    @Override
    public Optional<ParsedSchema> parsed(int id) {
        return Optional.ofNullable(parsed.get(id));
    }

    @Override
    public boolean registeredUnder(String subject, int id) {
        return subjects.getOrDefault(subject, List.of()).stream().anyMatch(v -> v.schemaId() == id);
    }

    @Override
    public List<SubjectVersion> versions(String subject, boolean includeDeleted) {
        return List.copyOf(subjects.getOrDefault(subject, List.of()));
    }

    @Override
    public Optional<RegisteredSchema> cachedSchema(int id) {
        return schema(id);
    }

    @Override
    public Optional<Boolean> cachedRegisteredUnder(String subject, int id) {
        return Optional.of(registeredUnder(subject, id));
    }

    Set<String> subjects() {
        return new HashSet<>(subjects.keySet());
    }

    @Override
    public void close() {}
}

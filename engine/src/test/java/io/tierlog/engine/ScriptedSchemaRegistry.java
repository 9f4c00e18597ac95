package io.tierlog.engine;

import io.tierlog.registry.RegisteredSchema;
import io.tierlog.registry.SchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.SubjectVersion;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link SchemaRegistry} double for the guard's unit tests, with the knobs the real one does not
 * have: whether its memory already knows an answer ({@link #forget()}: a cold cache, which the
 * event-loop path must not fill by blocking), memory behind the catalog ({@link
 * #registerElsewhere}), a count of blocking lookups, and an outage ({@link #failing}). Memory is
 * filled by each blocking lookup, as a caching registry's is. The guard's end-to-end test runs
 * against the catalog-backed registry. Thread-safe.
 */
final class ScriptedSchemaRegistry implements SchemaRegistry {
    private final Map<Integer, RegisteredSchema> schemas = new ConcurrentHashMap<>();
    private final Map<String, Set<Integer>> subjects = new ConcurrentHashMap<>();
    private final Set<Integer> knownIds = ConcurrentHashMap.newKeySet();

    /** What memory believes of subject/id pairs: filled by lookups, possibly behind the truth. */
    private final Map<String, Boolean> knownPairs = new ConcurrentHashMap<>();

    final AtomicInteger blockingLookups = new AtomicInteger();
    volatile boolean failing;

    /** Registers schema {@code id} of {@code type} under {@code subject}, known from memory. */
    ScriptedSchemaRegistry register(String subject, int id, SchemaType type) {
        schemas.putIfAbsent(id, new RegisteredSchema(id, type, "{}", List.of()));
        subjects.computeIfAbsent(subject, s -> ConcurrentHashMap.newKeySet()).add(id);
        knownIds.add(id);
        knownPairs.put(subject + "/" + id, true);
        return this;
    }

    /**
     * Registers as another server of the catalog would: the catalog has it, this registry's memory
     * still believes {@code id} is not under {@code subject}.
     */
    void registerElsewhere(String subject, int id, SchemaType type) {
        schemas.putIfAbsent(id, new RegisteredSchema(id, type, "{}", List.of()));
        subjects.computeIfAbsent(subject, s -> ConcurrentHashMap.newKeySet()).add(id);
        knownIds.add(id);
        knownPairs.put(subject + "/" + id, false);
    }

    /** Empties the memory: every cached lookup answers empty until a blocking one fills it. */
    void forget() {
        knownIds.clear();
        knownPairs.clear();
    }

    @Override
    public Optional<RegisteredSchema> schema(int id) {
        blocking();
        knownIds.add(id);
        return Optional.ofNullable(schemas.get(id));
    }

    @Override
    public Optional<io.tierlog.registry.ParsedSchema> parsed(int id) {
        throw new UnsupportedOperationException("the guard never parses");
    }

    @Override
    public boolean registeredUnder(String subject, int id) {
        blocking();
        Boolean believed = knownPairs.get(subject + "/" + id);
        if (believed != null) {
            return believed; // a caching registry answers from memory while it is fresh
        }
        boolean under = subjects.getOrDefault(subject, Set.of()).contains(id);
        knownPairs.put(subject + "/" + id, under);
        return under;
    }

    @Override
    public List<SubjectVersion> versions(String subject, boolean includeDeleted) {
        blocking();
        List<SubjectVersion> out = new java.util.ArrayList<>();
        int version = 1;
        for (int id : new java.util.TreeSet<>(subjects.getOrDefault(subject, Set.of()))) {
            out.add(new SubjectVersion(subject, version++, id, false, Map.of()));
        }
        return out;
    }

    @Override
    public Optional<RegisteredSchema> cachedSchema(int id) {
        return knownIds.contains(id) ? Optional.ofNullable(schemas.get(id)) : Optional.empty();
    }

    @Override
    public Optional<Boolean> cachedRegisteredUnder(String subject, int id) {
        return Optional.ofNullable(knownPairs.get(subject + "/" + id));
    }

    private void blocking() {
        blockingLookups.incrementAndGet();
        if (failing) {
            throw new io.tierlog.registry.SchemaRegistryException(50001, "catalog unreachable");
        }
    }

    @Override
    public void close() {}
}

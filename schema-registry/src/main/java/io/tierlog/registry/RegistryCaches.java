package io.tierlog.registry;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The registry's memory of the catalog. Schemas by id and their parsed forms are immutable facts (a
 * schema row is never changed or deleted), kept until evicted by size. Which ids a subject holds
 * changes with registrations and deletes, so it is kept for {@link #SUBJECT_IDS_TTL}: long enough
 * for the produce guards to answer from memory, short enough that a hard delete made by another
 * process sharing the catalog is seen within it (this process's own changes invalidate at once). An
 * id or subject that the catalog did not know is remembered as unknown for {@link #UNKNOWN_TTL}, so
 * a stream of records naming a bad id costs one catalog query per interval, not one per batch; a
 * registration in another process is seen after at most that. Thread-safe.
 */
final class RegistryCaches {
    static final Duration SUBJECT_IDS_TTL = Duration.ofSeconds(30);
    static final Duration UNKNOWN_TTL = Duration.ofSeconds(1);
    static final int MAX_SCHEMAS = 10_000;
    static final int MAX_PARSED = 2_000;
    static final int MAX_SUBJECTS = 10_000;

    /**
     * A schema row as cached: the API's view, the fingerprint registrations compare, and the ids
     * its references resolved to when it was registered.
     */
    record Entry(
            RegisteredSchema schema,
            String fingerprint,
            java.util.Map<SchemaReference, Integer> referenceIds) {}

    /** The ids of the versions of a subject that are not hard-deleted, and when they were read. */
    record SubjectIds(Set<Integer> ids, long readAtNanos) {}

    private final Ticker ticker;
    private final Cache<Integer, Entry> schemas;
    private final Cache<Integer, ParsedSchema> parsed;
    private final Cache<String, SubjectIds> subjectIds;
    private final Cache<Integer, Boolean> unknownIds;

    RegistryCaches(Ticker ticker) {
        this.ticker = ticker;
        this.schemas = Caffeine.newBuilder().maximumSize(MAX_SCHEMAS).ticker(ticker).build();
        this.parsed = Caffeine.newBuilder().maximumSize(MAX_PARSED).ticker(ticker).build();
        this.subjectIds =
                Caffeine.newBuilder()
                        .maximumSize(MAX_SUBJECTS)
                        .expireAfterWrite(SUBJECT_IDS_TTL)
                        .ticker(ticker)
                        .build();
        this.unknownIds =
                Caffeine.newBuilder()
                        .maximumSize(MAX_SCHEMAS)
                        .expireAfterWrite(UNKNOWN_TTL)
                        .ticker(ticker)
                        .build();
    }

    Optional<Entry> schema(int id) {
        return Optional.ofNullable(schemas.getIfPresent(id));
    }

    void putSchema(Entry e) {
        schemas.put(e.schema().id(), e);
        unknownIds.invalidate(e.schema().id());
    }

    /** True when {@code id} was looked up in the catalog less than {@link #UNKNOWN_TTL} ago. */
    boolean knownUnknown(int id) {
        return unknownIds.getIfPresent(id) != null;
    }

    void putUnknown(int id) {
        unknownIds.put(id, Boolean.TRUE);
    }

    Optional<ParsedSchema> parsed(int id) {
        return Optional.ofNullable(parsed.getIfPresent(id));
    }

    void putParsed(int id, ParsedSchema p) {
        parsed.put(id, p);
    }

    Optional<SubjectIds> subjectIds(String subject) {
        return Optional.ofNullable(subjectIds.getIfPresent(subject));
    }

    void putSubjectIds(String subject, Set<Integer> ids) {
        subjectIds.put(subject, new SubjectIds(Set.copyOf(ids), ticker.read()));
    }

    /** True when {@code s} was read less than {@link #UNKNOWN_TTL} ago. */
    boolean fresh(SubjectIds s) {
        return ticker.read() - s.readAtNanos() < UNKNOWN_TTL.toNanos();
    }

    /** Forgets what is known of {@code subject}'s versions (after this process changed them). */
    void invalidateSubject(String subject) {
        subjectIds.invalidate(subject);
    }
}

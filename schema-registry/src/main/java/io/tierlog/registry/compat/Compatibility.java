package io.tierlog.registry.compat;

import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.format.AvroParsedSchema;
import io.tierlog.registry.format.JsonParsedSchema;
import io.tierlog.registry.format.ProtobufParsedSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * The evolution guards: whether a new schema may be registered after the existing versions of a
 * subject at a compatibility level, with each format's rules (Avro's schema resolution; JSON Schema
 * and Protobuf as Confluent's registry defines them). Stateless, so thread-safe.
 *
 * <p>Every check is between a reader and a writer schema: BACKWARD reads data written with an
 * existing schema using the new one (reader = new, writer = existing), FORWARD the other way round,
 * FULL both. Non-transitive levels check the latest existing schema only, transitive ones every
 * existing schema.
 */
public final class Compatibility {
    private Compatibility() {}

    /**
     * Checks {@code candidate} against {@code existing} (oldest first; the latest alone unless the
     * level is transitive). Schemas of another type than the candidate's are incompatible.
     *
     * @return empty when compatible, else one message per broken rule, naming the rule, the
     *     version-relative location (for example {@code /fields/amount}) and both schemas' view, as
     *     a refused registration reports them
     */
    public static List<String> check(
            ParsedSchema candidate, List<ParsedSchema> existing, CompatibilityLevel level) {
        if (level == CompatibilityLevel.NONE || existing.isEmpty()) {
            return List.of();
        }
        int from = level.transitive() ? 0 : existing.size() - 1;
        List<String> messages = new ArrayList<>();
        for (int i = existing.size() - 1; i >= from; i--) {
            ParsedSchema old = existing.get(i);
            String which =
                    "existing schema " + (i + 1) + " of " + existing.size() + " (oldest first)";
            if (old.type() != candidate.type()) {
                messages.add(
                        "{errorType:'SCHEMA_TYPE_CHANGED', description:'the new schema is "
                                + candidate.type()
                                + " but "
                                + which
                                + " is "
                                + old.type()
                                + "'}");
                continue;
            }
            if (level.backward()) {
                for (Issue issue : issues(candidate, old)) {
                    messages.add(
                            "BACKWARD (the new schema reading data written with "
                                    + which
                                    + "): "
                                    + issue);
                }
            }
            if (level.forward()) {
                for (Issue issue : issues(old, candidate)) {
                    messages.add(
                            "FORWARD ("
                                    + which
                                    + " reading data written with the new schema): "
                                    + issue);
                }
            }
        }
        return List.copyOf(messages);
    }

    /** What breaks when {@code reader} reads data written with {@code writer} (same type). */
    static List<Issue> issues(ParsedSchema reader, ParsedSchema writer) {
        return switch (reader.type()) {
            case AVRO -> AvroRules.check((AvroParsedSchema) reader, (AvroParsedSchema) writer);
            case JSON ->
                    new JsonRules((JsonParsedSchema) reader, (JsonParsedSchema) writer).check();
            case PROTOBUF ->
                    ProtobufRules.check(
                            (ProtobufParsedSchema) reader, (ProtobufParsedSchema) writer);
        };
    }
}

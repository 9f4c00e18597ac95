package io.tierlog.registry.compat;

import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import java.util.List;

/**
 * The evolution guards: whether a new schema may be registered after the existing versions of a
 * subject at a compatibility level, with each format's rules (Avro's schema resolution; JSON Schema
 * and Protobuf as Confluent's registry defines them). Stateless, so thread-safe.
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
        throw new UnsupportedOperationException("not yet: slice compat");
    }
}

package io.tierlog.registry.typed;

import io.tierlog.registry.ParsedSchema;
import java.util.List;

/**
 * How a schema becomes typed columns: the field paths a version contributes (the registry assigns
 * each path a field id at registration, stable per subject; see {@code SubjectVersion}), and the
 * typed struct a set of versions makes. Stateless, so thread-safe.
 */
public final class TypedMapping {
    private TypedMapping() {}

    /**
     * Every field path of {@code schema}'s typed view, parents before children, dotted ({@code
     * amount}, {@code customer}, {@code customer.name}); list elements and map keys and values are
     * paths too ({@code tags.element}, {@code attrs.key}, {@code attrs.value}), since Iceberg gives
     * them field ids. Empty when the schema has no typed view (for example a JSON Schema that is
     * not an object).
     */
    public static List<String> fieldPaths(ParsedSchema schema) {
        return List.of(); // slice typed replaces this
    }
}

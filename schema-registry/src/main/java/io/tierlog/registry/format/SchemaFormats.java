package io.tierlog.registry.format;

import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import java.util.List;

/**
 * Parses schema text in each format, resolving references (recursively) through a {@link
 * ReferenceResolver}. Stateless, so thread-safe.
 */
public final class SchemaFormats {
    private SchemaFormats() {}

    /**
     * Parses and validates {@code text}.
     *
     * @param normalize as Confluent's {@code normalize=true}: the canonical form ignores
     *     differences that do not change meaning (order of JSON keys, Protobuf option order, ...)
     * @throws io.tierlog.registry.SchemaRegistryException 42201 (invalid schema) saying what is
     *     wrong
     */
    public static ParsedSchema parse(
            SchemaType type,
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize) {
        throw new UnsupportedOperationException("not yet: slice formats");
    }
}

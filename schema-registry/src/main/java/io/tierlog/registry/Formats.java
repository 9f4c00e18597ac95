package io.tierlog.registry;

import io.tierlog.registry.compat.Compatibility;
import io.tierlog.registry.format.ReferenceResolver;
import io.tierlog.registry.format.SchemaFormats;
import io.tierlog.registry.typed.TypedMapping;
import java.util.List;

/**
 * What the registry asks of the formats: parsing, compatibility and the field paths of a schema.
 * {@link #STANDARD} is the formats and rules of {@code format}, {@code compat} and {@code typed};
 * tests of the registry's own logic (numbering, caching, faults) may pass another. Implementations
 * are stateless and thread-safe.
 */
interface Formats {
    ParsedSchema parse(
            SchemaType type,
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize);

    List<String> check(
            ParsedSchema candidate, List<ParsedSchema> existing, CompatibilityLevel level);

    List<String> fieldPaths(ParsedSchema schema);

    Formats STANDARD =
            new Formats() {
                @Override
                public ParsedSchema parse(
                        SchemaType type,
                        String text,
                        List<SchemaReference> references,
                        ReferenceResolver resolver,
                        boolean normalize) {
                    return SchemaFormats.parse(type, text, references, resolver, normalize);
                }

                @Override
                public List<String> check(
                        ParsedSchema candidate,
                        List<ParsedSchema> existing,
                        CompatibilityLevel level) {
                    return Compatibility.check(candidate, existing, level);
                }

                @Override
                public List<String> fieldPaths(ParsedSchema schema) {
                    return TypedMapping.fieldPaths(schema);
                }
            };
}

package io.tierlog.registry.format;

import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.avro.Schema;

/**
 * Avro schemas: Avro's own parser (with default values validated, as Confluent's registry does),
 * named types taken from references (each referenced schema is parsed first, into the same parser,
 * so the referring schema may name its types), and the canonical form Confluent compares by: Avro's
 * full JSON rendering of the schema with referenced types written by name only. Unlike Avro's
 * "parsing canonical form", that rendering keeps defaults, docs, aliases and logical types, which
 * change meaning for readers and so must make a new version. Stateless, so thread-safe.
 */
final class AvroFormat {
    private AvroFormat() {}

    // Schema.toString(referenced, pretty) is deprecated in 1.12 but is still the one rendering that
    // writes referenced named types by name only, which a canonical form must.
    @SuppressWarnings("deprecation")
    static AvroParsedSchema parse(
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize) {
        Schema.Parser parser = new Schema.Parser();
        for (References.Resolved resolved : References.resolveAll(references, resolver)) {
            try {
                parser.parse(resolved.schema().text());
            } catch (RuntimeException e) {
                throw References.invalid(
                        "referenced Avro schema "
                                + resolved.subject()
                                + " version "
                                + resolved.version()
                                + " does not parse: "
                                + e.getMessage(),
                        e);
            }
        }
        Collection<Schema> referenced = new ArrayList<>(parser.getTypes().values());
        Schema schema;
        try {
            schema = parser.parse(text);
        } catch (RuntimeException e) {
            // Jackson's JSON errors surface as its own unchecked types from inside Avro.
            throw References.invalid("Avro: " + e.getMessage(), e);
        }
        String canonical = schema.toString(referenced, false);
        return new Parsed(normalize ? canonical : text, canonical, List.copyOf(references), schema);
    }

    /** Immutable, so thread-safe. */
    record Parsed(String text, String canonical, List<SchemaReference> references, Schema avro)
            implements AvroParsedSchema {
        @Override
        public SchemaType type() {
            return SchemaType.AVRO;
        }

        @Override
        public String toString() {
            return "AVRO " + canonical;
        }
    }
}

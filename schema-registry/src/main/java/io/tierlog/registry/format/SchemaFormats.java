package io.tierlog.registry.format;

import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaRegistryException;
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
        java.util.Objects.requireNonNull(type, "type");
        if (text == null || text.isBlank()) {
            throw References.invalid("the schema is empty");
        }
        List<SchemaReference> refs = references == null ? List.of() : references;
        try {
            return switch (type) {
                case AVRO -> AvroFormat.parse(text, refs, resolver, normalize);
                case JSON -> JsonFormat.parse(text, refs, resolver, normalize);
                case PROTOBUF -> ProtobufFormat.parse(text, refs, resolver, normalize);
            };
        } catch (SchemaRegistryException e) {
            throw e;
        } catch (RuntimeException e) {
            // A library failing in a way its parser did not anticipate is still bad input here.
            throw References.invalid(type + ": " + e, e);
        }
    }
}

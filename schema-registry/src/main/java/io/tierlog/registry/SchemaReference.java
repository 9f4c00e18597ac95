package io.tierlog.registry;

import java.util.Objects;

/**
 * A reference from a schema to another registered schema, as Confluent's API spells it: {@code
 * name} is how the referring schema names it (an Avro full type name, a JSON Schema {@code $ref}
 * URL, a Protobuf import path), {@code subject} and {@code version} where it is registered.
 */
public record SchemaReference(String name, String subject, int version) {
    public SchemaReference {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(subject, "subject");
    }
}

package io.tierlog.registry.compat;

/**
 * One broken compatibility rule: {@code rule} is the name Confluent's registry gives it (Avro's
 * {@code SchemaIncompatibilityType}, or the Protobuf / JSON Schema difference type, for example
 * {@code FIELD_SCALAR_KIND_CHANGED}), {@code location} where in the schema (a JSON pointer for Avro
 * and JSON Schema, a message path with field number for Protobuf), {@code description} what the
 * reader and writer schemas each say there.
 */
// Immutable, so thread-safe.
record Issue(String rule, String location, String description) {
    @Override
    public String toString() {
        return "{errorType:'"
                + rule
                + "', location:'"
                + location
                + "', description:'"
                + description
                + "'}";
    }
}

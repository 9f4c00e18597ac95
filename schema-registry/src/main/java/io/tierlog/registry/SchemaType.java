package io.tierlog.registry;

/** The schema formats the registry accepts, with Confluent's names ({@code schemaType}). */
public enum SchemaType {
    AVRO,
    JSON,
    PROTOBUF;

    /**
     * The type named {@code name} as the REST API spells it; null or empty is {@link #AVRO}, as in
     * Confluent's registry.
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static SchemaType of(String name) {
        if (name == null || name.isEmpty()) {
            return AVRO;
        }
        return SchemaType.valueOf(name.toUpperCase(java.util.Locale.ROOT));
    }
}

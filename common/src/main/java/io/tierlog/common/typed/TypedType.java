package io.tierlog.common.typed;

import java.util.List;
import java.util.Objects;

/**
 * The type of a typed column the cold tier writes next to the raw bytes of keys and values ({@code
 * value_record}, {@code key_record}): Iceberg's type model, so that the columns become Iceberg
 * columns as they are, with a field id on every field, list element and map key and value. Values
 * of a type are plain Java objects:
 *
 * <pre>
 * BOOLEAN Boolean   INT Integer   LONG Long   FLOAT Float   DOUBLE Double   STRING String
 * BYTES byte[]      DATE Integer (days since 1970-01-01)   TIMESTAMP_MICROS Long (UTC)
 * Struct Object[] (one entry per field, in order; null = absent)
 * ListOf java.util.List   MapOf java.util.Map (iteration order kept)
 * </pre>
 *
 * In Parquet: a struct is a group, a list the standard three-level {@code LIST} ({@code list} /
 * {@code element}), a map the standard {@code MAP} ({@code key_value} / {@code key} / {@code
 * value}); INT INT32, LONG INT64, DATE INT32 (DATE), TIMESTAMP_MICROS INT64 (TIMESTAMP(MICROS,
 * UTC)), STRING BINARY (STRING), BYTES BINARY. Immutable, so thread-safe.
 */
public sealed interface TypedType
        permits TypedType.Primitive, TypedType.Struct, TypedType.ListOf, TypedType.MapOf {

    /** The primitive kinds. */
    enum Kind {
        BOOLEAN,
        INT,
        LONG,
        FLOAT,
        DOUBLE,
        STRING,
        BYTES,
        DATE,
        TIMESTAMP_MICROS
    }

    /** A primitive. */
    record Primitive(Kind kind) implements TypedType {
        public Primitive {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /** A named field of a struct, with its field id. */
    record Field(int id, String name, TypedType type, boolean optional) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }
    }

    /** A struct (record, message, object). */
    record Struct(List<Field> fields) implements TypedType {
        public Struct {
            fields = List.copyOf(fields);
        }
    }

    /** A list, its element with a field id. */
    record ListOf(int elementId, TypedType element, boolean elementOptional) implements TypedType {
        public ListOf {
            Objects.requireNonNull(element, "element");
        }
    }

    /** A map, its key and value with field ids; keys are never null. */
    record MapOf(int keyId, TypedType key, int valueId, TypedType value, boolean valueOptional)
            implements TypedType {
        public MapOf {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
        }
    }
}

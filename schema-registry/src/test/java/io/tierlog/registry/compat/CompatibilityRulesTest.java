package io.tierlog.registry.compat;

import static io.tierlog.registry.CompatibilityLevel.BACKWARD;
import static io.tierlog.registry.CompatibilityLevel.BACKWARD_TRANSITIVE;
import static io.tierlog.registry.CompatibilityLevel.FORWARD;
import static io.tierlog.registry.CompatibilityLevel.FORWARD_TRANSITIVE;
import static io.tierlog.registry.CompatibilityLevel.FULL;
import static io.tierlog.registry.CompatibilityLevel.FULL_TRANSITIVE;
import static io.tierlog.registry.CompatibilityLevel.NONE;
import static io.tierlog.registry.SchemaType.AVRO;
import static io.tierlog.registry.SchemaType.JSON;
import static io.tierlog.registry.SchemaType.PROTOBUF;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.SchemaFormats;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The evolution guards, row by row: an existing subject history, a candidate, a level, and whether
 * Confluent's documented rules allow the change (null rule) or refuse it (the rule the refusal must
 * name). Each row cites the rule it checks:
 *
 * <ul>
 *   <li>EVOLUTION: Confluent, "Schema Evolution and Compatibility", compatibility types summary
 *       (docs.confluent.io/platform/current/schema-registry/fundamentals/schema-evolution.html):
 *       BACKWARD = delete fields, add optional fields; FORWARD = add fields, delete optional
 *       fields; FULL = add/delete optional fields; transitive = against all versions; Protobuf's
 *       best practice is BACKWARD_TRANSITIVE because new message types are not forward compatible;
 *   <li>AVRO_SPEC: Avro 1.12 specification, "Schema Resolution" (promotions, defaults, enums, names
 *       and aliases), which Confluent applies through Avro's SchemaCompatibility;
 *   <li>JSON_RULES: Confluent, "JSON Schema compatibility rules" (serdes-json.html, open / closed /
 *       partially open content models) and its JsonSchemaDiff difference types;
 *   <li>PROTO_RULES: Confluent, "Protobuf compatibility rules" (serdes-protobuf.html) and its
 *       ProtobufSchema diff types; protobuf.dev "Updating a message type" (wire-compatible scalar
 *       groups, oneof moves).
 * </ul>
 */
class CompatibilityRulesTest {
    record Row(
            String cite,
            SchemaType type,
            CompatibilityLevel level,
            List<String> existing,
            String candidate,
            String refusedBy) {
        @Override
        public String toString() {
            return type
                    + " "
                    + level
                    + " "
                    + (refusedBy == null ? "allows" : "refuses (" + refusedBy + ")")
                    + ": "
                    + cite;
        }
    }

    private static Row allowed(
            String cite,
            SchemaType type,
            CompatibilityLevel level,
            List<String> existing,
            String candidate) {
        return new Row(cite, type, level, existing, candidate, null);
    }

    private static Row refused(
            String cite,
            SchemaType type,
            CompatibilityLevel level,
            List<String> existing,
            String candidate,
            String rule) {
        return new Row(cite, type, level, existing, candidate, rule);
    }

    // ---- Avro fixtures

    private static String avro(String fields) {
        return "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
                + fields
                + "]}";
    }

    private static final String A_ID = "{\"name\":\"id\",\"type\":\"long\"}";
    private static final String A_INT = "{\"name\":\"n\",\"type\":\"int\"}";
    private static final String A_LONG = "{\"name\":\"n\",\"type\":\"long\"}";
    private static final String A_NOTE_DEFAULT =
            "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}";
    private static final String A_NOTE = "{\"name\":\"note\",\"type\":\"string\"}";
    private static final String A_ENUM2 =
            "{\"name\":\"s\",\"type\":{\"type\":\"enum\",\"name\":\"S\",\"symbols\":[\"NEW\",\"PAID\"]}}";
    private static final String A_ENUM3 =
            "{\"name\":\"s\",\"type\":{\"type\":\"enum\",\"name\":\"S\",\"symbols\":[\"NEW\",\"PAID\",\"SHIPPED\"]}}";

    // ---- JSON fixtures

    private static String obj(String properties, String extra) {
        return "{\"type\":\"object\",\"properties\":{"
                + properties
                + "}"
                + (extra.isEmpty() ? "" : "," + extra)
                + "}";
    }

    private static final String CLOSED = "\"additionalProperties\":false";
    private static final String J_NAME = "\"name\":{\"type\":\"string\"}";
    private static final String J_AGE = "\"age\":{\"type\":\"integer\"}";
    private static final String J_AGE_STRING = "\"age\":{\"type\":\"string\"}";

    // ---- Protobuf fixtures

    private static String proto(String body) {
        return "syntax = \"proto3\"; package shop; " + body;
    }

    private static String proto2(String body) {
        return "syntax = \"proto2\"; package shop; " + body;
    }

    static Stream<Row> rows() {
        List<Row> rows = new ArrayList<>();
        // Avro
        rows.add(
                allowed(
                        "EVOLUTION: BACKWARD allows adding a field with a default",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_ID)),
                        avro(A_ID + "," + A_NOTE_DEFAULT)));
        rows.add(
                refused(
                        "EVOLUTION/AVRO_SPEC: BACKWARD refuses a new field without a default (the reader cannot fill it from old data)",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_ID)),
                        avro(A_ID + "," + A_NOTE),
                        "READER_FIELD_MISSING_DEFAULT_VALUE"));
        rows.add(
                allowed(
                        "EVOLUTION: BACKWARD allows deleting a field",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_ID + "," + A_NOTE)),
                        avro(A_ID)));
        rows.add(
                refused(
                        "EVOLUTION: FORWARD allows deleting only optional fields (the old reader needs a default)",
                        AVRO,
                        FORWARD,
                        List.of(avro(A_ID + "," + A_NOTE)),
                        avro(A_ID),
                        "READER_FIELD_MISSING_DEFAULT_VALUE"));
        rows.add(
                allowed(
                        "EVOLUTION: FORWARD allows deleting a field the old reader has a default for",
                        AVRO,
                        FORWARD,
                        List.of(avro(A_ID + "," + A_NOTE_DEFAULT)),
                        avro(A_ID)));
        rows.add(
                allowed(
                        "EVOLUTION: FORWARD allows adding a field (the old reader ignores it)",
                        AVRO,
                        FORWARD,
                        List.of(avro(A_ID)),
                        avro(A_ID + "," + A_NOTE)));
        rows.add(
                allowed(
                        "EVOLUTION: FULL allows adding an optional field",
                        AVRO,
                        FULL,
                        List.of(avro(A_ID)),
                        avro(A_ID + "," + A_NOTE_DEFAULT)));
        rows.add(
                refused(
                        "EVOLUTION: FULL refuses adding a field without a default",
                        AVRO,
                        FULL,
                        List.of(avro(A_ID)),
                        avro(A_ID + "," + A_NOTE),
                        "READER_FIELD_MISSING_DEFAULT_VALUE"));
        rows.add(
                allowed(
                        "AVRO_SPEC: int is promoted to long when reading",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_INT)),
                        avro(A_LONG)));
        rows.add(
                refused(
                        "AVRO_SPEC: long is not promoted to int",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_LONG)),
                        avro(A_INT),
                        "TYPE_MISMATCH"));
        rows.add(
                refused(
                        "AVRO_SPEC: an old int reader cannot read new long data (FORWARD)",
                        AVRO,
                        FORWARD,
                        List.of(avro(A_INT)),
                        avro(A_LONG),
                        "TYPE_MISMATCH"));
        rows.add(
                allowed(
                        "AVRO_SPEC: a reader enum with more symbols reads old data",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_ENUM2)),
                        avro(A_ENUM3)));
        rows.add(
                refused(
                        "AVRO_SPEC: an old reader enum lacks the new symbol (FORWARD)",
                        AVRO,
                        FORWARD,
                        List.of(avro(A_ENUM2)),
                        avro(A_ENUM3),
                        "MISSING_ENUM_SYMBOLS"));
        rows.add(
                refused(
                        "AVRO_SPEC: record names must match",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_ID)),
                        avro(A_ID).replace("\"Order\"", "\"Sale\""),
                        "NAME_MISMATCH"));
        rows.add(
                allowed(
                        "AVRO_SPEC: a renamed record reads old data through an alias",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_ID)),
                        avro(A_ID)
                                .replace(
                                        "\"name\":\"Order\"",
                                        "\"name\":\"Sale\",\"aliases\":[\"shop.Order\"]")));
        rows.add(
                allowed(
                        "EVOLUTION: BACKWARD checks the latest version only",
                        AVRO,
                        BACKWARD,
                        List.of(avro(A_INT.replace("int", "string")), avro(A_ID)),
                        avro(A_ID + ",{\"name\":\"n\",\"type\":\"int\",\"default\":0}")));
        rows.add(
                refused(
                        "EVOLUTION: BACKWARD_TRANSITIVE checks every version (v1's string n cannot be read as int)",
                        AVRO,
                        BACKWARD_TRANSITIVE,
                        List.of(avro(A_INT.replace("int", "string")), avro(A_ID)),
                        avro(A_ID + ",{\"name\":\"n\",\"type\":\"int\",\"default\":0}"),
                        "TYPE_MISMATCH"));
        rows.add(
                refused(
                        "EVOLUTION: FORWARD_TRANSITIVE checks every version (v1 reader needs note)",
                        AVRO,
                        FORWARD_TRANSITIVE,
                        List.of(avro(A_ID + "," + A_NOTE), avro(A_ID + "," + A_NOTE_DEFAULT)),
                        avro(A_ID),
                        "READER_FIELD_MISSING_DEFAULT_VALUE"));
        rows.add(
                refused(
                        "EVOLUTION: FULL_TRANSITIVE checks both directions against every version",
                        AVRO,
                        FULL_TRANSITIVE,
                        List.of(avro(A_LONG), avro(A_ID)),
                        avro(A_ID + ",{\"name\":\"n\",\"type\":\"int\",\"default\":0}"),
                        "TYPE_MISMATCH"));
        rows.add(
                allowed(
                        "EVOLUTION: NONE checks nothing",
                        AVRO,
                        NONE,
                        List.of(avro(A_LONG)),
                        avro(A_INT)));
        // JSON Schema
        rows.add(
                refused(
                        "JSON_RULES: adding a property to an open content model is incompatible (old data may hold it with any value)",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, "")),
                        obj(J_NAME + "," + J_AGE, ""),
                        "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"));
        rows.add(
                allowed(
                        "JSON_RULES: adding an optional property to a closed content model is compatible",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, CLOSED)),
                        obj(J_NAME + "," + J_AGE, CLOSED)));
        rows.add(
                refused(
                        "JSON_RULES: adding a required property to a closed content model is incompatible",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, CLOSED)),
                        obj(J_NAME + "," + J_AGE, CLOSED + ",\"required\":[\"age\"]"),
                        "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"));
        rows.add(
                allowed(
                        "JSON_RULES: removing a property from an open content model is compatible",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME + "," + J_AGE, "")),
                        obj(J_NAME, "")));
        rows.add(
                refused(
                        "JSON_RULES: removing a property from a closed content model is incompatible",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME + "," + J_AGE, CLOSED)),
                        obj(J_NAME, CLOSED),
                        "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"));
        rows.add(
                allowed(
                        "JSON_RULES: FORWARD, an open old reader accepts a new property",
                        JSON,
                        FORWARD,
                        List.of(obj(J_NAME, "")),
                        obj(J_NAME + "," + J_AGE, "")));
        rows.add(
                refused(
                        "JSON_RULES: FORWARD, removing a property from an open writer lets it write anything under the old reader's name",
                        JSON,
                        FORWARD,
                        List.of(obj(J_NAME + "," + J_AGE, "")),
                        obj(J_NAME, ""),
                        "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"));
        rows.add(
                refused(
                        "JSON_RULES: FULL with closed models refuses an added optional property (the old closed reader refuses it)",
                        JSON,
                        FULL,
                        List.of(obj(J_NAME, CLOSED)),
                        obj(J_NAME + "," + J_AGE, CLOSED),
                        "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"));
        rows.add(
                allowed(
                        "JSON_RULES: a property added to a partially open model is compatible when the old additionalProperties schema is covered",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, "\"additionalProperties\":{\"type\":\"string\"}")),
                        obj(
                                J_NAME + "," + J_AGE_STRING,
                                "\"additionalProperties\":{\"type\":\"string\"}")));
        rows.add(
                refused(
                        "JSON_RULES: a property added to a partially open model must accept what additionalProperties allowed",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, "\"additionalProperties\":{\"type\":\"string\"}")),
                        obj(J_NAME + "," + J_AGE, "\"additionalProperties\":{\"type\":\"string\"}"),
                        "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"));
        rows.add(
                allowed(
                        "JSON_RULES: a property matched by the old patternProperties is covered",
                        JSON,
                        BACKWARD,
                        List.of(
                                obj(
                                        J_NAME,
                                        CLOSED
                                                + ",\"patternProperties\":{\"^a\":{\"type\":\"integer\"}}")),
                        obj(
                                J_NAME + "," + J_AGE,
                                CLOSED
                                        + ",\"patternProperties\":{\"^a\":{\"type\":\"integer\"}}")));
        rows.add(
                refused(
                        "JSON_RULES: closing an open content model narrows it",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, "")),
                        obj(J_NAME, CLOSED),
                        "ADDITIONAL_PROPERTIES_NARROWED"));
        rows.add(
                allowed(
                        "JSON_RULES: opening a closed content model extends it",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, CLOSED)),
                        obj(J_NAME, "")));
        rows.add(
                allowed(
                        "JSON_RULES: TYPE_EXTENDED integer -> number is compatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"integer\"}"),
                        "{\"type\":\"number\"}"));
        rows.add(
                refused(
                        "JSON_RULES: TYPE_NARROWED number -> integer is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"number\"}"),
                        "{\"type\":\"integer\"}",
                        "TYPE_NARROWED"));
        rows.add(
                allowed(
                        "JSON_RULES: TYPE_EXTENDED string -> [string, null]",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"string\"}"),
                        "{\"type\":[\"string\",\"null\"]}"));
        rows.add(
                refused(
                        "JSON_RULES: TYPE_NARROWED [string, null] -> string",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":[\"string\",\"null\"]}"),
                        "{\"type\":\"string\"}",
                        "TYPE_NARROWED"));
        rows.add(
                refused(
                        "JSON_RULES: TYPE_CHANGED inside a property",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME + "," + J_AGE, CLOSED)),
                        obj(J_NAME + "," + J_AGE_STRING, CLOSED),
                        "TYPE_CHANGED"));
        rows.add(
                refused(
                        "JSON_RULES: MAX_LENGTH_DECREASED is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"string\",\"maxLength\":10}"),
                        "{\"type\":\"string\",\"maxLength\":5}",
                        "MAX_LENGTH_DECREASED"));
        rows.add(
                allowed(
                        "JSON_RULES: MAX_LENGTH_INCREASED is compatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"string\",\"maxLength\":5}"),
                        "{\"type\":\"string\",\"maxLength\":10}"));
        rows.add(
                refused(
                        "JSON_RULES: MINIMUM_ADDED is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"integer\"}"),
                        "{\"type\":\"integer\",\"minimum\":0}",
                        "MINIMUM_ADDED"));
        rows.add(
                refused(
                        "JSON_RULES: PATTERN_ADDED is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"string\"}"),
                        "{\"type\":\"string\",\"pattern\":\"^a\"}",
                        "PATTERN_ADDED"));
        rows.add(
                allowed(
                        "JSON_RULES: MULTIPLE_OF_REDUCED (10 -> 5) is compatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"integer\",\"multipleOf\":10}"),
                        "{\"type\":\"integer\",\"multipleOf\":5}"));
        rows.add(
                allowed(
                        "JSON_RULES: ENUM_ARRAY_EXTENDED is compatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"enum\":[\"a\",\"b\"]}"),
                        "{\"enum\":[\"a\",\"b\",\"c\"]}"));
        rows.add(
                refused(
                        "JSON_RULES: ENUM_ARRAY_NARROWED is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"enum\":[\"a\",\"b\",\"c\"]}"),
                        "{\"enum\":[\"a\",\"b\"]}",
                        "ENUM_ARRAY_NARROWED"));
        rows.add(
                refused(
                        "JSON_RULES: REQUIRED_ATTRIBUTE_ADDED is incompatible",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, CLOSED)),
                        obj(J_NAME, CLOSED + ",\"required\":[\"name\"]"),
                        "REQUIRED_ATTRIBUTE_ADDED"));
        rows.add(
                allowed(
                        "JSON_RULES: REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED is compatible",
                        JSON,
                        BACKWARD,
                        List.of(obj(J_NAME, CLOSED)),
                        obj(
                                "\"name\":{\"type\":\"string\",\"default\":\"x\"}",
                                CLOSED + ",\"required\":[\"name\"]")));
        rows.add(
                allowed(
                        "JSON_RULES: SUM_TYPE_EXTENDED (oneOf gains a branch) is compatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}"),
                        "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"},{\"type\":\"boolean\"}]}"));
        rows.add(
                refused(
                        "JSON_RULES: SUM_TYPE_NARROWED (oneOf loses a branch) is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}"),
                        "{\"oneOf\":[{\"type\":\"string\"}]}",
                        "SUM_TYPE_NARROWED"));
        rows.add(
                allowed(
                        "JSON_RULES: a schema becoming one branch of a oneOf is compatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"string\"}"),
                        "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}"));
        rows.add(
                refused(
                        "JSON_RULES: changes behind $ref are checked",
                        JSON,
                        BACKWARD,
                        List.of(
                                "{\"definitions\":{\"n\":{\"type\":\"integer\"}},\"properties\":{\"x\":{\"$ref\":\"#/definitions/n\"}},\"additionalProperties\":false}"),
                        "{\"definitions\":{\"n\":{\"type\":\"string\"}},\"properties\":{\"x\":{\"$ref\":\"#/definitions/n\"}},\"additionalProperties\":false}",
                        "TYPE_CHANGED"));
        rows.add(
                refused(
                        "JSON_RULES: array items narrowed",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"array\",\"items\":{\"type\":\"number\"}}"),
                        "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}",
                        "TYPE_NARROWED"));
        rows.add(
                allowed(
                        "JSON_RULES: an item added to a closed tuple (additionalItems false) is compatible",
                        JSON,
                        BACKWARD,
                        List.of(
                                "{\"type\":\"array\",\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}"),
                        "{\"type\":\"array\",\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"additionalItems\":false}"));
        rows.add(
                refused(
                        "JSON_RULES: an item added to an open tuple is incompatible",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"array\",\"items\":[{\"type\":\"string\"}]}"),
                        "{\"type\":\"array\",\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}",
                        "ITEM_ADDED_TO_OPEN_CONTENT_MODEL"));
        rows.add(
                refused(
                        "JSON_RULES: 2020-12 prefixItems follow the same content model",
                        JSON,
                        BACKWARD,
                        List.of(
                                "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"items\":false}"),
                        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],\"items\":false}",
                        "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"));
        rows.add(
                allowed(
                        "EVOLUTION: BACKWARD checks the latest JSON version only",
                        JSON,
                        BACKWARD,
                        List.of("{\"type\":\"string\"}", "{\"type\":\"integer\"}"),
                        "{\"type\":\"integer\"}"));
        rows.add(
                refused(
                        "EVOLUTION: BACKWARD_TRANSITIVE checks every JSON version",
                        JSON,
                        BACKWARD_TRANSITIVE,
                        List.of("{\"type\":\"string\"}", "{\"type\":\"integer\"}"),
                        "{\"type\":\"integer\"}",
                        "TYPE_CHANGED"));
        // Protobuf
        String order = "message Order { int64 id = 1; int32 n = 2; }";
        rows.add(
                allowed(
                        "PROTO_RULES: adding a field is compatible",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; int32 n = 2; string note = 3; }")));
        rows.add(
                allowed(
                        "PROTO_RULES: removing a field is compatible",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; reserved 2; }")));
        rows.add(
                allowed(
                        "PROTO_RULES: renaming a field keeps its number",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; int32 count = 2; }")));
        rows.add(
                allowed(
                        "PROTO_RULES: int32 -> int64 is wire compatible (varint group)",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; int64 n = 2; }")));
        rows.add(
                refused(
                        "PROTO_RULES: int32 -> sint32 changes the encoding",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; sint32 n = 2; }"),
                        "FIELD_SCALAR_KIND_CHANGED"));
        rows.add(
                refused(
                        "PROTO_RULES: int32 -> string is a scalar kind change",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; string n = 2; }"),
                        "FIELD_SCALAR_KIND_CHANGED"));
        rows.add(
                allowed(
                        "PROTO_RULES: string -> bytes is wire compatible",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto("message Order { string s = 1; }")),
                        proto("message Order { bytes s = 1; }")));
        rows.add(
                refused(
                        "PROTO_RULES: scalar -> message is a field kind change",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto(
                                "message Order { int64 id = 1; Line n = 2; } message Line { string sku = 1; }"),
                        "FIELD_KIND_CHANGED"));
        rows.add(
                refused(
                        "PROTO_RULES: a message field naming another message type",
                        PROTOBUF,
                        BACKWARD,
                        List.of(
                                proto(
                                        "message Order { A x = 1; } message A { int32 v = 1; } message B { int32 v = 1; }")),
                        proto(
                                "message Order { B x = 1; } message A { int32 v = 1; } message B { int32 v = 1; }"),
                        "FIELD_NAMED_TYPE_CHANGED"));
        rows.add(
                refused(
                        "PROTO_RULES: removing a message type is incompatible",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order + " message Refund { int64 id = 1; }")),
                        proto(order),
                        "MESSAGE_REMOVED"));
        rows.add(
                refused(
                        "EVOLUTION: adding a message type is not forward compatible (why Confluent recommends BACKWARD_TRANSITIVE for Protobuf)",
                        PROTOBUF,
                        FORWARD,
                        List.of(proto(order)),
                        proto(order + " message Refund { int64 id = 1; }"),
                        "MESSAGE_REMOVED"));
        rows.add(
                allowed(
                        "EVOLUTION: adding a message type is backward compatible",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto(order + " message Refund { int64 id = 1; }")));
        rows.add(
                refused(
                        "PROTO_RULES: adding a required field (proto2)",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto2("message Order { required int64 id = 1; }")),
                        proto2("message Order { required int64 id = 1; required string s = 2; }"),
                        "REQUIRED_FIELD_ADDED"));
        rows.add(
                refused(
                        "PROTO_RULES: removing a required field (proto2)",
                        PROTOBUF,
                        BACKWARD,
                        List.of(
                                proto2(
                                        "message Order { required int64 id = 1; required string s = 2; }")),
                        proto2("message Order { required int64 id = 1; }"),
                        "REQUIRED_FIELD_REMOVED"));
        rows.add(
                allowed(
                        "PROTO_RULES: moving a single field into a new oneof is safe",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto("message P { string card = 1; int64 id = 3; }")),
                        proto("message P { oneof pay { string card = 1; } int64 id = 3; }")));
        rows.add(
                refused(
                        "PROTO_RULES: moving several fields into a new oneof",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto("message P { string card = 1; string iban = 2; }")),
                        proto("message P { oneof pay { string card = 1; string iban = 2; } }"),
                        "MULTIPLE_FIELDS_MOVED_TO_ONEOF"));
        rows.add(
                refused(
                        "PROTO_RULES: moving a field into an existing oneof",
                        PROTOBUF,
                        BACKWARD,
                        List.of(
                                proto(
                                        "message P { oneof pay { string card = 1; } string iban = 2; }")),
                        proto("message P { oneof pay { string card = 1; string iban = 2; } }"),
                        "FIELD_MOVED_TO_EXISTING_ONEOF"));
        rows.add(
                refused(
                        "PROTO_RULES: removing a oneof member",
                        PROTOBUF,
                        BACKWARD,
                        List.of(
                                proto(
                                        "message P { oneof pay { string card = 1; string iban = 2; } }")),
                        proto("message P { oneof pay { string card = 1; } }"),
                        "ONEOF_FIELD_REMOVED"));
        rows.add(
                allowed(
                        "PROTO_RULES: adding a oneof member with a new number",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto("message P { oneof pay { string card = 1; } }")),
                        proto("message P { oneof pay { string card = 1; string iban = 2; } }")));
        rows.add(
                allowed(
                        "PROTO_RULES: proto3 optional is not a oneof move",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto("message P { string a = 1; string b = 2; }")),
                        proto("message P { optional string a = 1; optional string b = 2; }")));
        rows.add(
                refused(
                        "PROTO_RULES: changing the package",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order)),
                        proto(order).replace("package shop", "package sales"),
                        "PACKAGE_CHANGED"));
        rows.add(
                allowed(
                        "PROTO_RULES: adding an enum constant",
                        PROTOBUF,
                        FULL,
                        List.of(proto("enum S { NEW = 0; } message O { S s = 1; }")),
                        proto("enum S { NEW = 0; PAID = 1; } message O { S s = 1; }")));
        rows.add(
                allowed(
                        "EVOLUTION: FULL allows adding a field",
                        PROTOBUF,
                        FULL,
                        List.of(proto(order)),
                        proto("message Order { int64 id = 1; int32 n = 2; string note = 3; }")));
        rows.add(
                allowed(
                        "EVOLUTION: BACKWARD checks the latest Protobuf version only",
                        PROTOBUF,
                        BACKWARD,
                        List.of(proto(order), proto("message Order { int64 id = 1; }")),
                        proto("message Order { int64 id = 1; string n = 2; }")));
        rows.add(
                refused(
                        "EVOLUTION: BACKWARD_TRANSITIVE catches a reused field number with another type",
                        PROTOBUF,
                        BACKWARD_TRANSITIVE,
                        List.of(proto(order), proto("message Order { int64 id = 1; }")),
                        proto("message Order { int64 id = 1; string n = 2; }"),
                        "FIELD_SCALAR_KIND_CHANGED"));
        // across formats
        rows.add(
                refused(
                        "EVOLUTION: a subject's schemas share one type",
                        JSON,
                        BACKWARD,
                        List.of(avro(A_ID)),
                        "{\"type\":\"object\"}",
                        "SCHEMA_TYPE_CHANGED"));
        return rows.stream();
    }

    private static ParsedSchema parse(SchemaType type, String text) {
        return SchemaFormats.parse(type, text, List.of(), null, false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void confluentRule(Row row) {
        List<ParsedSchema> existing = new ArrayList<>();
        for (String text : row.existing()) {
            // the cross-format row keeps its existing schema in its own format
            existing.add(parse(text.startsWith("{\"type\":\"record\"") ? AVRO : row.type(), text));
        }
        List<String> messages =
                Compatibility.check(parse(row.type(), row.candidate()), existing, row.level());
        if (row.refusedBy() == null) {
            assertThat(messages).as(row.cite()).isEmpty();
        } else {
            assertThat(messages).as(row.cite()).isNotEmpty();
            assertThat(String.join("\n", messages))
                    .as(row.cite())
                    .contains("errorType:'" + row.refusedBy() + "'");
        }
    }
}

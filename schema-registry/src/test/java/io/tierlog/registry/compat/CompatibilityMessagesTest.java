package io.tierlog.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.SchemaFormats;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A refused registration says which rule broke, where, in which direction and against which
 * version.
 */
class CompatibilityMessagesTest {
    private static ParsedSchema parse(SchemaType type, String text) {
        return SchemaFormats.parse(type, text, List.of(), null, false);
    }

    @Test
    void avroMessageNamesRuleLocationDirectionAndVersion() {
        ParsedSchema v1 =
                parse(
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}");
        ParsedSchema v2 =
                parse(
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"}]}");
        List<String> messages = Compatibility.check(v2, List.of(v1), CompatibilityLevel.BACKWARD);
        assertThat(messages)
                .singleElement()
                .asString()
                .contains(
                        "BACKWARD",
                        "existing schema 1 of 1",
                        "READER_FIELD_MISSING_DEFAULT_VALUE",
                        "/fields/1",
                        "'amount'");
    }

    @Test
    void jsonMessageNamesThePropertyPath() {
        ParsedSchema v1 =
                parse(
                        SchemaType.JSON,
                        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}}");
        ParsedSchema v2 =
                parse(
                        SchemaType.JSON,
                        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}");
        List<String> messages = Compatibility.check(v2, List.of(v1), CompatibilityLevel.FULL);
        assertThat(messages).hasSize(2);
        assertThat(messages.get(0))
                .contains(
                        "BACKWARD", "TYPE_CHANGED", "#/properties/a/type", "[integer]", "[string]");
        assertThat(messages.get(1)).contains("FORWARD", "TYPE_CHANGED");
    }

    @Test
    void protobufMessageNamesMessageAndFieldNumber() {
        ParsedSchema v1 =
                parse(
                        SchemaType.PROTOBUF,
                        "syntax = \"proto3\"; package p; message M { int32 n = 7; }");
        ParsedSchema v2 =
                parse(
                        SchemaType.PROTOBUF,
                        "syntax = \"proto3\"; package p; message M { string n = 7; }");
        assertThat(Compatibility.check(v2, List.of(v1), CompatibilityLevel.BACKWARD))
                .singleElement()
                .asString()
                .contains("FIELD_SCALAR_KIND_CHANGED", "#/p.M/7", "int32", "string");
    }

    @Test
    void transitiveLevelsReportEveryBrokenVersionNewestFirst() {
        ParsedSchema v1 = parse(SchemaType.JSON, "{\"type\":\"string\"}");
        ParsedSchema v2 = parse(SchemaType.JSON, "{\"type\":\"boolean\"}");
        ParsedSchema v3 = parse(SchemaType.JSON, "{\"type\":\"integer\"}");
        List<String> messages =
                Compatibility.check(v3, List.of(v1, v2), CompatibilityLevel.BACKWARD_TRANSITIVE);
        assertThat(messages).hasSize(2);
        assertThat(messages.get(0)).contains("existing schema 2 of 2");
        assertThat(messages.get(1)).contains("existing schema 1 of 2");
    }

    @Test
    void noExistingSchemaOrNoneLevelIsAlwaysCompatible() {
        ParsedSchema s = parse(SchemaType.JSON, "{\"type\":\"string\"}");
        ParsedSchema other = parse(SchemaType.AVRO, "\"string\"");
        assertThat(Compatibility.check(s, List.of(), CompatibilityLevel.FULL_TRANSITIVE)).isEmpty();
        assertThat(Compatibility.check(s, List.of(other), CompatibilityLevel.NONE)).isEmpty();
    }

    @Test
    void recursiveJsonSchemasTerminate() {
        String tree =
                "{\"definitions\":{\"node\":{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"%s\"},"
                        + "\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/node\"}}}}},"
                        + "\"$ref\":\"#/definitions/node\"}";
        ParsedSchema v1 = parse(SchemaType.JSON, tree.formatted("integer"));
        ParsedSchema v2 = parse(SchemaType.JSON, tree.formatted("number"));
        assertThat(Compatibility.check(v2, List.of(v1), CompatibilityLevel.BACKWARD)).isEmpty();
        assertThat(Compatibility.check(v1, List.of(v2), CompatibilityLevel.BACKWARD)).isNotEmpty();
    }
}

package io.tierlog.registry.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaRegistryException;
import io.tierlog.registry.SchemaType;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Corrupt schema text (truncated, bytes flipped, pieces spliced) never escapes the parser as
 * anything but a 42201 invalid schema; and text that does parse has a canonical form that parses to
 * the same canonical form again (so a stored canonical schema is always readable).
 */
class CorruptSchemaTextTest {
    private static final String AVRO =
            "{\"type\":\"record\",\"name\":\"O\",\"namespace\":\"s\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
                    + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},"
                    + "{\"name\":\"e\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}],\"default\":null},"
                    + "{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}}]}";
    private static final String JSON =
            "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\",\"properties\":{"
                    + "\"a\":{\"type\":\"integer\",\"minimum\":0},\"b\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/definitions/x\"}}},"
                    + "\"definitions\":{\"x\":{\"type\":\"string\",\"maxLength\":4}},\"required\":[\"a\"],\"additionalProperties\":false}";
    private static final String PROTO =
            "syntax = \"proto3\";\npackage s;\nimport \"google/protobuf/timestamp.proto\";\n"
                    + "message O { int64 id = 1; map<string, int32> m = 2; oneof p { string a = 3; bytes b = 4; }\n"
                    + "  optional double x = 5; google.protobuf.Timestamp t = 6; E e = 7; message N { repeated N n = 1; } }\n"
                    + "enum E { Z = 0; ONE = 1; }\n";

    @Test
    void corruptTextIsRefusedAs42201AndNothingElse() {
        Property.forAll(
                600,
                random -> {
                    SchemaType type = SchemaType.values()[random.nextInt(3)];
                    String base =
                            switch (type) {
                                case AVRO -> AVRO;
                                case JSON -> JSON;
                                case PROTOBUF -> PROTO;
                            };
                    String text = corrupt(base, random);
                    try {
                        ParsedSchema parsed =
                                SchemaFormats.parse(
                                        type, text, List.of(), null, random.nextBoolean());
                        ParsedSchema again =
                                SchemaFormats.parse(
                                        type, parsed.canonical(), List.of(), null, false);
                        assertThat(again.canonical())
                                .as("canonical of canonical")
                                .isEqualTo(parsed.canonical());
                    } catch (SchemaRegistryException e) {
                        assertThat(e.errorCode()).as(text).isEqualTo(42201);
                    }
                });
    }

    @Test
    void theUncorruptedSchemasParse() {
        SchemaFormats.parse(SchemaType.AVRO, AVRO, List.of(), null, false);
        SchemaFormats.parse(SchemaType.JSON, JSON, List.of(), null, false);
        SchemaFormats.parse(SchemaType.PROTOBUF, PROTO, List.of(), null, false);
    }

    private static String corrupt(String text, Random random) {
        StringBuilder out = new StringBuilder(text);
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits && out.length() > 1; i++) {
            int at = random.nextInt(out.length());
            switch (random.nextInt(4)) {
                case 0 -> out.setLength(at); // truncated
                case 1 -> out.setCharAt(at, "{}[]\":,;=<>0a \\".charAt(random.nextInt(15)));
                case 2 -> out.deleteCharAt(at);
                default -> {
                    int from = random.nextInt(out.length());
                    int len = Math.min(1 + random.nextInt(12), out.length() - from);
                    out.insert(at, out.substring(from, from + len)); // a piece spliced in elsewhere
                }
            }
        }
        return out.toString();
    }
}

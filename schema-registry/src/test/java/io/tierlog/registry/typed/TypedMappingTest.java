package io.tierlog.registry.typed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TypedMappingTest {
    static final String ORDER_V1 =
            """
            {"type":"record","name":"Order","namespace":"shop","fields":[
              {"name":"id","type":"long"},
              {"name":"amount","type":"int"},
              {"name":"price","type":"float"},
              {"name":"customer","type":{"type":"record","name":"Customer","fields":[
                 {"name":"name","type":"string"},
                 {"name":"nothing","type":"null"}]}},
              {"name":"tags","type":{"type":"array","items":"string"}},
              {"name":"attrs","type":{"type":"map","values":["null","long"]}},
              {"name":"note","type":["null","string"],"default":null},
              {"name":"choice","type":["null","int","string"],"default":null}]}
            """;

    static Map<String, Integer> ids(List<String> paths, int from) {
        Map<String, Integer> ids = new HashMap<>();
        for (String p : paths) {
            ids.put(p, from++);
        }
        return ids;
    }

    @Test
    void avroPathsArePreOrderWithListMapAndUnionMembers() {
        assertEquals(
                List.of(
                        "id",
                        "amount",
                        "price",
                        "customer",
                        "customer.name",
                        "tags",
                        "tags.element",
                        "attrs",
                        "attrs.key",
                        "attrs.value",
                        "note",
                        "choice",
                        "choice.member0",
                        "choice.member1"),
                TypedMapping.fieldPaths(TestSchemas.avro(ORDER_V1)));
    }

    @Test
    void schemasWithoutATypedViewHaveNoPaths() {
        assertEquals(List.of(), TypedMapping.fieldPaths(TestSchemas.avro("\"string\"")));
        assertEquals(
                List.of(),
                TypedMapping.fieldPaths(
                        TestSchemas.avro(
                                "{\"type\":\"record\",\"name\":\"E\",\"fields\":[{\"name\":\"n\",\"type\":\"null\"}]}")));
        assertEquals(List.of(), TypedMapping.fieldPaths(TestSchemas.json("{\"type\":\"string\"}")));
    }

    @Test
    void recursiveAvroRecordsStopAtTheFirstRepeat() {
        String node =
                """
                {"type":"record","name":"Node","fields":[
                  {"name":"value","type":"int"},
                  {"name":"next","type":["null","Node"],"default":null}]}
                """;
        assertEquals(List.of("value"), TypedMapping.fieldPaths(TestSchemas.avro(node)));
    }

    @Test
    void jsonPathsFollowPropertiesRefsAndNullableTypes() {
        String schema =
                """
                {"type":"object","properties":{
                   "id":{"type":"integer"},
                   "amount":{"type":["number","null"]},
                   "customer":{"$ref":"#/definitions/Customer"},
                   "tags":{"type":"array","items":{"type":"string"}},
                   "a.b":{"type":"boolean"},
                   "odd":{"type":["string","integer"]},
                   "ext":{"$ref":"other.json"}},
                 "definitions":{"Customer":{"type":"object","properties":{"name":{"type":"string"}}}}}
                """;
        assertEquals(
                List.of(
                        "id",
                        "amount",
                        "customer",
                        "customer.name",
                        "tags",
                        "tags.element",
                        "a\\.b",
                        "ext",
                        "ext.x"),
                TypedMapping.fieldPaths(
                        TestSchemas.json(
                                schema,
                                Map.of(
                                        "other.json",
                                        "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}}}"))));
    }

    @Test
    void mergeWidensIntToLongAndFloatToDoubleAndKeepsRemovedFields() {
        String v1 =
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
                        + "{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"gone\",\"type\":\"string\"}]}";
        String v2 =
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"},"
                        + "{\"name\":\"f\",\"type\":\"double\"},{\"name\":\"added\",\"type\":\"string\",\"default\":\"\"}]}";
        TypedType.Struct s =
                TypedMapping.struct(
                                List.of(
                                        new TypedMapping.Version(
                                                TestSchemas.avro(v1),
                                                Map.of("a", 1, "f", 2, "gone", 3)),
                                        new TypedMapping.Version(
                                                TestSchemas.avro(v2),
                                                Map.of("a", 1, "f", 2, "added", 4))),
                                1000)
                        .orElseThrow();
        assertEquals(
                List.of(
                        new TypedType.Field(1001, "a", new TypedType.Primitive(Kind.LONG), true),
                        new TypedType.Field(1002, "f", new TypedType.Primitive(Kind.DOUBLE), true),
                        new TypedType.Field(
                                1003, "gone", new TypedType.Primitive(Kind.STRING), true),
                        new TypedType.Field(
                                1004, "added", new TypedType.Primitive(Kind.STRING), true)),
                s.fields());
    }

    @Test
    void aReAddedFieldWithANewIdDoesNotCollideByName() {
        String with =
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"x\",\"type\":\"int\"}]}";
        String without =
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";
        TypedType.Struct s =
                TypedMapping.struct(
                                List.of(
                                        new TypedMapping.Version(
                                                TestSchemas.avro(with), Map.of("a", 1, "x", 2)),
                                        new TypedMapping.Version(
                                                TestSchemas.avro(without), Map.of("a", 1)),
                                        new TypedMapping.Version(
                                                TestSchemas.avro(with), Map.of("a", 1, "x", 3))),
                                0)
                        .orElseThrow();
        assertEquals(
                List.of("a", "x_2", "x"), s.fields().stream().map(TypedType.Field::name).toList());
        assertEquals(List.of(1, 2, 3), s.fields().stream().map(TypedType.Field::id).toList());
        assertTrue(s.fields().stream().allMatch(TypedType.Field::optional));
    }
}

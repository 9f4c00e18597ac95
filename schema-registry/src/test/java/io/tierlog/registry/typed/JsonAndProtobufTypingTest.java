package io.tierlog.registry.typed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.WireFormat;
import io.tierlog.registry.format.ProtobufParsedSchema;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonAndProtobufTypingTest {
    static final String JSON_V1 =
            """
            {"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{
               "id":{"type":"integer"},
               "amount":{"type":"number"},
               "name":{"type":["string","null"]},
               "paid":{"type":"boolean"},
               "tags":{"type":"array","items":{"type":"string"}},
               "customer":{"type":"object","properties":{"city":{"type":"string"}}}}}
            """;

    static byte[] json(int id, String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(WireFormat.header(id, null));
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    @Test
    void jsonDecodesDeclaredPropertiesByTheSchemaAndIgnoresOthers() {
        MemoryRegistry registry = new MemoryRegistry();
        int id = registry.register("j-value", SchemaType.JSON, JSON_V1);
        ValueTyper typer =
                RegistryValueTyper.forSubject(registry, "j-value", 0, true).orElseThrow();
        assertEquals(
                List.of(Kind.LONG, Kind.DOUBLE, Kind.STRING, Kind.BOOLEAN),
                typer.struct().fields().subList(0, 4).stream()
                        .map(f -> ((TypedType.Primitive) f.type()).kind())
                        .toList());
        ValueTyper.Typed t =
                typer.type(
                        ByteBuffer.wrap(
                                json(
                                        id,
                                        "{\"id\":9007199254740993,\"amount\":12,\"name\":null,\"paid\":true,"
                                                + "\"tags\":[\"x\",\"y\"],\"customer\":{\"city\":\"Oslo\",\"zip\":1},\"extra\":[1]}")));
        assertNull(t.error(), t.error());
        assertEquals(9007199254740993L, t.row()[0], "integers are exact longs, not doubles");
        assertEquals(12.0, t.row()[1]);
        assertNull(t.row()[2]);
        assertEquals(true, t.row()[3]);
        assertEquals(List.of("x", "y"), t.row()[4]);
        assertArrayEquals(new Object[] {"Oslo"}, (Object[]) t.row()[5]);
        assertFalse(t.rebuildable(), "only Avro is stored once");

        ValueTyper.Typed absent = typer.type(ByteBuffer.wrap(json(id, "{\"id\":1.0}")));
        assertNull(absent.error(), absent.error());
        assertEquals(Arrays.asList(1L, null, null, null, null, null), Arrays.asList(absent.row()));
    }

    @Test
    void jsonValuesOfTheWrongTypeFailTheRecordSayingWhere() {
        MemoryRegistry registry = new MemoryRegistry();
        int id = registry.register("j-value", SchemaType.JSON, JSON_V1);
        ValueTyper typer =
                RegistryValueTyper.forSubject(registry, "j-value", 0, true).orElseThrow();
        ValueTyper.Typed wrong =
                typer.type(ByteBuffer.wrap(json(id, "{\"customer\":{\"city\":5}}")));
        assertEquals("decode", wrong.reason());
        assertTrue(wrong.error().contains("customer.city: expected string"), wrong.error());
        assertEquals("decode", typer.type(ByteBuffer.wrap(json(id, "{\"id\":1.5}"))).reason());
        assertEquals("decode", typer.type(ByteBuffer.wrap(json(id, "{\"id\":"))).reason());
        assertEquals("decode", typer.type(ByteBuffer.wrap(json(id, "[1]"))).reason());
    }

    @Test
    void jsonVersionsMergeByFieldId() {
        MemoryRegistry registry = new MemoryRegistry();
        int v1 = registry.register("j-value", SchemaType.JSON, JSON_V1);
        int v2 =
                registry.register(
                        "j-value",
                        SchemaType.JSON,
                        "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"region\":{\"type\":\"string\"}}}");
        ValueTyper typer =
                RegistryValueTyper.forSubject(registry, "j-value", 0, true).orElseThrow();
        List<String> names = typer.struct().fields().stream().map(TypedType.Field::name).toList();
        assertEquals(List.of("id", "amount", "name", "paid", "tags", "customer", "region"), names);
        Object[] r1 = typer.type(ByteBuffer.wrap(json(v1, "{\"id\":1,\"paid\":false}"))).row();
        Object[] r2 = typer.type(ByteBuffer.wrap(json(v2, "{\"id\":2,\"region\":\"eu\"}"))).row();
        assertEquals(Arrays.asList(1L, null, null, false, null, null, null), Arrays.asList(r1));
        assertEquals(Arrays.asList(2L, null, null, null, null, null, "eu"), Arrays.asList(r2));
    }

    static final String PROTO =
            """
            syntax = "proto3";
            package shop;
            import "google/protobuf/timestamp.proto";
            message Item { string sku = 1; int32 qty = 2; }
            message Order {
              int64 id = 1;
              uint32 count = 2;
              optional string note = 3;
              repeated Item items = 4;
              map<string, int64> attrs = 5;
              Status status = 6;
              google.protobuf.Timestamp at = 7;
              oneof pay { string card = 8; bool cash = 9; }
              enum Status { NEW = 0; PAID = 1; }
            }
            """;

    @Test
    void protobufDecodesTheSubjectsMessageNamedByItsIndexes() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        int id = registry.register("p-value", SchemaType.PROTOBUF, PROTO);
        ProtobufParsedSchema schema = (ProtobufParsedSchema) registry.parsed(id).orElseThrow();
        assertEquals(
                List.of(
                        "id",
                        "count",
                        "note",
                        "items",
                        "items.element",
                        "items.element.sku",
                        "items.element.qty",
                        "attrs",
                        "attrs.key",
                        "attrs.value",
                        "status",
                        "at",
                        "card",
                        "cash"),
                TypedMapping.fieldPaths(schema),
                "the typed message is Order, the one no other message uses");
        Descriptor order = schema.message(List.of(1));
        Descriptor item = schema.message(List.of(0));
        DynamicMessage msg =
                DynamicMessage.newBuilder(order)
                        .setField(order.findFieldByName("id"), 7L)
                        .setField(order.findFieldByName("count"), -1) // uint32 max
                        .addRepeatedField(
                                order.findFieldByName("items"),
                                DynamicMessage.newBuilder(item)
                                        .setField(item.findFieldByName("sku"), "A1")
                                        .setField(item.findFieldByName("qty"), 3)
                                        .build())
                        .setField(
                                order.findFieldByName("status"),
                                order.findEnumTypeByName("Status").findValueByName("PAID"))
                        .setField(
                                order.findFieldByName("at"),
                                DynamicMessage.newBuilder(
                                                order.findFieldByName("at").getMessageType())
                                        .mergeFrom(
                                                Timestamp.newBuilder()
                                                        .setSeconds(1_700_000_000L)
                                                        .setNanos(123_456_789)
                                                        .build()
                                                        .toByteString())
                                        .build())
                        .setField(order.findFieldByName("cash"), true)
                        .build();
        DynamicMessage withAttrs = addAttr(msg, order, "k", 5L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(WireFormat.header(id, List.of(1)));
        out.writeBytes(withAttrs.toByteArray());

        ValueTyper typer =
                RegistryValueTyper.forSubject(registry, "p-value", 0, true).orElseThrow();
        ValueTyper.Typed t = typer.type(ByteBuffer.wrap(out.toByteArray()));
        assertNull(t.error(), t.error());
        Object[] row = t.row();
        assertEquals(7L, row[0]);
        assertEquals(4294967295L, row[1], "uint32 is its unsigned value");
        assertNull(row[2], "an unset optional field is null");
        assertEquals(1, ((List<?>) row[3]).size());
        assertArrayEquals(new Object[] {"A1", 3}, (Object[]) ((List<?>) row[3]).get(0));
        assertEquals(Map.of("k", 5L), row[4]);
        assertEquals("PAID", row[5]);
        assertEquals(1_700_000_000_123_456L, row[6]);
        assertNull(row[7], "the unset oneof member");
        assertEquals(true, row[8]);
        assertFalse(t.rebuildable());

        // Item (indexes [0]) is not the subject's typed message
        ByteArrayOutputStream itemOut = new ByteArrayOutputStream();
        itemOut.writeBytes(WireFormat.header(id, List.of(0)));
        ValueTyper.Typed wrong = typer.type(ByteBuffer.wrap(itemOut.toByteArray()));
        assertEquals("decode", wrong.reason());
        assertTrue(wrong.error().contains("shop.Item"), wrong.error());
        // corrupt message indexes and a corrupt body
        assertEquals(
                "decode",
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) id, 9})).reason());
        assertEquals(
                "decode",
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) id, 2, 2, 8})).reason());
    }

    private static DynamicMessage addAttr(DynamicMessage msg, Descriptor order, String k, long v) {
        Descriptor entry = order.findFieldByName("attrs").getMessageType();
        return msg.toBuilder()
                .addRepeatedField(
                        order.findFieldByName("attrs"),
                        DynamicMessage.newBuilder(entry)
                                .setField(entry.findFieldByName("key"), k)
                                .setField(entry.findFieldByName("value"), v)
                                .build())
                .build();
    }
}

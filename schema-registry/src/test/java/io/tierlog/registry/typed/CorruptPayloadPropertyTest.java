package io.tierlog.registry.typed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.testing.Property;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.WireFormat;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Corrupt input (truncated, bytes flipped, garbage) of every format: the typer never throws and
 * never allocates by a corrupt length, a failure has a reason, and a payload it marks rebuildable
 * is rebuilt to exactly its (corrupt but decodable) bytes, so one copy never changes a value.
 */
class CorruptPayloadPropertyTest {
    static final String AVRO =
            """
            {"type":"record","name":"C","fields":[
              {"name":"s","type":"string"},
              {"name":"n","type":["null","long"]},
              {"name":"xs","type":{"type":"array","items":"int"}},
              {"name":"m","type":{"type":"map","values":"bytes"}},
              {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}]}
            """;

    @Test
    void corruptPayloadsFailWithAReasonOrRebuildToThemselves() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        int avro = registry.register("c-value", SchemaType.AVRO, AVRO);
        int json =
                registry.register(
                        "c-value",
                        SchemaType.JSON,
                        "{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}}}");
        int proto =
                registry.register(
                        "c-value",
                        SchemaType.PROTOBUF,
                        "syntax = \"proto3\"; message P { string s = 1; repeated int64 n = 2; map<string, bytes> m = 3; }");
        Schema schema = AvroTypingTest.schemaOf(registry, avro);
        GenericRecord r = new GenericData.Record(schema);
        r.put("s", "hello");
        r.put("n", 1234567L);
        r.put("xs", List.of(1, -2, 300000));
        r.put("m", java.util.Map.of("k", ByteBuffer.wrap(new byte[] {1, 2, 3})));
        r.put("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "B"));
        byte[] avroBytes = AvroTypingTest.encode(avro, schema, r);
        byte[] jsonBytes =
                concat(
                        WireFormat.header(json, null),
                        "{\"s\":\"x\",\"n\":5}".getBytes(StandardCharsets.UTF_8));
        byte[] protoBytes =
                concat(
                        WireFormat.header(proto, List.of(0)),
                        new byte[] {10, 2, 'h', 'i', 18, 2, 5, 7, 26, 6, 10, 1, 'k', 18, 1, 9});
        ValueTyper typer =
                RegistryValueTyper.forSubject(registry, "c-value", 0, true).orElseThrow();
        ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
        for (byte[] valid : List.of(avroBytes, jsonBytes, protoBytes)) {
            assertNull(typer.type(ByteBuffer.wrap(valid)).error(), "the valid payloads decode");
        }
        ValueTyper.Typed huge =
                typer.type(
                        ByteBuffer.wrap(
                                concat(
                                        WireFormat.header(avro, null),
                                        new byte[] {
                                            (byte) 0x80,
                                            (byte) 0xd0,
                                            (byte) 0xac,
                                            (byte) 0xf3,
                                            (byte) 0x0e,
                                            1
                                        })));
        assertEquals("decode", huge.reason());
        assertTrue(
                huge.error().contains("corrupt length: 2000000000"),
                "refused before allocating: " + huge.error());
        Property.forAll(
                2000,
                random -> {
                    byte[] valid = List.of(avroBytes, jsonBytes, protoBytes).get(random.nextInt(3));
                    byte[] bad = corrupt(random, valid);
                    ValueTyper.Typed t = typer.type(ByteBuffer.wrap(bad));
                    if (t.error() != null) {
                        assertNotNull(t.reason());
                        assertNull(t.row());
                        assertEquals(false, t.rebuildable());
                    } else if (t.rebuildable()) {
                        assertArrayEquals(
                                bad, rebuilder.rebuild(t.schemaId(), typer.struct(), t.row()));
                    }
                });
    }

    private static byte[] corrupt(Random random, byte[] valid) {
        byte[] b = valid.clone();
        switch (random.nextInt(4)) {
            case 0:
                return java.util.Arrays.copyOf(b, random.nextInt(b.length));
            case 1:
                for (int i = 0; i < 1 + random.nextInt(3); i++) {
                    // keep the header mostly, so the body's decoder is what gets exercised
                    int at =
                            random.nextInt(4) == 0
                                    ? random.nextInt(b.length)
                                    : 5 + random.nextInt(b.length - 5);
                    b[at] = (byte) random.nextInt(256);
                }
                return b;
            case 2:
                {
                    byte[] garbage = new byte[random.nextInt(40)];
                    random.nextBytes(garbage);
                    return concat(java.util.Arrays.copyOf(b, 5), garbage);
                }
            default:
                {
                    // a length or count of 2,000,000,000 right after the header: allocating by
                    // it would take 2 GB (Avro's own limit is higher)
                    return concat(
                            java.util.Arrays.copyOf(b, 5),
                            new byte[] {
                                (byte) 0x80, (byte) 0xd0, (byte) 0xac, (byte) 0xf3, (byte) 0x0e, 1
                            });
                }
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

package io.tierlog.registry.typed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.WireFormat;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class AvroTypingTest {
    static final String SUBJECT = "orders-value";

    static byte[] encode(int id, Schema schema, Object datum) throws Exception {
        GenericData data = new GenericData();
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(WireFormat.header(id, null));
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<Object>(schema, data).write(datum, enc);
        enc.flush();
        return out.toByteArray();
    }

    static Schema schemaOf(MemoryRegistry registry, int id) {
        return ((io.tierlog.registry.format.AvroParsedSchema) registry.parsed(id).orElseThrow())
                .avro();
    }

    static int index(TypedType.Struct s, String name) {
        for (int i = 0; i < s.fields().size(); i++) {
            if (s.fields().get(i).name().equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no field " + name + " in " + s);
    }

    @Test
    void decodesEveryKindAndRebuildsTheExactBytes() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        int id = registry.register(SUBJECT, SchemaType.AVRO, TypedMappingTest.ORDER_V1);
        Schema schema = schemaOf(registry, id);
        GenericRecord customer = new GenericData.Record(schema.getField("customer").schema());
        customer.put("name", "Ada");
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", 42L);
        r.put("amount", 7);
        r.put("price", 1.5f);
        r.put("customer", customer);
        r.put("tags", List.of("a", "b"));
        r.put("attrs", new java.util.LinkedHashMap<>(Map.of("k", 5L)));
        r.put("note", null);
        r.put("choice", "two");
        byte[] bytes = encode(id, schema, r);

        ValueTyper typer =
                RegistryValueTyper.forSubject(
                                registry, SUBJECT, RegistryValueTyper.VALUE_FIELD_ID_BASE, true)
                        .orElseThrow();
        TypedType.Struct s = typer.struct();
        assertTrue(s.fields().stream().allMatch(f -> f.id() > 1_000_000 && f.optional()));
        ValueTyper.Typed t = typer.type(ByteBuffer.wrap(bytes));
        assertNull(t.error(), t.error());
        assertEquals(id, t.schemaId());
        Object[] row = t.row();
        assertEquals(42L, row[index(s, "id")]);
        assertEquals(7, row[index(s, "amount")]);
        assertEquals(1.5f, row[index(s, "price")]);
        assertArrayEquals(new Object[] {"Ada"}, (Object[]) row[index(s, "customer")]);
        assertEquals(List.of("a", "b"), row[index(s, "tags")]);
        assertEquals(Map.of("k", 5L), row[index(s, "attrs")]);
        assertNull(row[index(s, "note")]);
        assertArrayEquals(new Object[] {null, "two"}, (Object[]) row[index(s, "choice")]);
        assertTrue(t.rebuildable(), "canonical Avro is rebuildable");

        ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
        assertArrayEquals(bytes, rebuilder.rebuild(id, s, row));
        assertArrayEquals(
                bytes,
                rebuilder.rebuild(id, deepCopy(s), row),
                "a struct equal to the writer's (as read back from a file) rebuilds the same");
    }

    static TypedType.Struct deepCopy(TypedType.Struct s) {
        return new TypedType.Struct(List.copyOf(new java.util.ArrayList<>(s.fields())));
    }

    @Test
    void logicalTypesMapToDateTimestampMicrosAndDecimalText() throws Exception {
        String text =
                """
                {"type":"record","name":"L","fields":[
                  {"name":"day","type":{"type":"int","logicalType":"date"}},
                  {"name":"ms","type":{"type":"long","logicalType":"timestamp-millis"}},
                  {"name":"us","type":{"type":"long","logicalType":"timestamp-micros"}},
                  {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
                  {"name":"big","type":{"type":"fixed","name":"F","size":8,"logicalType":"decimal","precision":12,"scale":3}},
                  {"name":"uid","type":{"type":"string","logicalType":"uuid"}}]}
                """;
        MemoryRegistry registry = new MemoryRegistry();
        int id = registry.register(SUBJECT, SchemaType.AVRO, text);
        Schema schema = schemaOf(registry, id);
        GenericRecord r = new GenericData.Record(schema);
        r.put("day", 19_000);
        r.put("ms", 1_700_000_000_123L);
        r.put("us", 1_700_000_000_123_456L);
        r.put("price", new BigDecimal("-12.30"));
        r.put("big", new BigDecimal("123456.789"));
        r.put("uid", "0b6f3f7e-8a5c-4f1e-9a49-3d1c5b0f9e21");
        GenericData data = new GenericData();
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        // fixed decimals need the conversion's fixed form
        r.put(
                "big",
                new Conversions.DecimalConversion()
                        .toFixed(
                                new BigDecimal("123456.789"),
                                schema.getField("big").schema(),
                                schema.getField("big").schema().getLogicalType()));
        byte[] bytes = encode(id, schema, r);
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();
        TypedType.Struct s = typer.struct();
        assertEquals(
                List.of(
                        "DATE",
                        "TIMESTAMP_MICROS",
                        "TIMESTAMP_MICROS",
                        "STRING",
                        "STRING",
                        "STRING"),
                s.fields().stream()
                        .map(f -> ((TypedType.Primitive) f.type()).kind().name())
                        .toList());
        ValueTyper.Typed t = typer.type(ByteBuffer.wrap(bytes));
        assertNull(t.error(), t.error());
        assertEquals(
                Arrays.asList(
                        19_000,
                        1_700_000_000_123_000L,
                        1_700_000_000_123_456L,
                        "-12.30",
                        "123456.789",
                        "0b6f3f7e-8a5c-4f1e-9a49-3d1c5b0f9e21"),
                Arrays.asList(t.row()));
        assertTrue(t.rebuildable());
        assertArrayEquals(bytes, RegistryValueTyper.rebuilder(registry).rebuild(id, s, t.row()));
    }

    @Test
    void nonCanonicalEncodingsDecodeButAreNotRebuildable() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        int id =
                registry.register(
                        SUBJECT,
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"xs\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}]}");
        // [1, 2] as two blocks of one item (legal Avro, not what Avro's writers produce)
        byte[] twoBlocks = {0, 0, 0, 0, (byte) id, 2, 2, 2, 4, 0};
        // [1, 2] as one block: the canonical form
        byte[] oneBlock = {0, 0, 0, 0, (byte) id, 4, 2, 4, 0};
        // a trailing byte after the record
        byte[] trailing = {0, 0, 0, 0, (byte) id, 4, 2, 4, 0, 9};
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();
        for (byte[] b : List.of(twoBlocks, trailing)) {
            ValueTyper.Typed t = typer.type(ByteBuffer.wrap(b));
            assertNull(t.error());
            assertEquals(List.of(1, 2), t.row()[0]);
            assertFalse(t.rebuildable(), "rebuilding would change the bytes");
        }
        assertTrue(typer.type(ByteBuffer.wrap(oneBlock)).rebuildable());
        ValueTyper unverified =
                RegistryValueTyper.forSubject(registry, SUBJECT, 0, false).orElseThrow();
        assertFalse(
                unverified.type(ByteBuffer.wrap(oneBlock)).rebuildable(), "not asked to verify");
    }

    @Test
    void aPayloadInTheMiddleOfABufferIsTypedFromItsPosition() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        int id =
                registry.register(
                        SUBJECT,
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}");
        byte[] payload = {0, 0, 0, 0, (byte) id, 4, 'h', 'i'};
        byte[] framed = new byte[payload.length + 6];
        System.arraycopy(payload, 0, framed, 3, payload.length);
        ByteBuffer buf = ByteBuffer.wrap(framed, 3, payload.length);
        ValueTyper.Typed t =
                RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow().type(buf);
        assertEquals("hi", t.row()[0]);
        assertTrue(t.rebuildable());
        assertEquals(3, buf.position(), "the typer does not move the buffer");
    }

    @Test
    void versionsMergeByFieldIdAndOldPayloadsRebuildThroughTheWidenedStruct() throws Exception {
        String v1 =
                "{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"n\",\"type\":\"int\"},"
                        + "{\"name\":\"f\",\"type\":\"float\"},{\"name\":\"old\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
        String v2 =
                "{\"type\":\"record\",\"name\":\"O\",\"fields\":[{\"name\":\"n\",\"type\":\"long\"},"
                        + "{\"name\":\"f\",\"type\":\"double\"},{\"name\":\"added\",\"type\":\"string\",\"default\":\"x\"}]}";
        MemoryRegistry registry = new MemoryRegistry();
        int id1 = registry.register(SUBJECT, SchemaType.AVRO, v1);
        int id2 = registry.register(SUBJECT, SchemaType.AVRO, v2);
        GenericRecord r1 = new GenericData.Record(schemaOf(registry, id1));
        r1.put("n", 5);
        r1.put("f", 0.25f);
        r1.put("old", "was");
        GenericRecord r2 = new GenericData.Record(schemaOf(registry, id2));
        r2.put("n", 1L << 40);
        r2.put("f", 0.1);
        r2.put("added", "new");
        byte[] b1 = encode(id1, schemaOf(registry, id1), r1);
        byte[] b2 = encode(id2, schemaOf(registry, id2), r2);
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();
        TypedType.Struct s = typer.struct();
        assertEquals(
                List.of("n", "f", "old", "added"),
                s.fields().stream().map(TypedType.Field::name).toList());
        ValueTyper.Typed t1 = typer.type(ByteBuffer.wrap(b1));
        ValueTyper.Typed t2 = typer.type(ByteBuffer.wrap(b2));
        assertEquals(Arrays.asList(5L, 0.25d, "was", null), Arrays.asList(t1.row()));
        assertEquals(Arrays.asList(1L << 40, 0.1d, null, "new"), Arrays.asList(t2.row()));
        assertTrue(t1.rebuildable() && t2.rebuildable());
        ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
        assertArrayEquals(b1, rebuilder.rebuild(id1, s, t1.row()));
        assertArrayEquals(b2, rebuilder.rebuild(id2, s, t2.row()));
    }

    @Test
    void failuresComeBackWithTheirReasonNeverThrown() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        String text =
                "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}";
        int mine = registry.register(SUBJECT, SchemaType.AVRO, text);
        int other =
                registry.register("other-value", SchemaType.AVRO, text.replace("\"A\"", "\"B\""));
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();

        ValueTyper.Typed noHeader =
                typer.type(ByteBuffer.wrap("{\"s\":1}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("no-header", noHeader.reason());
        assertEquals(-1, noHeader.schemaId());
        assertEquals("no-header", typer.type(ByteBuffer.allocate(0)).reason());

        ValueTyper.Typed unknown = typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 99, 0}));
        assertEquals("unknown-id", unknown.reason());
        assertEquals(99, unknown.schemaId());

        ValueTyper.Typed foreign =
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) other, 2, 'x'}));
        assertEquals("not-in-subject", foreign.reason());
        assertTrue(foreign.error().contains(SUBJECT), foreign.error());

        // string length 50 with one byte of data: truncated
        ValueTyper.Typed truncated =
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) mine, 100, 'x'}));
        assertEquals("decode", truncated.reason());
        assertNull(truncated.row());
        assertFalse(truncated.rebuildable());

        // a negative length
        assertEquals(
                "decode",
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) mine, 1})).reason());
        // the typer keeps working after failures
        assertNull(
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) mine, 2, 'x'})).error());
    }

    @Test
    void aSchemaRegisteredAfterTheTyperWasMadeStillDecodes() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        registry.register(
                SUBJECT,
                SchemaType.AVRO,
                "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}");
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();
        int later =
                registry.register(
                        SUBJECT,
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"},"
                                + "{\"name\":\"n\",\"type\":\"int\",\"default\":0}]}");
        ValueTyper.Typed t =
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, (byte) later, 2, 'x', 6}));
        assertNull(t.error(), t.error());
        assertArrayEquals(new Object[] {"x"}, t.row());
        assertFalse(t.rebuildable(), "the object's struct has no column for n");
    }

    @Test
    void theRebuilderRefusesRowsThatDoNotFit() throws Exception {
        MemoryRegistry registry = new MemoryRegistry();
        int id =
                registry.register(
                        SUBJECT,
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}");
        TypedType.Struct s =
                RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow().struct();
        ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
        assertThrows(
                IllegalStateException.class, () -> rebuilder.rebuild(id, s, new Object[] {null}));
        assertThrows(
                IllegalStateException.class, () -> rebuilder.rebuild(77, s, new Object[] {"x"}));
    }
}

package io.tierlog.registry.typed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.catalog.Catalog;
import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.CatalogSchemaRegistry;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.AvroParsedSchema;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typer over the real registry on a real SQLite catalog: field ids come from registration, so
 * the struct follows a subject's evolution (promotion, added field with default, removed field,
 * re-added field with a new id), and payloads of every version decode into it and rebuild exactly.
 */
class CatalogRegistryTypingTest {
    static final String SUBJECT = "orders-value";

    @TempDir Path dir;
    Catalog catalog;
    CatalogSchemaRegistry registry;

    @BeforeEach
    void open() {
        catalog = Catalog.open("jdbc:sqlite:" + dir.resolve("catalog.db"));
        registry = CatalogSchemaRegistry.open(catalog);
        // compatibility rules are the formats slice's; here every change is allowed
        registry.putConfig(SUBJECT, "NONE", null);
    }

    @AfterEach
    void close() {
        registry.close();
        catalog.close();
    }

    int register(String fields) {
        return registry.register(
                        SUBJECT,
                        SchemaType.AVRO,
                        "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[" + fields + "]}",
                        List.of(),
                        false)
                .id();
    }

    GenericRecord record(int id, Object... values) {
        Schema s = ((AvroParsedSchema) registry.parsed(id).orElseThrow()).avro();
        GenericRecord r = new GenericData.Record(s);
        for (int i = 0; i < values.length; i++) {
            r.put(i, values[i]);
        }
        return r;
    }

    byte[] encode(int id, GenericRecord r) throws Exception {
        return AvroTypingTest.encode(id, r.getSchema(), r);
    }

    @Test
    void fourVersionsReadTogetherByFieldIdAndRebuildExactly() throws Exception {
        int v1 =
                register(
                        "{\"name\":\"amount\",\"type\":\"int\"},{\"name\":\"note\",\"type\":\"string\"}");
        int v2 =
                register(
                        "{\"name\":\"amount\",\"type\":\"long\"},{\"name\":\"note\",\"type\":\"string\"},"
                                + "{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}");
        int v3 =
                register(
                        "{\"name\":\"amount\",\"type\":\"long\"},"
                                + "{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}");
        int v4 =
                register(
                        "{\"name\":\"amount\",\"type\":\"long\"},"
                                + "{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"},"
                                + "{\"name\":\"note\",\"type\":\"string\",\"default\":\"\"}");
        byte[] b1 = encode(v1, record(v1, 5, "first"));
        byte[] b2 = encode(v2, record(v2, 6L, "second", "USD"));
        byte[] b3 = encode(v3, record(v3, 7L, "NOK"));
        byte[] b4 = encode(v4, record(v4, 8L, "SEK", "back"));

        ValueTyper typer =
                RegistryValueTyper.forSubject(
                                registry, SUBJECT, RegistryValueTyper.VALUE_FIELD_ID_BASE, true)
                        .orElseThrow();
        TypedType.Struct s = typer.struct();
        assertEquals(
                List.of("amount", "note_1000002", "currency", "note"),
                s.fields().stream().map(TypedType.Field::name).toList(),
                "note was removed in v3 and re-added in v4: two fields, the newest keeps the name");
        assertEquals(
                List.of(1_000_001, 1_000_002, 1_000_003, 1_000_004),
                s.fields().stream().map(TypedType.Field::id).toList());
        assertEquals(new TypedType.Primitive(TypedType.Kind.LONG), s.fields().get(0).type());

        ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
        List<byte[]> payloads = List.of(b1, b2, b3, b4);
        List<List<Object>> expected =
                List.of(
                        Arrays.asList(5L, "first", null, null),
                        Arrays.asList(6L, "second", "USD", null),
                        Arrays.asList(7L, null, "NOK", null),
                        Arrays.asList(8L, null, "SEK", "back"));
        for (int i = 0; i < payloads.size(); i++) {
            ValueTyper.Typed t = typer.type(ByteBuffer.wrap(payloads.get(i)));
            assertNull(t.error(), t.error());
            assertEquals(expected.get(i), Arrays.asList(t.row()), "version " + (i + 1));
            if (i < 2) {
                // v1 and v2 name "note", which the merged struct calls note_1000002: matched by
                // name, the rebuilder does not find it, so these rows keep their raw bytes
                assertEquals(false, t.rebuildable(), "version " + (i + 1));
            } else {
                assertTrue(t.rebuildable(), "version " + (i + 1));
                assertArrayEquals(payloads.get(i), rebuilder.rebuild(t.schemaId(), s, t.row()));
            }
        }
    }

    @Test
    void promotionAndAddedFieldRebuildEveryVersion() throws Exception {
        int v1 =
                register(
                        "{\"name\":\"amount\",\"type\":\"int\"},{\"name\":\"f\",\"type\":\"float\"}");
        int v2 =
                register(
                        "{\"name\":\"amount\",\"type\":\"long\"},{\"name\":\"f\",\"type\":\"double\"},"
                                + "{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}");
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();
        ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
        for (byte[] b :
                List.of(
                        encode(v1, record(v1, -3, 2.5f)),
                        encode(v2, record(v2, 1L << 33, 0.1, "USD")))) {
            ValueTyper.Typed t = typer.type(ByteBuffer.wrap(b));
            assertTrue(t.rebuildable(), String.valueOf(t.error()));
            assertArrayEquals(b, rebuilder.rebuild(t.schemaId(), typer.struct(), t.row()));
        }
    }

    @Test
    void softDeletedVersionsStillTypeAndOtherSubjectsDoNot() throws Exception {
        int v1 = register("{\"name\":\"amount\",\"type\":\"int\"}");
        register(
                "{\"name\":\"amount\",\"type\":\"int\"},{\"name\":\"x\",\"type\":\"int\",\"default\":0}");
        registry.deleteVersion(SUBJECT, "1", false);
        int foreign =
                registry.register(
                                "other-value",
                                SchemaType.AVRO,
                                "{\"type\":\"record\",\"name\":\"Other\",\"fields\":[{\"name\":\"y\",\"type\":\"int\"}]}",
                                List.of(),
                                false)
                        .id();
        ValueTyper typer = RegistryValueTyper.forSubject(registry, SUBJECT, 0, true).orElseThrow();
        ValueTyper.Typed old = typer.type(ByteBuffer.wrap(encode(v1, record(v1, 4))));
        assertNull(old.error(), old.error());
        assertEquals(4, old.row()[0]);
        ValueTyper.Typed other = typer.type(ByteBuffer.wrap(encode(foreign, record(foreign, 1))));
        assertEquals("not-in-subject", other.reason());
        assertEquals(
                "unknown-id",
                typer.type(ByteBuffer.wrap(new byte[] {0, 0, 0, 0x10, 0, 2})).reason());
    }
}

package io.tierlog.registry.typed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tierlog.common.testing.Property;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.common.typed.ValueTyper;
import io.tierlog.registry.SchemaType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.junit.jupiter.api.Test;

/**
 * Random Avro schemas (records, every primitive, enums, fixed, arrays, maps, nullable and
 * multi-branch unions, logical types) and random records written by Avro's own writer: the typer
 * decodes each, marks it rebuildable, and the rebuilder gives back the exact bytes.
 */
class AvroRoundTripPropertyTest {
    private int names;

    @Test
    void randomRecordsWrittenByAvroRebuildExactly() {
        Property.forAll(
                200,
                random -> {
                    names = 0;
                    Schema schema = record(random, 0);
                    MemoryRegistry registry = new MemoryRegistry();
                    int id = registry.register("t-value", SchemaType.AVRO, schema.toString());
                    Schema parsed = AvroTypingTest.schemaOf(registry, id);
                    ValueTyper typer =
                            RegistryValueTyper.forSubject(
                                            registry,
                                            "t-value",
                                            RegistryValueTyper.VALUE_FIELD_ID_BASE,
                                            true)
                                    .orElseThrow();
                    ValueRebuilder rebuilder = RegistryValueTyper.rebuilder(registry);
                    for (int i = 0; i < 5; i++) {
                        Object datum = datum(random, parsed);
                        byte[] bytes = AvroTypingTest.encode(id, parsed, datum);
                        ValueTyper.Typed t = typer.type(ByteBuffer.wrap(bytes));
                        assertNull(t.error(), () -> t.error() + "\nschema " + parsed);
                        assertEquals(id, t.schemaId());
                        assertTrue(
                                t.rebuildable(), () -> "not rebuildable: " + datum + "\n" + parsed);
                        assertArrayEquals(bytes, rebuilder.rebuild(id, typer.struct(), t.row()));
                    }
                });
    }

    private Schema record(Random r, int depth) {
        List<Schema.Field> fields = new ArrayList<>();
        // a primitive first, so that every record has a typed view
        fields.add(new Schema.Field("f0", primitive(r)));
        int n = 1 + r.nextInt(5);
        for (int i = 1; i < n; i++) {
            Schema s = r.nextInt(10) == 0 ? Schema.create(Schema.Type.NULL) : any(r, depth + 1);
            fields.add(new Schema.Field("f" + i, s));
        }
        return Schema.createRecord("R" + names++, null, "ns", false, fields);
    }

    private Schema any(Random r, int depth) {
        int choice = depth > 3 ? 0 : r.nextInt(10);
        switch (choice) {
            case 0, 1, 2, 3:
                return primitive(r);
            case 4:
                return Schema.createArray(any(r, depth + 1));
            case 5:
                return Schema.createMap(any(r, depth + 1));
            case 6:
                return Schema.createUnion(Schema.create(Schema.Type.NULL), nonUnion(r, depth + 1));
            case 7:
                return multiUnion(r, depth);
            default:
                return record(r, depth);
        }
    }

    private Schema nonUnion(Random r, int depth) {
        Schema s;
        do {
            s = any(r, depth);
        } while (s.getType() == Schema.Type.UNION);
        return s;
    }

    private Schema multiUnion(Random r, int depth) {
        List<Schema> branches = new ArrayList<>();
        if (r.nextBoolean()) {
            branches.add(Schema.create(Schema.Type.NULL));
        }
        List<Schema.Type> kinds =
                new ArrayList<>(
                        List.of(
                                Schema.Type.BOOLEAN,
                                Schema.Type.INT,
                                Schema.Type.LONG,
                                Schema.Type.FLOAT,
                                Schema.Type.DOUBLE,
                                Schema.Type.STRING,
                                Schema.Type.BYTES));
        java.util.Collections.shuffle(kinds, r);
        int n = 2 + r.nextInt(3);
        for (int i = 0; i < n && i < kinds.size(); i++) {
            branches.add(Schema.create(kinds.get(i)));
        }
        if (r.nextBoolean() && depth < 3) {
            branches.add(r.nextInt(branches.size() + 1), record(r, depth + 1));
        }
        return Schema.createUnion(branches);
    }

    private Schema primitive(Random r) {
        switch (r.nextInt(14)) {
            case 0:
                return Schema.create(Schema.Type.BOOLEAN);
            case 1:
                return Schema.create(Schema.Type.INT);
            case 2:
                return Schema.create(Schema.Type.LONG);
            case 3:
                return Schema.create(Schema.Type.FLOAT);
            case 4:
                return Schema.create(Schema.Type.DOUBLE);
            case 5:
                return Schema.create(Schema.Type.STRING);
            case 6:
                return Schema.create(Schema.Type.BYTES);
            case 7:
                return Schema.createEnum("E" + names++, null, "ns", List.of("A", "B", "C"));
            case 8:
                return Schema.createFixed("F" + names++, null, "ns", 1 + r.nextInt(6));
            case 9:
                return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
            case 10:
                return LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
            case 11:
                return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
            case 12:
                return LogicalTypes.decimal(18, r.nextInt(6))
                        .addToSchema(Schema.create(Schema.Type.BYTES));
            default:
                return LogicalTypes.decimal(9, r.nextInt(4))
                        .addToSchema(Schema.createFixed("D" + names++, null, "ns", 4));
        }
    }

    private static Object datum(Random r, Schema s) {
        switch (s.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return r.nextBoolean();
            case INT:
                return Property.between(r, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case LONG:
                if (s.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
                    // values whose microseconds fit a long
                    return r.nextLong() % (Long.MAX_VALUE / 1000);
                }
                return r.nextInt(4) == 0 ? (long) r.nextInt(300) - 150 : r.nextLong();
            case FLOAT:
                return r.nextInt(4) == 0
                        ? (float) r.nextInt(10)
                        : Float.intBitsToFloat(r.nextInt());
            case DOUBLE:
                return r.nextInt(4) == 0 ? r.nextDouble() : Double.longBitsToDouble(r.nextLong());
            case STRING:
                return string(r);
            case BYTES:
                if (s.getLogicalType() instanceof LogicalTypes.Decimal d) {
                    return new Conversions.DecimalConversion().toBytes(decimal(r, d), s, d);
                }
                return ByteBuffer.wrap(bytes(r, r.nextInt(8)));
            case ENUM:
                return new GenericData.EnumSymbol(s, s.getEnumSymbols().get(r.nextInt(3)));
            case FIXED:
                if (s.getLogicalType() instanceof LogicalTypes.Decimal d) {
                    return new Conversions.DecimalConversion().toFixed(decimal(r, d), s, d);
                }
                return new GenericData.Fixed(s, bytes(r, s.getFixedSize()));
            case ARRAY:
                {
                    List<Object> list = new ArrayList<>();
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        list.add(datum(r, s.getElementType()));
                    }
                    return list;
                }
            case MAP:
                {
                    Map<String, Object> map = new LinkedHashMap<>();
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        map.put(string(r), datum(r, s.getValueType()));
                    }
                    return map;
                }
            case UNION:
                return datum(r, s.getTypes().get(r.nextInt(s.getTypes().size())));
            case RECORD:
                {
                    GenericData.Record rec = new GenericData.Record(s);
                    for (Schema.Field f : s.getFields()) {
                        rec.put(f.pos(), datum(r, f.schema()));
                    }
                    return rec;
                }
            default:
                throw new IllegalStateException(s.toString());
        }
    }

    private static BigDecimal decimal(Random r, LogicalTypes.Decimal d) {
        BigInteger max = BigInteger.TEN.pow(d.getPrecision()).subtract(BigInteger.ONE);
        BigInteger unscaled = new BigInteger(max.bitLength() + 2, r).mod(max.add(BigInteger.ONE));
        return new BigDecimal(r.nextBoolean() ? unscaled : unscaled.negate(), d.getScale());
    }

    private static String string(Random r) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            int cp;
            do {
                cp = r.nextInt(4) == 0 ? r.nextInt(0x10FFFF) : 32 + r.nextInt(95);
            } while (cp >= 0xD800 && cp <= 0xDFFF);
            b.appendCodePoint(cp);
        }
        return b.toString();
    }

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}

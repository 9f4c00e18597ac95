package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.ValueRebuilder;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaRegistry;
import io.tierlog.registry.WireFormat;
import io.tierlog.registry.format.AvroParsedSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Rebuilds Avro payloads (header included) from typed rows: the row, in the struct the object was
 * written with, is matched to the writer schema's view by field name (names are unique per struct,
 * so this needs no subject; a field the merge renamed to {@code name_<id>} does not match, and a
 * row that needs it is not rebuilt), narrowed where the struct widened (LONG to INT, DOUBLE to
 * FLOAT), and written as Avro's own writers write it. The typer marks a payload rebuildable only
 * after this exact code gave its exact bytes. Thread-safe: plans are immutable and cached in a
 * concurrent map.
 */
final class AvroRebuilder implements ValueRebuilder {
    /** Plans kept before the cache is cleared (objects read at once times schemas in them). */
    private static final int MAX_PLANS = 1024;

    private final SchemaRegistry registry;
    private final Map<Key, Plan> plans = new ConcurrentHashMap<>();

    AvroRebuilder(SchemaRegistry registry) {
        this.registry = registry;
    }

    /** The writer schema's codec and the move of a row into its shape. */
    record Plan(int schemaId, AvroView.Node writer, Projector toWriter) {}

    /** Cache key: the struct by identity (one struct object per object read or written). */
    private record Key(int schemaId, Identity struct) {}

    private static final class Identity {
        final TypedType.Struct struct;

        Identity(TypedType.Struct struct) {
            this.struct = struct;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Identity i && i.struct == struct;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(struct);
        }
    }

    /**
     * @throws IllegalStateException when {@code schemaId} is unknown or not an Avro record
     */
    Plan plan(int schemaId, TypedType.Struct struct) {
        Key key = new Key(schemaId, new Identity(struct));
        Plan plan = plans.get(key);
        if (plan == null) {
            ParsedSchema parsed =
                    registry.parsed(schemaId)
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "cannot rebuild: schema "
                                                            + schemaId
                                                            + " is unknown"));
            if (!(parsed instanceof AvroParsedSchema avro)) {
                throw new IllegalStateException(
                        "cannot rebuild: schema " + schemaId + " is " + parsed.type());
            }
            AvroView.Node writer = AvroView.of(avro.avro(), new FieldIds.Recorder());
            if (writer == null) {
                throw new IllegalStateException(
                        "cannot rebuild: schema " + schemaId + " has no typed view");
            }
            plan = new Plan(schemaId, writer, Projector.compile(struct, writer.type, true));
            if (plans.size() >= MAX_PLANS) {
                plans.clear();
            }
            plans.put(key, plan);
        }
        return plan;
    }

    @Override
    public byte[] rebuild(int schemaId, TypedType.Struct struct, Object[] row) {
        return rebuild(plan(schemaId, struct), row);
    }

    static byte[] rebuild(Plan plan, Object[] row) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.writeBytes(WireFormat.header(plan.schemaId(), null));
        try {
            BinaryEncoder enc = EncoderFactory.get().directBinaryEncoder(out, null);
            plan.writer().write(plan.toWriter().apply(row), enc);
            enc.flush();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot rebuild a value of schema " + plan.schemaId() + ": " + e.getMessage(),
                    e);
        }
        return out.toByteArray();
    }
}

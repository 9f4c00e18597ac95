package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;

/**
 * The leaves of {@link AvroView}'s codec: primitives with their logical types, schemas left out of
 * the view (read past), and the bounds that refuse corrupt lengths and counts before allocating.
 * Immutable, so thread-safe.
 */
final class AvroLeaves {
    private AvroLeaves() {}

    static final class Prim extends AvroView.Node {
        private final Schema schema;
        private final Kind kind;
        private final long factor;
        private final int scale; // decimal only

        Prim(Schema schema, Kind kind, long factor) {
            super(new TypedType.Primitive(kind), false);
            this.schema = schema;
            this.kind = kind;
            this.factor = factor;
            this.scale =
                    schema.getLogicalType() instanceof LogicalTypes.Decimal d ? d.getScale() : 0;
        }

        @Override
        Object read(BinaryDecoder in, int max) throws IOException {
            switch (schema.getType()) {
                case BOOLEAN:
                    return in.readBoolean();
                case INT:
                    return in.readInt();
                case LONG:
                    long l = in.readLong();
                    return factor == 0 ? l : Math.multiplyExact(l, factor);
                case FLOAT:
                    return in.readFloat();
                case DOUBLE:
                    return in.readDouble();
                case STRING:
                    return string(in, max);
                case ENUM:
                    {
                        int i = in.readEnum();
                        if (i < 0 || i >= schema.getEnumSymbols().size()) {
                            throw new IOException("enum index " + i + " out of range");
                        }
                        return schema.getEnumSymbols().get(i);
                    }
                case BYTES:
                    {
                        byte[] b = new byte[length(in, max)];
                        in.readFixed(b);
                        return kind == Kind.STRING ? decimal(b) : b;
                    }
                case FIXED:
                    {
                        byte[] b = new byte[schema.getFixedSize()];
                        in.readFixed(b);
                        return kind == Kind.STRING ? decimal(b) : b;
                    }
                default:
                    throw new IllegalStateException(schema.getType().toString());
            }
        }

        private String decimal(byte[] unscaled) throws IOException {
            if (unscaled.length == 0) {
                throw new IOException("decimal with no bytes");
            }
            return new BigDecimal(new BigInteger(unscaled), scale).toPlainString();
        }

        @Override
        void write(Object v, BinaryEncoder out) throws IOException {
            if (v == null) {
                throw new IllegalStateException("null for a non-null " + schema.getType());
            }
            switch (schema.getType()) {
                case BOOLEAN -> out.writeBoolean((Boolean) v);
                case INT -> out.writeInt((Integer) v);
                case LONG -> {
                    long l = (Long) v;
                    if (factor != 0 && l % factor != 0) {
                        throw new IllegalStateException("not a whole millisecond: " + l);
                    }
                    out.writeLong(factor == 0 ? l : l / factor);
                }
                case FLOAT -> out.writeFloat((Float) v);
                case DOUBLE -> out.writeDouble((Double) v);
                case STRING -> out.writeString((String) v);
                case ENUM -> {
                    int i = schema.getEnumSymbols().indexOf((String) v);
                    if (i < 0) {
                        throw new IllegalStateException("no enum symbol " + v);
                    }
                    out.writeEnum(i);
                }
                case BYTES ->
                        out.writeBytes(kind == Kind.STRING ? unscaled((String) v, -1) : (byte[]) v);
                case FIXED -> {
                    byte[] b =
                            kind == Kind.STRING
                                    ? unscaled((String) v, schema.getFixedSize())
                                    : (byte[]) v;
                    if (b.length != schema.getFixedSize()) {
                        throw new IllegalStateException("fixed of " + b.length + " bytes");
                    }
                    out.writeFixed(b);
                }
                default -> throw new IllegalStateException(schema.getType().toString());
            }
        }

        private byte[] unscaled(String text, int fixedSize) {
            BigDecimal d = new BigDecimal(text);
            if (d.scale() != scale) {
                throw new IllegalStateException("decimal " + text + " has not scale " + scale);
            }
            byte[] minimal = d.unscaledValue().toByteArray();
            if (fixedSize < 0 || minimal.length == fixedSize) {
                return minimal;
            }
            if (minimal.length > fixedSize) {
                throw new IllegalStateException("decimal " + text + " too large");
            }
            byte[] b = new byte[fixedSize];
            Arrays.fill(b, 0, fixedSize - minimal.length, (byte) (d.signum() < 0 ? -1 : 0));
            System.arraycopy(minimal, 0, b, fixedSize - minimal.length, minimal.length);
            return b;
        }
    }

    /** A schema left out of the view: read past; written only when it is null. */
    static final class Skip extends AvroView.Node {
        private final Schema schema;

        Skip(Schema schema) {
            super(null, false);
            this.schema = schema;
        }

        @Override
        Object read(BinaryDecoder in, int max) throws IOException {
            skip(schema, in, max);
            return null;
        }

        @Override
        void write(Object value, BinaryEncoder out) {
            if (schema.getType() != Schema.Type.NULL) {
                throw new IllegalStateException(
                        "field of type " + schema.getType() + " has no typed view");
            }
        }
    }

    static void skip(Schema s, BinaryDecoder in, int max) throws IOException {
        switch (s.getType()) {
            case NULL -> {}
            case BOOLEAN -> in.readBoolean();
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case FLOAT -> in.readFloat();
            case DOUBLE -> in.readDouble();
            case STRING -> in.skipString();
            case BYTES -> in.skipBytes();
            case FIXED -> in.skipFixed(s.getFixedSize());
            case ENUM -> in.readEnum();
            case UNION -> {
                int b = in.readIndex();
                if (b < 0 || b >= s.getTypes().size()) {
                    throw new IOException("union branch " + b);
                }
                skip(s.getTypes().get(b), in, max);
            }
            case RECORD -> {
                for (Schema.Field f : s.getFields()) {
                    skip(f.schema(), in, max);
                }
            }
            case ARRAY -> {
                long total = 0;
                for (long n = in.skipArray(); n != 0; n = in.skipArray()) {
                    total += n;
                    checkCount(total, max);
                    for (long i = 0; i < n; i++) {
                        skip(s.getElementType(), in, max);
                    }
                }
            }
            case MAP -> {
                long total = 0;
                for (long n = in.skipMap(); n != 0; n = in.skipMap()) {
                    total += n;
                    checkCount(total, max);
                    for (long i = 0; i < n; i++) {
                        in.skipString();
                        skip(s.getValueType(), in, max);
                    }
                }
            }
        }
    }

    static String string(BinaryDecoder in, int max) throws IOException {
        byte[] b = new byte[length(in, max)];
        in.readFixed(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    static int length(BinaryDecoder in, int max) throws IOException {
        long n = in.readLong();
        if (n < 0 || n > max) {
            throw new IOException("corrupt length: " + n + " bytes in a payload of " + max);
        }
        return (int) n;
    }

    static void checkCount(long n, int max) throws IOException {
        if (n < 0 || n > max) {
            throw new IOException("corrupt block count: " + n + " items");
        }
    }
}

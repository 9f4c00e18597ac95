package io.tierlog.registry.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import io.tierlog.common.testing.Property;
import io.tierlog.registry.CompatibilityLevel;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.SchemaType;
import io.tierlog.registry.format.ProtobufParsedSchema;
import io.tierlog.registry.format.SchemaFormats;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Protobuf rules agree with protobuf's wire format: when a change passes BACKWARD, random
 * messages written with the old schema parse with the new one, and every field that kept its number
 * and cardinality reads back the writer's value, converted as protobuf converts within a
 * wire-compatible group (int32 to int64 keeps the value, int64 to int32 truncates, string and bytes
 * are the same bytes, sint64 to sint32 truncates the zigzag encoding). A scalar group that mixed
 * encodings (say int32 with sint32) would read other values and fail here.
 */
class ProtobufCompatibilitySoundnessTest {
    private static final String[] SCALARS = {
        "int32",
        "int64",
        "uint32",
        "uint64",
        "bool",
        "sint32",
        "sint64",
        "fixed32",
        "sfixed32",
        "fixed64",
        "sfixed64",
        "string",
        "bytes",
        "double",
        "float"
    };

    @Test
    void compatibleChangesReadTheWritersValues() {
        int[] compatibleSeen = {0};
        Property.forAll(
                300,
                random -> {
                    String[] types = new String[6];
                    boolean[] repeated = new boolean[6];
                    for (int i = 0; i < types.length; i++) {
                        types[i] =
                                random.nextInt(4) == 0
                                        ? null
                                        : SCALARS[random.nextInt(SCALARS.length)];
                        repeated[i] = random.nextInt(4) == 0;
                    }
                    String writerText = schema(types, repeated);
                    int changed = random.nextInt(types.length);
                    switch (random.nextInt(3)) {
                        case 0 -> types[changed] = null;
                        case 1 -> types[changed] = SCALARS[random.nextInt(SCALARS.length)];
                        default -> repeated[changed] = !repeated[changed];
                    }
                    String readerText = schema(types, repeated);
                    ParsedSchema writer = parse(writerText);
                    ParsedSchema reader = parse(readerText);
                    if (!Compatibility.check(reader, List.of(writer), CompatibilityLevel.BACKWARD)
                            .isEmpty()) {
                        return;
                    }
                    compatibleSeen[0]++;
                    Descriptor w = ((ProtobufParsedSchema) writer).message(List.of(0));
                    Descriptor r = ((ProtobufParsedSchema) reader).message(List.of(0));
                    for (int n = 0; n < 10; n++) {
                        DynamicMessage written = randomMessage(w, random);
                        DynamicMessage read = DynamicMessage.parseFrom(r, written.toByteArray());
                        for (FieldDescriptor rf : r.getFields()) {
                            FieldDescriptor wf = w.findFieldByNumber(rf.getNumber());
                            if (wf == null
                                    || wf.isRepeated() != rf.isRepeated()
                                    || wf.isRepeated()) {
                                continue;
                            }
                            Object expected =
                                    convert(written.getField(wf), wf.getType(), rf.getType());
                            assertThat(read.getField(rf))
                                    .as(
                                            "field %d %s -> %s, writer %s, reader %s",
                                            rf.getNumber(),
                                            wf.getType(),
                                            rf.getType(),
                                            writerText,
                                            readerText)
                                    .isEqualTo(expected);
                        }
                    }
                });
        assertThat(compatibleSeen[0]).as("tries where the change was compatible").isGreaterThan(50);
    }

    private static ParsedSchema parse(String text) {
        return SchemaFormats.parse(SchemaType.PROTOBUF, text, List.of(), null, false);
    }

    private static String schema(String[] types, boolean[] repeated) {
        StringBuilder out = new StringBuilder("syntax = \"proto3\"; package p; message M {");
        for (int i = 0; i < types.length; i++) {
            if (types[i] != null) {
                out.append(repeated[i] ? " repeated " : " ")
                        .append(types[i])
                        .append(" f")
                        .append(i + 1)
                        .append(" = ")
                        .append(i + 1)
                        .append(';');
            }
        }
        return out.append(" }").toString();
    }

    private static DynamicMessage randomMessage(Descriptor d, Random random) {
        DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
        for (FieldDescriptor f : d.getFields()) {
            if (f.isRepeated()) {
                for (int i = random.nextInt(3); i > 0; i--) {
                    b.addRepeatedField(f, value(f.getType(), random));
                }
            } else if (random.nextInt(4) > 0) {
                b.setField(f, value(f.getType(), random));
            }
        }
        return b.build();
    }

    private static Object value(FieldDescriptor.Type type, Random random) {
        return switch (type) {
            case INT32, UINT32, SINT32, FIXED32, SFIXED32 ->
                    random.nextBoolean() ? random.nextInt() : random.nextInt(100);
            case INT64, UINT64, SINT64, FIXED64, SFIXED64 ->
                    random.nextBoolean() ? random.nextLong() : (long) random.nextInt(100);
            case BOOL -> random.nextBoolean();
            case STRING -> "s" + random.nextInt(1000);
            case BYTES -> ByteString.copyFromUtf8("b" + random.nextInt(1000));
            case DOUBLE -> random.nextDouble();
            case FLOAT -> random.nextFloat();
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    /** The writer's value as protobuf reads it with the reader's type. */
    private static Object convert(
            Object value, FieldDescriptor.Type from, FieldDescriptor.Type to) {
        if (from == to) {
            return value;
        }
        if (value instanceof ByteString bytes) {
            return bytes.toString(StandardCharsets.UTF_8);
        }
        if (value instanceof String s) {
            return ByteString.copyFromUtf8(s);
        }
        if (from == FieldDescriptor.Type.SINT64 && to == FieldDescriptor.Type.SINT32) {
            // the zigzag encoding is truncated to 32 bits, then decoded
            long v = (Long) value;
            int zigzag = (int) ((v << 1) ^ (v >> 63));
            return (zigzag >>> 1) ^ -(zigzag & 1);
        }
        long bits =
                switch (from) {
                    case BOOL -> (Boolean) value ? 1L : 0L;
                    case UINT32, FIXED32 -> Integer.toUnsignedLong((Integer) value);
                    case INT32, SINT32, SFIXED32 -> (long) (Integer) value;
                    default -> (Long) value;
                };
        return switch (to) {
            case BOOL -> bits != 0;
            case INT32, UINT32, SINT32, FIXED32, SFIXED32 -> (int) bits;
            default -> bits;
        };
    }
}

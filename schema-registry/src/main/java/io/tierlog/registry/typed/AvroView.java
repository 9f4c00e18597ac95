package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;

/**
 * The typed view of an Avro schema, and its codec: reads Avro binary written with the schema
 * straight into typed values (no GenericRecord in between), and writes typed values back as Avro
 * binary the way Avro's own writers do (one block per array and map, minimal varints), which is
 * what makes the one-copy path possible.
 *
 * <p>Mapping: record = struct (fields by name, every field optional); boolean, int, long, float,
 * double, string, bytes as themselves; enum = STRING (the symbol); fixed = BYTES; array = list
 * ({@code x.element}); map = map with STRING keys ({@code x.key}, {@code x.value}); a union of null
 * and one type = that type (nullable); any other union = a struct of its non-null branches, {@code
 * member0}, {@code member1}, ... (as Spark names them), exactly one set. Logical types: date =
 * DATE; timestamp-millis and timestamp-micros = TIMESTAMP_MICROS (millis times 1000); decimal
 * (bytes or fixed) = STRING, its plain decimal text with the schema's scale ({@code "12.30"}),
 * exact, castable by any engine; uuid = STRING; time-millis = INT, time-micros, local-timestamp-*
 * and timestamp-nanos = LONG (their raw value); duration = BYTES. Left out (no field, still read
 * past): fields of type null, a record nested in itself (recursion), records with no field left,
 * and paths without a field id.
 *
 * <p>Immutable once built, so thread-safe (decoders and encoders are the caller's).
 */
final class AvroView {
    private AvroView() {}

    /** The view of record schema {@code schema}, or null when it has none (not a record, ...). */
    static Node of(Schema schema, FieldIds ids) {
        if (schema.getType() != Schema.Type.RECORD || !viewable(schema, new ArrayDeque<>())) {
            return null;
        }
        return build(schema, "", ids, new ArrayDeque<>());
    }

    /** A codec node; {@code type} is null when the node is left out of the view. */
    abstract static class Node {
        final TypedType type;
        final boolean nullable;

        Node(TypedType type, boolean nullable) {
            this.type = type;
            this.nullable = nullable;
        }

        /**
         * @param max the payload's length: no string, bytes or item count of a valid payload is
         *     larger (every typed value takes at least a byte), so a larger one is corrupt and
         *     refused before anything is allocated for it
         */
        abstract Object read(BinaryDecoder in, int max) throws IOException;

        /**
         * @throws IllegalStateException when {@code value} does not fit the schema
         */
        abstract void write(Object value, BinaryEncoder out) throws IOException;
    }

    static boolean viewable(Schema s, Deque<String> records) {
        switch (s.getType()) {
            case NULL:
                return false;
            case RECORD:
                if (records.contains(s.getFullName())) {
                    return false;
                }
                records.push(s.getFullName());
                try {
                    for (Schema.Field f : s.getFields()) {
                        if (viewable(f.schema(), records)) {
                            return true;
                        }
                    }
                    return false;
                } finally {
                    records.pop();
                }
            case ARRAY:
                return viewable(s.getElementType(), records);
            case MAP:
                return viewable(s.getValueType(), records);
            case UNION:
                for (Schema b : s.getTypes()) {
                    if (viewable(b, records)) {
                        return true;
                    }
                }
                return false;
            default:
                return true;
        }
    }

    private static Node build(Schema s, String path, FieldIds ids, Deque<String> records) {
        switch (s.getType()) {
            case RECORD:
                return record(s, path, ids, records);
            case ARRAY:
                {
                    int elementId = ids.id(FieldIds.child(path, "element"));
                    if (elementId == FieldIds.NONE) {
                        return new Skip(s);
                    }
                    Node element =
                            build(
                                    s.getElementType(),
                                    FieldIds.child(path, "element"),
                                    ids,
                                    records);
                    return element.type == null ? new Skip(s) : new ArrayNode(elementId, element);
                }
            case MAP:
                {
                    int keyId = ids.id(FieldIds.child(path, "key"));
                    int valueId = ids.id(FieldIds.child(path, "value"));
                    if (keyId == FieldIds.NONE || valueId == FieldIds.NONE) {
                        return new Skip(s);
                    }
                    Node value =
                            build(s.getValueType(), FieldIds.child(path, "value"), ids, records);
                    return value.type == null ? new Skip(s) : new MapNode(keyId, valueId, value);
                }
            case UNION:
                return union(s, path, ids, records);
            case NULL:
                return new Skip(s);
            default:
                return primitive(s);
        }
    }

    private static Node record(Schema s, String path, FieldIds ids, Deque<String> records) {
        records.push(s.getFullName());
        try {
            List<Schema.Field> fields = s.getFields();
            Node[] children = new Node[fields.size()];
            int[] slots = new int[fields.size()];
            List<TypedType.Field> typed = new ArrayList<>();
            for (int i = 0; i < children.length; i++) {
                Schema.Field f = fields.get(i);
                slots[i] = -1;
                if (!viewable(f.schema(), records)) {
                    children[i] = new Skip(f.schema());
                    continue;
                }
                String childPath = FieldIds.child(path, f.name());
                int id = ids.id(childPath);
                children[i] =
                        id == FieldIds.NONE
                                ? new Skip(f.schema())
                                : build(f.schema(), childPath, ids, records);
                if (children[i].type != null) {
                    slots[i] = typed.size();
                    typed.add(new TypedType.Field(id, f.name(), children[i].type, true));
                }
            }
            if (typed.isEmpty()) {
                return new Skip(s);
            }
            return new RecordNode(new TypedType.Struct(typed), children, slots);
        } finally {
            records.pop();
        }
    }

    private static Node union(Schema s, String path, FieldIds ids, Deque<String> records) {
        List<Schema> branches = s.getTypes();
        int nullIndex = -1;
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < branches.size(); i++) {
            if (branches.get(i).getType() == Schema.Type.NULL) {
                nullIndex = i;
            } else {
                others.add(i);
            }
        }
        Node[] nodes = new Node[branches.size()];
        if (others.size() == 1) {
            Node inner = build(branches.get(others.get(0)), path, ids, records);
            if (inner.type == null) {
                return new Skip(s);
            }
            nodes[others.get(0)] = inner;
            if (nullIndex >= 0) {
                nodes[nullIndex] = new Skip(branches.get(nullIndex));
            }
            return new UnionNode(inner.type, nullIndex >= 0, nodes, null, nullIndex, others.get(0));
        }
        int[] slots = new int[branches.size()];
        Arrays.fill(slots, -1);
        List<TypedType.Field> members = new ArrayList<>();
        for (int m = 0; m < others.size(); m++) {
            int b = others.get(m);
            Schema branch = branches.get(b);
            String memberPath = FieldIds.child(path, "member" + m);
            int id = viewable(branch, records) ? ids.id(memberPath) : FieldIds.NONE;
            nodes[b] =
                    id == FieldIds.NONE
                            ? new Skip(branch)
                            : build(branch, memberPath, ids, records);
            if (nodes[b].type != null) {
                slots[b] = members.size();
                members.add(new TypedType.Field(id, "member" + m, nodes[b].type, true));
            }
        }
        if (nullIndex >= 0) {
            nodes[nullIndex] = new Skip(branches.get(nullIndex));
        }
        if (members.isEmpty()) {
            return new Skip(s);
        }
        return new UnionNode(
                new TypedType.Struct(members), nullIndex >= 0, nodes, slots, nullIndex, -1);
    }

    private static Node primitive(Schema s) {
        LogicalType logical = s.getLogicalType();
        String name = logical == null ? "" : logical.getName();
        switch (s.getType()) {
            case BOOLEAN:
                return new Prim(s, Kind.BOOLEAN, 0);
            case INT:
                return new Prim(s, name.equals("date") ? Kind.DATE : Kind.INT, 0);
            case LONG:
                if (name.equals("timestamp-millis")) {
                    return new Prim(s, Kind.TIMESTAMP_MICROS, 1000);
                }
                return new Prim(
                        s, name.equals("timestamp-micros") ? Kind.TIMESTAMP_MICROS : Kind.LONG, 0);
            case FLOAT:
                return new Prim(s, Kind.FLOAT, 0);
            case DOUBLE:
                return new Prim(s, Kind.DOUBLE, 0);
            case STRING:
            case ENUM:
                return new Prim(s, Kind.STRING, 0);
            case BYTES:
            case FIXED:
                return new Prim(
                        s, logical instanceof LogicalTypes.Decimal ? Kind.STRING : Kind.BYTES, 0);
            default:
                throw new IllegalArgumentException("not a primitive: " + s);
        }
    }

    static final class RecordNode extends Node {
        private final Node[] children;
        private final int[] slots;
        private final int width;

        RecordNode(TypedType.Struct type, Node[] children, int[] slots) {
            super(type, false);
            this.children = children;
            this.slots = slots;
            this.width = type.fields().size();
        }

        @Override
        Object[] read(BinaryDecoder in, int max) throws IOException {
            Object[] row = new Object[width];
            for (int i = 0; i < children.length; i++) {
                Object v = children[i].read(in, max);
                if (slots[i] >= 0) {
                    row[slots[i]] = v;
                }
            }
            return row;
        }

        @Override
        void write(Object value, BinaryEncoder out) throws IOException {
            if (!(value instanceof Object[] row) || row.length != width) {
                throw new IllegalStateException("a record needs a row of " + width + " fields");
            }
            for (int i = 0; i < children.length; i++) {
                children[i].write(slots[i] >= 0 ? row[slots[i]] : null, out);
            }
        }
    }

    static final class UnionNode extends Node {
        private final Node[] branches;
        private final int[] memberSlots; // null: single non-null branch
        private final int nullIndex;
        private final int valueIndex;

        UnionNode(
                TypedType type,
                boolean nullable,
                Node[] branches,
                int[] memberSlots,
                int nullIndex,
                int valueIndex) {
            super(type, nullable);
            this.branches = branches;
            this.memberSlots = memberSlots;
            this.nullIndex = nullIndex;
            this.valueIndex = valueIndex;
        }

        @Override
        Object read(BinaryDecoder in, int max) throws IOException {
            int b = in.readIndex();
            if (b < 0 || b >= branches.length) {
                throw new IOException("union branch " + b + " of " + branches.length);
            }
            Object v = branches[b].read(in, max);
            if (b == nullIndex) {
                return null;
            }
            if (memberSlots == null) {
                return v;
            }
            Object[] members = new Object[((TypedType.Struct) type).fields().size()];
            if (memberSlots[b] >= 0) {
                members[memberSlots[b]] = v;
            }
            return members;
        }

        @Override
        void write(Object value, BinaryEncoder out) throws IOException {
            if (value == null) {
                if (nullIndex < 0) {
                    throw new IllegalStateException("null for a union without null");
                }
                out.writeIndex(nullIndex);
                return;
            }
            if (memberSlots == null) {
                out.writeIndex(valueIndex);
                branches[valueIndex].write(value, out);
                return;
            }
            Object[] members = (Object[]) value;
            for (int b = 0; b < branches.length; b++) {
                if (memberSlots[b] >= 0 && members[memberSlots[b]] != null) {
                    out.writeIndex(b);
                    branches[b].write(members[memberSlots[b]], out);
                    return;
                }
            }
            throw new IllegalStateException("a union struct with no member set");
        }
    }

    static final class ArrayNode extends Node {
        private final Node element;

        ArrayNode(int elementId, Node element) {
            super(new TypedType.ListOf(elementId, element.type, element.nullable), false);
            this.element = element;
        }

        @Override
        Object read(BinaryDecoder in, int max) throws IOException {
            List<Object> list = new ArrayList<>();
            for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                checkCount(list.size() + n, max);
                for (long i = 0; i < n; i++) {
                    list.add(element.read(in, max));
                }
            }
            return list;
        }

        @Override
        void write(Object value, BinaryEncoder out) throws IOException {
            List<?> list = (List<?>) value;
            out.writeArrayStart();
            out.setItemCount(list.size());
            for (Object e : list) {
                out.startItem();
                element.write(e, out);
            }
            out.writeArrayEnd();
        }
    }

    static final class MapNode extends Node {
        private final Node value;

        MapNode(int keyId, int valueId, Node value) {
            super(
                    new TypedType.MapOf(
                            keyId,
                            new TypedType.Primitive(Kind.STRING),
                            valueId,
                            value.type,
                            value.nullable),
                    false);
            this.value = value;
        }

        @Override
        Object read(BinaryDecoder in, int max) throws IOException {
            Map<String, Object> map = new LinkedHashMap<>();
            long seen = 0;
            for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                seen += n;
                checkCount(seen, max);
                for (long i = 0; i < n; i++) {
                    String key = string(in, max);
                    map.put(key, value.read(in, max));
                }
            }
            return map;
        }

        @Override
        void write(Object v, BinaryEncoder out) throws IOException {
            Map<?, ?> map = (Map<?, ?>) v;
            out.writeMapStart();
            out.setItemCount(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.startItem();
                out.writeString((String) e.getKey());
                value.write(e.getValue(), out);
            }
            out.writeMapEnd();
        }
    }

    static final class Prim extends Node {
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
    static final class Skip extends Node {
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

    private static int length(BinaryDecoder in, int max) throws IOException {
        long n = in.readLong();
        if (n < 0 || n > max) {
            throw new IOException("corrupt length: " + n + " bytes in a payload of " + max);
        }
        return (int) n;
    }

    private static void checkCount(long n, int max) throws IOException {
        if (n < 0 || n > max) {
            throw new IOException("corrupt block count: " + n + " items");
        }
    }
}

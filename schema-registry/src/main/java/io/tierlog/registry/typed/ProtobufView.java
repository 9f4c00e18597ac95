package io.tierlog.registry.typed;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import io.tierlog.registry.format.ProtobufParsedSchema;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The typed view of a Protobuf schema, and the decoder of Protobuf payloads (a {@link
 * DynamicMessage} of the message the header's indexes name). The view is of one message of the
 * file, the subject's message: the first top-level message that no other message of the file uses
 * as a field type (the first message when all are used); a payload naming another message fails
 * with reason {@code decode}. Mapping: message = struct (fields by name, in declaration order,
 * oneof members as plain fields); int32, sint32, sfixed32 = INT; uint32, fixed32 = LONG (unsigned
 * value); int64, sint64, sfixed64 = LONG; uint64, fixed64 = LONG (the 64 bits as Java reads them:
 * values above 2^63-1 are negative); float, double, bool, string, bytes as themselves; enum =
 * STRING (the value's name); repeated = list; map = map; google.protobuf.Timestamp =
 * TIMESTAMP_MICROS; the wrappers (Int32Value, StringValue, ...) = their primitive. Presence: a
 * field without presence (proto3 scalars) has its default when absent, as Protobuf reads it; a
 * field with presence that is absent is null. Left out: a message nested in itself. Immutable, so
 * thread-safe.
 */
final class ProtobufView implements VersionView {
    private final ProtobufParsedSchema schema;
    private final Descriptor message;
    private final Msg root;

    private ProtobufView(ProtobufParsedSchema schema, Descriptor message, Msg root) {
        this.schema = schema;
        this.message = message;
        this.root = root;
    }

    static ProtobufView of(ProtobufParsedSchema schema, FieldIds ids) {
        Descriptor message = typedMessage(schema);
        if (message == null) {
            return null;
        }
        Node root = message(message, "", ids, new ArrayDeque<>());
        return root instanceof Msg m ? new ProtobufView(schema, message, m) : null;
    }

    static Descriptor typedMessage(ProtobufParsedSchema schema) {
        List<Descriptor> top = schema.fileDescriptor().getMessageTypes();
        if (top.isEmpty()) {
            return null;
        }
        Set<String> used = new HashSet<>();
        for (Descriptor d : top) {
            collectUsed(d, used, new HashSet<>());
        }
        for (Descriptor d : top) {
            if (!used.contains(d.getFullName())) {
                return d;
            }
        }
        return top.get(0);
    }

    private static void collectUsed(Descriptor d, Set<String> used, Set<String> seen) {
        if (!seen.add(d.getFullName())) {
            return;
        }
        for (FieldDescriptor f : d.getFields()) {
            if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                used.add(f.getMessageType().getFullName());
                collectUsed(f.getMessageType(), used, seen);
            }
        }
        for (Descriptor nested : d.getNestedTypes()) {
            collectUsed(nested, used, seen);
        }
    }

    @Override
    public TypedType.Struct struct() {
        return (TypedType.Struct) root.type;
    }

    @Override
    public boolean protobuf() {
        return true;
    }

    @Override
    public Object[] decode(ByteBuffer body, List<Integer> messageIndexes) throws Exception {
        Descriptor named = schema.message(messageIndexes);
        if (named != message) {
            throw new IllegalArgumentException(
                    "the record is a "
                            + named.getFullName()
                            + " (message indexes "
                            + messageIndexes
                            + "), the subject's typed message is "
                            + message.getFullName());
        }
        DynamicMessage m =
                DynamicMessage.parseFrom(message, CodedInputStream.newInstance(body.duplicate()));
        return (Object[]) root.read(m);
    }

    private abstract static class Node {
        final TypedType type;

        Node(TypedType type) {
            this.type = type;
        }

        abstract Object read(Object protoValue);
    }

    private static Node message(Descriptor d, String path, FieldIds ids, Deque<String> stack) {
        Node wk = wellKnown(d);
        if (wk != null) {
            return wk;
        }
        if (stack.contains(d.getFullName())) {
            return null;
        }
        stack.push(d.getFullName());
        try {
            List<FieldDescriptor> fds = new ArrayList<>();
            List<Node> children = new ArrayList<>();
            List<TypedType.Field> fields = new ArrayList<>();
            for (FieldDescriptor f : d.getFields()) {
                String childPath = FieldIds.child(path, f.getName());
                if (!viewable(f, stack)) {
                    continue;
                }
                int id = ids.id(childPath);
                if (id == FieldIds.NONE) {
                    continue;
                }
                Node child = field(f, childPath, ids, stack);
                if (child != null) {
                    fds.add(f);
                    children.add(child);
                    fields.add(new TypedType.Field(id, f.getName(), child.type, true));
                }
            }
            return fields.isEmpty() ? null : new Msg(new TypedType.Struct(fields), fds, children);
        } finally {
            stack.pop();
        }
    }

    private static boolean viewable(FieldDescriptor f, Deque<String> stack) {
        if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
            return true;
        }
        if (f.isMapField()) {
            return viewable(f.getMessageType().findFieldByNumber(2), stack);
        }
        return message(f.getMessageType(), "", PROBE, stack) != null;
    }

    private static final FieldIds PROBE =
            new FieldIds() {
                @Override
                int id(String path) {
                    return 1;
                }
            };

    private static Node field(FieldDescriptor f, String path, FieldIds ids, Deque<String> stack) {
        if (f.isMapField()) {
            FieldDescriptor k = f.getMessageType().findFieldByNumber(1);
            FieldDescriptor v = f.getMessageType().findFieldByNumber(2);
            int keyId = ids.id(FieldIds.child(path, "key"));
            int valueId = ids.id(FieldIds.child(path, "value"));
            if (keyId == FieldIds.NONE || valueId == FieldIds.NONE) {
                return null;
            }
            Node key = single(k, FieldIds.child(path, "key"), ids, stack);
            Node value = single(v, FieldIds.child(path, "value"), ids, stack);
            return key == null || value == null
                    ? null
                    : new MapNode(f, k, keyId, key, v, valueId, value);
        }
        if (f.isRepeated()) {
            int elementId = ids.id(FieldIds.child(path, "element"));
            if (elementId == FieldIds.NONE) {
                return null;
            }
            Node element = single(f, FieldIds.child(path, "element"), ids, stack);
            return element == null ? null : new ListNode(f, elementId, element);
        }
        Node n = single(f, path, ids, stack);
        return n == null ? null : new Present(f, n);
    }

    private static Node single(FieldDescriptor f, String path, FieldIds ids, Deque<String> stack) {
        switch (f.getType()) {
            case INT32:
            case SINT32:
            case SFIXED32:
                return new Prim(Kind.INT, false);
            case UINT32:
            case FIXED32:
                return new Prim(Kind.LONG, true);
            case INT64:
            case SINT64:
            case SFIXED64:
            case UINT64:
            case FIXED64:
                return new Prim(Kind.LONG, false);
            case FLOAT:
                return new Prim(Kind.FLOAT, false);
            case DOUBLE:
                return new Prim(Kind.DOUBLE, false);
            case BOOL:
                return new Prim(Kind.BOOLEAN, false);
            case STRING:
            case ENUM:
                return new Prim(Kind.STRING, false);
            case BYTES:
                return new Prim(Kind.BYTES, false);
            case MESSAGE:
            case GROUP:
                return message(f.getMessageType(), path, ids, stack);
            default:
                return null;
        }
    }

    private static Node wellKnown(Descriptor d) {
        switch (d.getFullName()) {
            case "google.protobuf.Timestamp":
                return new Node(new TypedType.Primitive(Kind.TIMESTAMP_MICROS)) {
                    @Override
                    Object read(Object v) {
                        Message m = (Message) v;
                        long seconds = (Long) m.getField(d.findFieldByNumber(1));
                        int nanos = (Integer) m.getField(d.findFieldByNumber(2));
                        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), nanos / 1000);
                    }
                };
            case "google.protobuf.DoubleValue":
            case "google.protobuf.FloatValue":
            case "google.protobuf.Int64Value":
            case "google.protobuf.UInt64Value":
            case "google.protobuf.Int32Value":
            case "google.protobuf.UInt32Value":
            case "google.protobuf.BoolValue":
            case "google.protobuf.StringValue":
            case "google.protobuf.BytesValue":
                {
                    FieldDescriptor value = d.findFieldByNumber(1);
                    Node inner = single(value, "", PROBE, new ArrayDeque<>());
                    return new Node(inner.type) {
                        @Override
                        Object read(Object v) {
                            return inner.read(((Message) v).getField(value));
                        }
                    };
                }
            default:
                return null;
        }
    }

    private static final class Msg extends Node {
        private final FieldDescriptor[] fields;
        private final Node[] children;

        Msg(TypedType.Struct type, List<FieldDescriptor> fields, List<Node> children) {
            super(type);
            this.fields = fields.toArray(new FieldDescriptor[0]);
            this.children = children.toArray(new Node[0]);
        }

        @Override
        Object read(Object v) {
            Message m = (Message) v;
            Object[] row = new Object[fields.length];
            for (int i = 0; i < fields.length; i++) {
                row[i] = children[i].read(m);
            }
            return row;
        }
    }

    /** A singular field of a message: null when it has presence and is absent. */
    private static final class Present extends Node {
        private final FieldDescriptor field;
        private final Node value;

        Present(FieldDescriptor field, Node value) {
            super(value.type);
            this.field = field;
            this.value = value;
        }

        @Override
        Object read(Object v) {
            Message m = (Message) v;
            if (field.hasPresence() && !m.hasField(field)) {
                return null;
            }
            return value.read(m.getField(field));
        }
    }

    /** A repeated field of a message (read from the message). */
    private static final class ListNode extends Node {
        private final FieldDescriptor field;
        private final Node element;

        ListNode(FieldDescriptor field, int elementId, Node element) {
            super(new TypedType.ListOf(elementId, element.type, false));
            this.field = field;
            this.element = element;
        }

        @Override
        Object read(Object v) {
            List<?> items = (List<?>) ((Message) v).getField(field);
            List<Object> out = new ArrayList<>(items.size());
            for (Object item : items) {
                out.add(element.read(item));
            }
            return out;
        }
    }

    /** A map field of a message (read from the message: repeated entries, last key wins). */
    private static final class MapNode extends Node {
        private final FieldDescriptor field;
        private final FieldDescriptor keyField;
        private final Node key;
        private final FieldDescriptor valueField;
        private final Node value;

        MapNode(
                FieldDescriptor field,
                FieldDescriptor keyField,
                int keyId,
                Node key,
                FieldDescriptor valueField,
                int valueId,
                Node value) {
            super(new TypedType.MapOf(keyId, key.type, valueId, value.type, false));
            this.field = field;
            this.keyField = keyField;
            this.key = key;
            this.valueField = valueField;
            this.value = value;
        }

        @Override
        Object read(Object v) {
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Object entry : (List<?>) ((Message) v).getField(field)) {
                Message e = (Message) entry;
                out.put(key.read(e.getField(keyField)), value.read(e.getField(valueField)));
            }
            return out;
        }
    }

    private static final class Prim extends Node {
        private final boolean unsigned32;

        Prim(Kind kind, boolean unsigned32) {
            super(new TypedType.Primitive(kind));
            this.unsigned32 = unsigned32;
        }

        @Override
        Object read(Object v) {
            if (unsigned32) {
                return Integer.toUnsignedLong((Integer) v);
            }
            if (v instanceof EnumValueDescriptor e) {
                return e.getName();
            }
            if (v instanceof ByteString b) {
                return b.toByteArray();
            }
            return v;
        }
    }
}

package io.tierlog.cold;

import io.tierlog.common.typed.TypedType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * The bridge between the typed value model ({@link TypedType}) and Parquet: the Parquet type of a
 * typed column, the typed struct of a Parquet group read back (so that a reader hands a {@code
 * ValueRebuilder} the struct the object was written with), and the writing of a typed row into
 * parquet-mr's {@link RecordConsumer}.
 *
 * <p>Mapping: a struct is a group of its fields (field ids kept, optional or required as declared);
 * a list the standard three-level {@code LIST} ({@code <name>} / repeated {@code list} / {@code
 * element}); a map the standard {@code MAP} ({@code <name>} / repeated {@code key_value} / required
 * {@code key}, {@code value}); BOOLEAN BOOLEAN, INT INT32, LONG INT64, FLOAT FLOAT, DOUBLE DOUBLE,
 * STRING BINARY (STRING), BYTES BINARY, DATE INT32 (DATE), TIMESTAMP_MICROS INT64
 * (TIMESTAMP(MICROS, UTC)). Reading back inverts it exactly, so {@code fromParquet(toParquet(s)) ==
 * s}.
 *
 * <p>Stateless, so thread-safe.
 */
final class TypedParquet {
    private TypedParquet() {}

    static final String LIST = "list";
    static final String ELEMENT = "element";
    static final String KEY_VALUE = "key_value";
    static final String KEY = "key";
    static final String VALUE = "value";

    /** An optional group named {@code name} with field id {@code id} holding {@code struct}. */
    static GroupType column(String name, int id, TypedType.Struct struct) {
        return (GroupType) toParquet(name, id, struct, Type.Repetition.OPTIONAL);
    }

    private static Type toParquet(String name, int id, TypedType t, Type.Repetition rep) {
        if (t instanceof TypedType.Primitive p) {
            return primitive(p.kind(), rep).id(id).named(name);
        }
        if (t instanceof TypedType.Struct s) {
            Types.GroupBuilder<GroupType> g = Types.buildGroup(rep);
            for (TypedType.Field f : s.fields()) {
                g.addField(toParquet(f.name(), f.id(), f.type(), repetition(f.optional())));
            }
            return g.id(id).named(name);
        }
        if (t instanceof TypedType.ListOf l) {
            return Types.buildGroup(rep)
                    .as(LogicalTypeAnnotation.listType())
                    .addField(
                            Types.repeatedGroup()
                                    .addField(
                                            toParquet(
                                                    ELEMENT,
                                                    l.elementId(),
                                                    l.element(),
                                                    repetition(l.elementOptional())))
                                    .named(LIST))
                    .id(id)
                    .named(name);
        }
        TypedType.MapOf m = (TypedType.MapOf) t;
        return Types.buildGroup(rep)
                .as(LogicalTypeAnnotation.mapType())
                .addField(
                        Types.repeatedGroup()
                                .addField(
                                        toParquet(
                                                KEY, m.keyId(), m.key(), Type.Repetition.REQUIRED))
                                .addField(
                                        toParquet(
                                                VALUE,
                                                m.valueId(),
                                                m.value(),
                                                repetition(m.valueOptional())))
                                .named(KEY_VALUE))
                .id(id)
                .named(name);
    }

    private static Type.Repetition repetition(boolean optional) {
        return optional ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
    }

    private static Types.PrimitiveBuilder<PrimitiveType> primitive(
            TypedType.Kind kind, Type.Repetition rep) {
        return switch (kind) {
            case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, rep);
            case INT -> Types.primitive(PrimitiveTypeName.INT32, rep);
            case LONG -> Types.primitive(PrimitiveTypeName.INT64, rep);
            case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, rep);
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, rep);
            case STRING ->
                    Types.primitive(PrimitiveTypeName.BINARY, rep)
                            .as(LogicalTypeAnnotation.stringType());
            case BYTES -> Types.primitive(PrimitiveTypeName.BINARY, rep);
            case DATE ->
                    Types.primitive(PrimitiveTypeName.INT32, rep)
                            .as(LogicalTypeAnnotation.dateType());
            case TIMESTAMP_MICROS ->
                    Types.primitive(PrimitiveTypeName.INT64, rep)
                            .as(
                                    LogicalTypeAnnotation.timestampType(
                                            true, LogicalTypeAnnotation.TimeUnit.MICROS));
        };
    }

    /** The typed struct of a group written by {@link #column}. */
    static TypedType.Struct structOf(GroupType group) {
        List<TypedType.Field> fields = new ArrayList<>();
        for (Type f : group.getFields()) {
            fields.add(
                    new TypedType.Field(
                            idOf(f),
                            f.getName(),
                            typeOf(f),
                            f.isRepetition(Type.Repetition.OPTIONAL)));
        }
        return new TypedType.Struct(fields);
    }

    private static int idOf(Type t) {
        if (t.getId() == null) {
            throw new IllegalArgumentException("typed column field " + t.getName() + " has no id");
        }
        return t.getId().intValue();
    }

    private static TypedType typeOf(Type t) {
        if (t.isPrimitive()) {
            return new TypedType.Primitive(kindOf(t.asPrimitiveType()));
        }
        GroupType g = t.asGroupType();
        LogicalTypeAnnotation a = g.getLogicalTypeAnnotation();
        if (a instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            Type element = g.getType(0).asGroupType().getType(0);
            return new TypedType.ListOf(
                    idOf(element), typeOf(element), element.isRepetition(Type.Repetition.OPTIONAL));
        }
        if (a instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation) {
            GroupType kv = g.getType(0).asGroupType();
            Type k = kv.getType(0);
            Type v = kv.getType(1);
            return new TypedType.MapOf(
                    idOf(k),
                    typeOf(k),
                    idOf(v),
                    typeOf(v),
                    v.isRepetition(Type.Repetition.OPTIONAL));
        }
        return structOf(g);
    }

    private static TypedType.Kind kindOf(PrimitiveType p) {
        LogicalTypeAnnotation a = p.getLogicalTypeAnnotation();
        return switch (p.getPrimitiveTypeName()) {
            case BOOLEAN -> TypedType.Kind.BOOLEAN;
            case INT32 ->
                    a instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
                            ? TypedType.Kind.DATE
                            : TypedType.Kind.INT;
            case INT64 ->
                    a instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
                            ? TypedType.Kind.TIMESTAMP_MICROS
                            : TypedType.Kind.LONG;
            case FLOAT -> TypedType.Kind.FLOAT;
            case DOUBLE -> TypedType.Kind.DOUBLE;
            case BINARY ->
                    a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                            ? TypedType.Kind.STRING
                            : TypedType.Kind.BYTES;
            default ->
                    throw new IllegalArgumentException(
                            "typed column " + p.getName() + " has unsupported type " + p);
        };
    }

    /**
     * Writes the fields of {@code row} (typed by {@code struct}) into the group the caller has
     * started. A null entry of an optional field is left out (null); of a required field it fails.
     *
     * @throws IllegalArgumentException when a value does not fit its type
     */
    static void writeFields(RecordConsumer c, TypedType.Struct struct, Object[] row) {
        List<TypedType.Field> fields = struct.fields();
        if (row.length != fields.size()) {
            throw new IllegalArgumentException(
                    "typed row has " + row.length + " entries, struct " + fields.size());
        }
        for (int i = 0; i < row.length; i++) {
            TypedType.Field f = fields.get(i);
            Object v = row[i];
            if (v == null) {
                if (!f.optional()) {
                    throw new IllegalArgumentException("required field " + f.name() + " is null");
                }
                continue;
            }
            c.startField(f.name(), i);
            writeValue(c, f.type(), v);
            c.endField(f.name(), i);
        }
    }

    /**
     * Whether {@code row} fits {@code struct} (entry count, Java types, no null where required),
     * checked before writing: a row that fails halfway would leave the Parquet record unfinished.
     * Returns null when it fits, else what does not.
     */
    static String misfit(TypedType.Struct struct, Object[] row) {
        List<TypedType.Field> fields = struct.fields();
        if (row == null || row.length != fields.size()) {
            return "row has "
                    + (row == null ? "no" : row.length)
                    + " entries, struct "
                    + fields.size();
        }
        for (int i = 0; i < row.length; i++) {
            TypedType.Field f = fields.get(i);
            String m = misfit(f.type(), row[i], f.optional());
            if (m != null) {
                return f.name() + ": " + m;
            }
        }
        return null;
    }

    private static String misfit(TypedType t, Object v, boolean optional) {
        if (v == null) {
            return optional ? null : "null where required";
        }
        if (t instanceof TypedType.Primitive p) {
            boolean ok =
                    switch (p.kind()) {
                        case BOOLEAN -> v instanceof Boolean;
                        case INT, DATE -> v instanceof Integer;
                        case LONG, TIMESTAMP_MICROS -> v instanceof Long;
                        case FLOAT -> v instanceof Float;
                        case DOUBLE -> v instanceof Double;
                        case STRING -> v instanceof String;
                        case BYTES -> v instanceof byte[];
                    };
            return ok ? null : v.getClass().getSimpleName() + " is not " + p.kind();
        }
        if (t instanceof TypedType.Struct s) {
            return v instanceof Object[] r ? misfit(s, r) : "not a struct";
        }
        if (t instanceof TypedType.ListOf l) {
            if (!(v instanceof List<?> list)) {
                return "not a list";
            }
            for (Object e : list) {
                String m = misfit(l.element(), e, l.elementOptional());
                if (m != null) {
                    return "element: " + m;
                }
            }
            return null;
        }
        TypedType.MapOf m = (TypedType.MapOf) t;
        if (!(v instanceof Map<?, ?> map)) {
            return "not a map";
        }
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String k = misfit(m.key(), e.getKey(), false);
            if (k != null) {
                return "key: " + k;
            }
            String x = misfit(m.value(), e.getValue(), m.valueOptional());
            if (x != null) {
                return "value: " + x;
            }
        }
        return null;
    }

    private static void writeValue(RecordConsumer c, TypedType t, Object v) {
        if (t instanceof TypedType.Primitive p) {
            writePrimitive(c, p.kind(), v);
        } else if (t instanceof TypedType.Struct s) {
            c.startGroup();
            writeFields(c, s, (Object[]) v);
            c.endGroup();
        } else if (t instanceof TypedType.ListOf l) {
            List<?> list = (List<?>) v;
            c.startGroup();
            if (!list.isEmpty()) {
                c.startField(LIST, 0);
                for (Object e : list) {
                    c.startGroup();
                    if (e != null) {
                        c.startField(ELEMENT, 0);
                        writeValue(c, l.element(), e);
                        c.endField(ELEMENT, 0);
                    } else if (!l.elementOptional()) {
                        throw new IllegalArgumentException("null element in a required list");
                    }
                    c.endGroup();
                }
                c.endField(LIST, 0);
            }
            c.endGroup();
        } else {
            TypedType.MapOf m = (TypedType.MapOf) t;
            Map<?, ?> map = (Map<?, ?>) v;
            c.startGroup();
            if (!map.isEmpty()) {
                c.startField(KEY_VALUE, 0);
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (e.getKey() == null) {
                        throw new IllegalArgumentException("null map key");
                    }
                    c.startGroup();
                    c.startField(KEY, 0);
                    writeValue(c, m.key(), e.getKey());
                    c.endField(KEY, 0);
                    if (e.getValue() != null) {
                        c.startField(VALUE, 1);
                        writeValue(c, m.value(), e.getValue());
                        c.endField(VALUE, 1);
                    } else if (!m.valueOptional()) {
                        throw new IllegalArgumentException("null value in a required map");
                    }
                    c.endGroup();
                }
                c.endField(KEY_VALUE, 0);
            }
            c.endGroup();
        }
    }

    private static void writePrimitive(RecordConsumer c, TypedType.Kind kind, Object v) {
        switch (kind) {
            case BOOLEAN -> c.addBoolean((Boolean) v);
            case INT, DATE -> c.addInteger((Integer) v);
            case LONG, TIMESTAMP_MICROS -> c.addLong((Long) v);
            case FLOAT -> c.addFloat((Float) v);
            case DOUBLE -> c.addDouble((Double) v);
            case STRING ->
                    c.addBinary(
                            Binary.fromConstantByteArray(
                                    ((String) v).getBytes(StandardCharsets.UTF_8)));
            case BYTES -> c.addBinary(Binary.fromConstantByteArray((byte[]) v));
        }
    }
}

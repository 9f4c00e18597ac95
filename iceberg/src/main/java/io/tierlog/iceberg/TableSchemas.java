package io.tierlog.iceberg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;

/**
 * The table schema of a topic: the union, by field id, of its objects' own Parquet schemas (read
 * from each footer, so formats 1, 2, 3 and typed columns follow one rule), plus the table-only
 * {@code partition_id} (id {@value #PARTITION_ID}, required, the identity partition). Top-level ids
 * 1-21 keep the file's optionality; every other column (which older objects may lack) is optional,
 * nested fields too. Ids are never renumbered. Stateless, so thread-safe.
 */
final class TableSchemas {
    static final int PARTITION_ID = 500;
    static final String PARTITION_COLUMN = "partition_id";
    private static final int LAST_CORE_ID = 21;

    private TableSchemas() {}

    /** An object's schema refused: the same id with an incompatible type. */
    static final class IncompatibleSchemaException extends Exception {
        private static final long serialVersionUID = 1L;

        IncompatibleSchemaException(String message) {
            super(message);
        }
    }

    /** The table columns an object of Parquet schema {@code file} contributes. */
    static Schema fromFile(MessageType file) throws IncompatibleSchemaException {
        if (!ParquetSchemaUtil.hasIds(file)) {
            throw new IncompatibleSchemaException("the object's Parquet schema has no field ids");
        }
        Schema converted;
        try {
            converted = ParquetSchemaUtil.convert(file);
        } catch (RuntimeException e) {
            throw new IncompatibleSchemaException("unusable Parquet schema: " + e.getMessage());
        }
        return fromFileSchema(converted);
    }

    /** As {@link #fromFile}, from the object's schema converted to Iceberg's types. */
    static Schema fromFileSchema(Schema converted) throws IncompatibleSchemaException {
        List<Types.NestedField> fields = new ArrayList<>();
        for (Types.NestedField f : converted.columns()) {
            if (f.fieldId() == PARTITION_ID) {
                throw new IncompatibleSchemaException(
                        "the object has a column with the table-only id " + PARTITION_ID);
            }
            fields.add(f.fieldId() <= LAST_CORE_ID ? f : optional(f));
        }
        return schema(fields);
    }

    /** The schema of a new table for a first object of schema {@code file}. */
    static Schema initial(Schema file) throws IncompatibleSchemaException {
        List<Types.NestedField> fields = new ArrayList<>(file.columns());
        fields.add(
                Types.NestedField.required(
                        PARTITION_ID, PARTITION_COLUMN, Types.IntegerType.get()));
        return schema(fields);
    }

    /**
     * {@code table} with the columns of {@code file} it lacks (by id, recursively); {@code table}
     * itself when nothing is new.
     */
    static Schema merge(Schema table, Schema file) throws IncompatibleSchemaException {
        Types.StructType merged =
                (Types.StructType) mergeType(table.asStruct(), file.asStruct(), "");
        if (merged.equals(table.asStruct())) {
            return table;
        }
        return schema(merged.fields());
    }

    private static Schema schema(List<Types.NestedField> fields)
            throws IncompatibleSchemaException {
        try {
            return new Schema(fields);
        } catch (RuntimeException e) {
            throw new IncompatibleSchemaException("invalid merged schema: " + e.getMessage());
        }
    }

    private static Type mergeType(Type t, Type f, String path) throws IncompatibleSchemaException {
        if (t.isPrimitiveType() && f.isPrimitiveType()) {
            if (t.equals(f) || TypeUtil.isPromotionAllowed(f, t.asPrimitiveType())) {
                return t;
            }
            if (TypeUtil.isPromotionAllowed(t, f.asPrimitiveType())) {
                return f;
            }
            throw incompatible(path, t, f);
        }
        if (t.typeId() != f.typeId()) {
            throw incompatible(path, t, f);
        }
        switch (t.typeId()) {
            case STRUCT:
                return mergeStruct(t.asStructType(), f.asStructType(), path);
            case LIST:
                {
                    Types.ListType tl = t.asListType();
                    Types.ListType fl = f.asListType();
                    if (tl.elementId() != fl.elementId()) {
                        throw new IncompatibleSchemaException(
                                path
                                        + ": list element id "
                                        + fl.elementId()
                                        + " is not "
                                        + tl.elementId());
                    }
                    Type e = mergeType(tl.elementType(), fl.elementType(), path + ".element");
                    return tl.isElementOptional() || fl.isElementOptional()
                            ? Types.ListType.ofOptional(tl.elementId(), e)
                            : Types.ListType.ofRequired(tl.elementId(), e);
                }
            case MAP:
                {
                    Types.MapType tm = t.asMapType();
                    Types.MapType fm = f.asMapType();
                    if (tm.keyId() != fm.keyId() || tm.valueId() != fm.valueId()) {
                        throw new IncompatibleSchemaException(path + ": map key/value ids differ");
                    }
                    Type k = mergeType(tm.keyType(), fm.keyType(), path + ".key");
                    Type v = mergeType(tm.valueType(), fm.valueType(), path + ".value");
                    return tm.isValueOptional() || fm.isValueOptional()
                            ? Types.MapType.ofOptional(tm.keyId(), tm.valueId(), k, v)
                            : Types.MapType.ofRequired(tm.keyId(), tm.valueId(), k, v);
                }
            default:
                throw incompatible(path, t, f);
        }
    }

    private static Type mergeStruct(Types.StructType t, Types.StructType f, String path)
            throws IncompatibleSchemaException {
        Map<Integer, Types.NestedField> fileById = new LinkedHashMap<>();
        for (Types.NestedField x : f.fields()) {
            fileById.put(x.fieldId(), x);
        }
        List<Types.NestedField> out = new ArrayList<>();
        for (Types.NestedField x : t.fields()) {
            Types.NestedField y = fileById.remove(x.fieldId());
            if (y == null) {
                out.add(x);
                continue;
            }
            Type merged = mergeType(x.type(), y.type(), path + "." + x.name());
            boolean optional = x.isOptional() || y.isOptional();
            out.add(
                    optional
                            ? Types.NestedField.optional(x.fieldId(), x.name(), merged, x.doc())
                            : Types.NestedField.required(x.fieldId(), x.name(), merged, x.doc()));
        }
        for (Types.NestedField y : fileById.values()) {
            out.add(optional(y));
        }
        return Types.StructType.of(out);
    }

    /** {@code f} and everything nested in it optional (map keys stay required). */
    static Types.NestedField optional(Types.NestedField f) {
        return Types.NestedField.optional(f.fieldId(), f.name(), relax(f.type()), f.doc());
    }

    private static Type relax(Type t) {
        switch (t.typeId()) {
            case STRUCT:
                {
                    List<Types.NestedField> fs = new ArrayList<>();
                    for (Types.NestedField x : t.asStructType().fields()) {
                        fs.add(optional(x));
                    }
                    return Types.StructType.of(fs);
                }
            case LIST:
                {
                    Types.ListType l = t.asListType();
                    return Types.ListType.ofOptional(l.elementId(), relax(l.elementType()));
                }
            case MAP:
                {
                    Types.MapType m = t.asMapType();
                    return Types.MapType.ofOptional(
                            m.keyId(), m.valueId(), m.keyType(), relax(m.valueType()));
                }
            default:
                return t;
        }
    }

    private static IncompatibleSchemaException incompatible(String path, Type t, Type f) {
        return new IncompatibleSchemaException(
                "column "
                        + (path.isEmpty() ? "<root>" : path.substring(1))
                        + ": the table has "
                        + t
                        + ", the object "
                        + f);
    }
}

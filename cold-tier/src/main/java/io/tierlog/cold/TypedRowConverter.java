package io.tierlog.cold;

import io.tierlog.common.typed.TypedType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;

/**
 * Materializes a typed column ({@code value_record}, {@code key_record}) read by parquet-mr back
 * into the value model of {@link TypedType}: a struct as {@code Object[]}, a list as {@link
 * ArrayList}, a map as {@link LinkedHashMap}, primitives as their boxed Java types (strings as
 * {@link String}, bytes as a copied {@code byte[]}). The inverse of {@link
 * TypedParquet#writeFields}.
 *
 * <p>Not thread-safe: one per record reader.
 */
final class TypedRowConverter extends GroupConverter {
    private final TypedType.Struct struct;
    private final Consumer<Object[]> sink;
    private final Converter[] children;
    private Object[] row;

    /** A converter of a top-level struct column: {@code sink} gets each row at its end. */
    TypedRowConverter(TypedType.Struct struct, Consumer<Object[]> sink) {
        this.struct = struct;
        this.sink = sink;
        this.children = new Converter[struct.fields().size()];
        for (int i = 0; i < children.length; i++) {
            int at = i;
            children[i] = converter(struct.fields().get(i).type(), v -> row[at] = v);
        }
    }

    @Override
    public Converter getConverter(int fieldIndex) {
        return children[fieldIndex];
    }

    @Override
    public void start() {
        row = new Object[struct.fields().size()];
    }

    @Override
    public void end() {
        sink.accept(row);
    }

    private static Converter converter(TypedType t, Consumer<Object> sink) {
        if (t instanceof TypedType.Primitive p) {
            return primitive(p.kind(), sink);
        }
        if (t instanceof TypedType.Struct s) {
            return new TypedRowConverter(s, sink::accept);
        }
        if (t instanceof TypedType.ListOf l) {
            return new ListConverter(l, sink);
        }
        return new MapConverter((TypedType.MapOf) t, sink);
    }

    /** {@code <list>} / repeated {@code list} / {@code element}. */
    private static final class ListConverter extends GroupConverter {
        private final Consumer<Object> sink;
        private final GroupConverter repeated;
        private List<Object> list;

        ListConverter(TypedType.ListOf type, Consumer<Object> sink) {
            this.sink = sink;
            Converter element = converter(type.element(), v -> list.set(list.size() - 1, v));
            this.repeated =
                    new GroupConverter() {
                        @Override
                        public Converter getConverter(int i) {
                            return element;
                        }

                        @Override
                        public void start() {
                            list.add(null); // stays null for a null element
                        }

                        @Override
                        public void end() {}
                    };
        }

        @Override
        public Converter getConverter(int i) {
            return repeated;
        }

        @Override
        public void start() {
            list = new ArrayList<>();
        }

        @Override
        public void end() {
            sink.accept(list);
        }
    }

    /** {@code <map>} / repeated {@code key_value} / {@code key}, {@code value}. */
    private static final class MapConverter extends GroupConverter {
        private final Consumer<Object> sink;
        private final GroupConverter repeated;
        private Map<Object, Object> map;
        private Object key;
        private Object value;

        MapConverter(TypedType.MapOf type, Consumer<Object> sink) {
            this.sink = sink;
            Converter k = converter(type.key(), v -> key = v);
            Converter v = converter(type.value(), x -> value = x);
            this.repeated =
                    new GroupConverter() {
                        @Override
                        public Converter getConverter(int i) {
                            return i == 0 ? k : v;
                        }

                        @Override
                        public void start() {
                            key = null;
                            value = null;
                        }

                        @Override
                        public void end() {
                            map.put(key, value);
                        }
                    };
        }

        @Override
        public Converter getConverter(int i) {
            return repeated;
        }

        @Override
        public void start() {
            map = new LinkedHashMap<>();
        }

        @Override
        public void end() {
            sink.accept(map);
        }
    }

    private static PrimitiveConverter primitive(TypedType.Kind kind, Consumer<Object> sink) {
        return switch (kind) {
            case BOOLEAN ->
                    new PrimitiveConverter() {
                        @Override
                        public void addBoolean(boolean v) {
                            sink.accept(v);
                        }
                    };
            case INT, DATE ->
                    new PrimitiveConverter() {
                        @Override
                        public void addInt(int v) {
                            sink.accept(v);
                        }
                    };
            case LONG, TIMESTAMP_MICROS ->
                    new PrimitiveConverter() {
                        @Override
                        public void addLong(long v) {
                            sink.accept(v);
                        }
                    };
            case FLOAT ->
                    new PrimitiveConverter() {
                        @Override
                        public void addFloat(float v) {
                            sink.accept(v);
                        }
                    };
            case DOUBLE ->
                    new PrimitiveConverter() {
                        @Override
                        public void addDouble(double v) {
                            sink.accept(v);
                        }
                    };
            case STRING ->
                    new PrimitiveConverter() {
                        @Override
                        public void addBinary(Binary v) {
                            sink.accept(v.toStringUsingUTF8());
                        }
                    };
            case BYTES ->
                    new PrimitiveConverter() {
                        @Override
                        public void addBinary(Binary v) {
                            sink.accept(v.getBytes());
                        }
                    };
        };
    }
}

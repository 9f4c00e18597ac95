package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves typed values from one struct shape to another: a version's own row into the subject's
 * merged struct (fields matched by id, INT widened to LONG, FLOAT to DOUBLE), and back, an object's
 * row into a writer schema's shape for rebuilding (fields matched by name, LONG narrowed to INT and
 * DOUBLE to FLOAT only when exact). A value whose type does not fit the target becomes null.
 * Immutable once compiled, so thread-safe.
 */
abstract class Projector {
    abstract Object apply(Object value);

    static final Projector IDENTITY =
            new Projector() {
                @Override
                Object apply(Object value) {
                    return value;
                }
            };

    private static final Projector DROP =
            new Projector() {
                @Override
                Object apply(Object value) {
                    return null;
                }
            };

    /**
     * From {@code from} to {@code to}, struct fields matched by id, or by name when {@code byName}.
     */
    static Projector compile(TypedType from, TypedType to, boolean byName) {
        if (from.equals(to) || sameShape(from, to, byName)) {
            return IDENTITY;
        }
        if (from instanceof TypedType.Primitive pf && to instanceof TypedType.Primitive pt) {
            return convert(pf.kind(), pt.kind());
        }
        if (from instanceof TypedType.Struct sf && to instanceof TypedType.Struct st) {
            return struct(sf, st, byName);
        }
        if (from instanceof TypedType.ListOf lf && to instanceof TypedType.ListOf lt) {
            Projector element = compile(lf.element(), lt.element(), byName);
            return new Projector() {
                @Override
                Object apply(Object value) {
                    if (value == null) {
                        return null;
                    }
                    List<?> list = (List<?>) value;
                    List<Object> out = new ArrayList<>(list.size());
                    for (Object e : list) {
                        out.add(e == null ? null : element.apply(e));
                    }
                    return out;
                }
            };
        }
        if (from instanceof TypedType.MapOf mf && to instanceof TypedType.MapOf mt) {
            Projector key = compile(mf.key(), mt.key(), byName);
            Projector val = compile(mf.value(), mt.value(), byName);
            return new Projector() {
                @Override
                Object apply(Object value) {
                    if (value == null) {
                        return null;
                    }
                    Map<Object, Object> out = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                        Object k = key.apply(e.getKey());
                        if (k != null) {
                            out.put(k, e.getValue() == null ? null : val.apply(e.getValue()));
                        }
                    }
                    return out;
                }
            };
        }
        return DROP;
    }

    /**
     * True when values of {@code from} are values of {@code to} as they are: the same kinds in the
     * same places, struct fields in the same order matched the same way (ids or names may differ in
     * what is not matched, and optional flags do not matter to values).
     */
    static boolean sameShape(TypedType from, TypedType to, boolean byName) {
        if (from instanceof TypedType.Primitive pf && to instanceof TypedType.Primitive pt) {
            return pf.kind() == pt.kind();
        }
        if (from instanceof TypedType.Struct sf && to instanceof TypedType.Struct st) {
            if (sf.fields().size() != st.fields().size()) {
                return false;
            }
            for (int i = 0; i < sf.fields().size(); i++) {
                TypedType.Field a = sf.fields().get(i);
                TypedType.Field b = st.fields().get(i);
                boolean matched = byName ? a.name().equals(b.name()) : a.id() == b.id();
                if (!matched || !sameShape(a.type(), b.type(), byName)) {
                    return false;
                }
            }
            return true;
        }
        if (from instanceof TypedType.ListOf lf && to instanceof TypedType.ListOf lt) {
            return sameShape(lf.element(), lt.element(), byName);
        }
        if (from instanceof TypedType.MapOf mf && to instanceof TypedType.MapOf mt) {
            return sameShape(mf.key(), mt.key(), byName)
                    && sameShape(mf.value(), mt.value(), byName);
        }
        return false;
    }

    private static Projector struct(TypedType.Struct from, TypedType.Struct to, boolean byName) {
        int n = to.fields().size();
        int[] source = new int[n];
        Projector[] children = new Projector[n];
        for (int j = 0; j < n; j++) {
            TypedType.Field target = to.fields().get(j);
            source[j] = -1;
            for (int i = 0; i < from.fields().size(); i++) {
                TypedType.Field f = from.fields().get(i);
                if (byName ? f.name().equals(target.name()) : f.id() == target.id()) {
                    source[j] = i;
                    children[j] = compile(f.type(), target.type(), byName);
                    break;
                }
            }
        }
        return new Projector() {
            @Override
            Object apply(Object value) {
                if (value == null) {
                    return null;
                }
                Object[] row = (Object[]) value;
                Object[] out = new Object[n];
                for (int j = 0; j < n; j++) {
                    if (source[j] >= 0 && row[source[j]] != null) {
                        out[j] = children[j].apply(row[source[j]]);
                    }
                }
                return out;
            }
        };
    }

    private static Projector convert(Kind from, Kind to) {
        if (from == to) {
            return IDENTITY;
        }
        if (from == Kind.INT && to == Kind.LONG) {
            return of(v -> ((Integer) v).longValue());
        }
        if (from == Kind.FLOAT && to == Kind.DOUBLE) {
            return of(v -> ((Float) v).doubleValue());
        }
        if (from == Kind.LONG && to == Kind.INT) {
            return of(
                    v -> {
                        long l = (Long) v;
                        return l == (int) l ? (Object) (int) l : null;
                    });
        }
        if (from == Kind.DOUBLE && to == Kind.FLOAT) {
            return of(
                    v -> {
                        double d = (Double) v;
                        float f = (float) d;
                        return f == d || Double.isNaN(d) ? (Object) f : null;
                    });
        }
        return DROP;
    }

    private static Projector of(java.util.function.Function<Object, Object> f) {
        return new Projector() {
            @Override
            Object apply(Object value) {
                return value == null ? null : f.apply(value);
            }
        };
    }
}

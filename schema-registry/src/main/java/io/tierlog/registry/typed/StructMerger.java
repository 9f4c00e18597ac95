package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.common.typed.TypedType.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges the typed structs of a subject's versions into the one struct an object's column has,
 * following Iceberg's evolution rules: fields are matched by field id (never by name); a field of
 * any version is in the merge; INT and LONG make LONG, FLOAT and DOUBLE make DOUBLE; containers
 * merge their children; any other change of type for the same id takes the later version's type
 * (values of earlier versions that do not fit it are left null). Every struct field is optional.
 * Names stay unique within a struct: when two ids carry one name (a field removed and re-added, so
 * given a new id), the newest id keeps the name and the others become {@code name_<id>}. Stateless,
 * so thread-safe.
 */
final class StructMerger {
    private StructMerger() {}

    /** The merge of {@code structs}, oldest first. */
    static TypedType.Struct merge(List<TypedType.Struct> structs) {
        TypedType merged = null;
        for (TypedType.Struct s : structs) {
            merged = merged == null ? s : merge(merged, s);
        }
        return (TypedType.Struct) uniqueNames(optional(merged));
    }

    static TypedType merge(TypedType a, TypedType b) {
        if (a instanceof TypedType.Primitive pa && b instanceof TypedType.Primitive pb) {
            return new TypedType.Primitive(widen(pa.kind(), pb.kind()));
        }
        if (a instanceof TypedType.Struct sa && b instanceof TypedType.Struct sb) {
            Map<Integer, TypedType.Field> byId = new LinkedHashMap<>();
            for (TypedType.Field f : sa.fields()) {
                byId.put(f.id(), f);
            }
            for (TypedType.Field f : sb.fields()) {
                TypedType.Field old = byId.get(f.id());
                byId.put(
                        f.id(),
                        old == null
                                ? f
                                : new TypedType.Field(
                                        f.id(), f.name(), merge(old.type(), f.type()), true));
            }
            return new TypedType.Struct(new ArrayList<>(byId.values()));
        }
        if (a instanceof TypedType.ListOf la
                && b instanceof TypedType.ListOf lb
                && la.elementId() == lb.elementId()) {
            return new TypedType.ListOf(
                    la.elementId(),
                    merge(la.element(), lb.element()),
                    la.elementOptional() || lb.elementOptional());
        }
        if (a instanceof TypedType.MapOf ma
                && b instanceof TypedType.MapOf mb
                && ma.keyId() == mb.keyId()
                && ma.valueId() == mb.valueId()) {
            return new TypedType.MapOf(
                    ma.keyId(),
                    merge(ma.key(), mb.key()),
                    ma.valueId(),
                    merge(ma.value(), mb.value()),
                    ma.valueOptional() || mb.valueOptional());
        }
        return b;
    }

    private static Kind widen(Kind a, Kind b) {
        if (a == b) {
            return a;
        }
        if ((a == Kind.INT && b == Kind.LONG) || (a == Kind.LONG && b == Kind.INT)) {
            return Kind.LONG;
        }
        if ((a == Kind.FLOAT && b == Kind.DOUBLE) || (a == Kind.DOUBLE && b == Kind.FLOAT)) {
            return Kind.DOUBLE;
        }
        return b;
    }

    private static TypedType optional(TypedType t) {
        if (t instanceof TypedType.Struct s) {
            List<TypedType.Field> fields = new ArrayList<>();
            for (TypedType.Field f : s.fields()) {
                fields.add(new TypedType.Field(f.id(), f.name(), optional(f.type()), true));
            }
            return new TypedType.Struct(fields);
        }
        if (t instanceof TypedType.ListOf l) {
            return new TypedType.ListOf(l.elementId(), optional(l.element()), l.elementOptional());
        }
        if (t instanceof TypedType.MapOf m) {
            return new TypedType.MapOf(
                    m.keyId(), m.key(), m.valueId(), optional(m.value()), m.valueOptional());
        }
        return t;
    }

    private static TypedType uniqueNames(TypedType t) {
        if (t instanceof TypedType.Struct s) {
            Map<String, Integer> newest = new LinkedHashMap<>();
            for (TypedType.Field f : s.fields()) {
                newest.merge(f.name(), f.id(), Math::max);
            }
            Set<String> taken = new HashSet<>(newest.keySet());
            List<TypedType.Field> fields = new ArrayList<>();
            for (TypedType.Field f : s.fields()) {
                String name = f.name();
                if (newest.get(name) != f.id()) {
                    name = f.name() + "_" + f.id();
                    while (!taken.add(name)) {
                        name = name + "_";
                    }
                }
                fields.add(new TypedType.Field(f.id(), name, uniqueNames(f.type()), f.optional()));
            }
            return new TypedType.Struct(fields);
        }
        if (t instanceof TypedType.ListOf l) {
            return new TypedType.ListOf(
                    l.elementId(), uniqueNames(l.element()), l.elementOptional());
        }
        if (t instanceof TypedType.MapOf m) {
            return new TypedType.MapOf(
                    m.keyId(), m.key(), m.valueId(), uniqueNames(m.value()), m.valueOptional());
        }
        return t;
    }
}

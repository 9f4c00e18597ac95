package io.tierlog.registry.typed;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gives the field id of a path of a schema's typed view while a view is built: from a subject
 * version's stored ids, or a recorder that collects every path (for {@link
 * TypedMapping#fieldPaths}) or numbers them (for rebuilding, which matches fields by name). Paths
 * are dotted; a dot or backslash inside a name is escaped with a backslash, so that a JSON property
 * named {@code a.b} is not the field {@code b} of {@code a}. Not thread-safe (a recorder collects).
 */
abstract class FieldIds {
    /** No id: the path has no field (its subtree is left out of the view). */
    static final int NONE = -1;

    /** The id of {@code path}, or {@link #NONE}. */
    abstract int id(String path);

    static String child(String parent, String name) {
        String escaped =
                name.indexOf('.') < 0 && name.indexOf('\\') < 0
                        ? name
                        : name.replace("\\", "\\\\").replace(".", "\\.");
        return parent.isEmpty() ? escaped : parent + "." + escaped;
    }

    /** Ids from a stored map (a subject version's {@code fieldIds}) plus a base. */
    static FieldIds of(Map<String, Integer> ids, int base) {
        return new FieldIds() {
            @Override
            int id(String path) {
                Integer id = ids.get(path);
                return id == null ? NONE : base + id;
            }
        };
    }

    /** Numbers every path from 1 in visiting order, and remembers them. */
    static final class Recorder extends FieldIds {
        final List<String> paths = new ArrayList<>();

        @Override
        int id(String path) {
            paths.add(path);
            return paths.size();
        }
    }
}

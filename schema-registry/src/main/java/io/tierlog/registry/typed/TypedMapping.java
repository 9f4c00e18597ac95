package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.registry.ParsedSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a schema becomes typed columns: the field paths a version contributes (the registry assigns
 * each path a field id at registration, stable per subject; see {@code SubjectVersion}), and the
 * typed struct a set of versions makes. The mapping of each format is documented on its view:
 * {@code AvroView}, {@code JsonView}, {@code ProtobufView}. Stateless, so thread-safe.
 */
public final class TypedMapping {
    private TypedMapping() {}

    /** A subject version as the mapping needs it: its schema and its stored field ids. */
    public record Version(ParsedSchema schema, Map<String, Integer> fieldIds) {
        public Version {
            Objects.requireNonNull(schema, "schema");
            fieldIds = Map.copyOf(fieldIds);
        }
    }

    /**
     * Every field path of {@code schema}'s typed view, parents before children, dotted ({@code
     * amount}, {@code customer}, {@code customer.name}); list elements and map keys and values are
     * paths too ({@code tags.element}, {@code attrs.key}, {@code attrs.value}), since Iceberg gives
     * them field ids; the branches of an Avro union of several types are {@code x.member0}, {@code
     * x.member1}, ...; a dot or backslash inside a name is escaped with a backslash. Empty when the
     * schema has no typed view (for example a JSON Schema that is not an object, or an Avro schema
     * that is not a record).
     */
    public static List<String> fieldPaths(ParsedSchema schema) {
        FieldIds.Recorder recorder = new FieldIds.Recorder();
        if (VersionView.of(schema, recorder) == null) {
            return List.of();
        }
        return List.copyOf(recorder.paths);
    }

    /**
     * The typed struct of a subject: the views of {@code versions} (oldest first) merged by field
     * id, each at {@code fieldIdBase} + its stored id; INT and LONG merge to LONG, FLOAT and DOUBLE
     * to DOUBLE; every struct field optional. Empty when no version has a typed view.
     */
    public static Optional<TypedType.Struct> struct(List<Version> versions, int fieldIdBase) {
        List<TypedType.Struct> structs = new ArrayList<>();
        for (Version v : versions) {
            VersionView view = VersionView.of(v.schema(), FieldIds.of(v.fieldIds(), fieldIdBase));
            if (view != null) {
                structs.add(view.struct());
            }
        }
        return structs.isEmpty() ? Optional.empty() : Optional.of(StructMerger.merge(structs));
    }
}

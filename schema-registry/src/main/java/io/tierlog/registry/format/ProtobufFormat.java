package io.tierlog.registry.format;

import com.google.protobuf.AnyProto;
import com.google.protobuf.ApiProto;
import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.SourceContextProto;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.TypeProto;
import com.google.protobuf.WrappersProto;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.TypeElement;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Protobuf schemas: one .proto file as text, parsed by Wire, linked by protobuf-java into a {@code
 * FileDescriptor} whose imports are the referenced schemas (a reference's name is the import path)
 * or protobuf's well-known types ({@code google/protobuf/timestamp.proto} and the others bundled
 * with protobuf-java, which need no reference, as in Confluent's registry). The canonical form is
 * the file as Wire prints it (comments and layout dropped); normalized, imports and options are
 * also sorted. Stateless, so thread-safe.
 */
final class ProtobufFormat {
    /** The name the registered file itself gets in its descriptor; imports never use it. */
    static final String FILE_NAME = "schema.proto";

    static final Map<String, Descriptors.FileDescriptor> WELL_KNOWN =
            Map.ofEntries(
                    Map.entry("google/protobuf/any.proto", AnyProto.getDescriptor()),
                    Map.entry("google/protobuf/api.proto", ApiProto.getDescriptor()),
                    Map.entry("google/protobuf/descriptor.proto", DescriptorProtos.getDescriptor()),
                    Map.entry("google/protobuf/duration.proto", DurationProto.getDescriptor()),
                    Map.entry("google/protobuf/empty.proto", EmptyProto.getDescriptor()),
                    Map.entry("google/protobuf/field_mask.proto", FieldMaskProto.getDescriptor()),
                    Map.entry(
                            "google/protobuf/source_context.proto",
                            SourceContextProto.getDescriptor()),
                    Map.entry("google/protobuf/struct.proto", StructProto.getDescriptor()),
                    Map.entry("google/protobuf/timestamp.proto", TimestampProto.getDescriptor()),
                    Map.entry("google/protobuf/type.proto", TypeProto.getDescriptor()),
                    Map.entry("google/protobuf/wrappers.proto", WrappersProto.getDescriptor()));

    private ProtobufFormat() {}

    static ProtobufParsedSchema parse(
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize) {
        Map<Integer, Descriptors.FileDescriptor> built = new HashMap<>();
        for (References.Resolved resolved : References.resolveAll(references, resolver)) {
            String name =
                    "referenced schema " + resolved.subject() + " version " + resolved.version();
            ProtoFileElement element = parseText(resolved.schema().text(), name);
            built.put(
                    resolved.key(),
                    link(
                            element,
                            importPath(resolved),
                            resolved.schema().references(),
                            resolver,
                            built,
                            name));
        }
        ProtoFileElement element = parseText(text, "the schema");
        Descriptors.FileDescriptor descriptor =
                link(element, FILE_NAME, references, resolver, built, "the schema");
        ProtoFileElement canonicalElement = normalize ? normalized(element) : element;
        String canonical = canonicalElement.toSchema();
        return new Parsed(
                normalize ? canonical : text,
                canonical,
                List.copyOf(references),
                descriptor,
                canonicalElement);
    }

    /** The path a resolved file is imported by: the name its first referrer gave it. */
    private static String importPath(References.Resolved resolved) {
        return resolved.subject()
                + "/"
                + resolved.version()
                + "/"
                + resolved.schema().id()
                + ".proto";
    }

    private static ProtoFileElement parseText(String text, String what) {
        try {
            return ProtoParser.Companion.parse(Location.get(FILE_NAME), text);
        } catch (RuntimeException e) {
            throw References.invalid(what + " does not parse as Protobuf: " + e.getMessage(), e);
        }
    }

    private static Descriptors.FileDescriptor link(
            ProtoFileElement element,
            String fileName,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            Map<Integer, Descriptors.FileDescriptor> built,
            String what) {
        Map<String, SchemaReference> byName = new HashMap<>();
        for (SchemaReference ref : references) {
            byName.put(ref.name(), ref);
        }
        List<String> imports = new ArrayList<>(element.getImports());
        imports.addAll(element.getPublicImports());
        imports.addAll(element.getWeakImports());
        List<Descriptors.FileDescriptor> dependencies = new ArrayList<>();
        List<String> dependencyNames = new ArrayList<>();
        for (String path : imports) {
            SchemaReference ref = byName.get(path);
            Descriptors.FileDescriptor dependency;
            if (ref != null) {
                dependency = built.get(References.resolveOne(ref, resolver).key());
            } else {
                dependency = WELL_KNOWN.get(path);
            }
            if (dependency == null) {
                throw References.invalid(
                        what
                                + " imports "
                                + path
                                + ", which is neither a reference nor a well-known type");
            }
            dependencies.add(dependency);
            dependencyNames.add(dependency.getName());
        }
        FileDescriptorProto proto;
        try {
            proto = ProtoDescriptors.toProto(fileName, element, dependencyNames);
            return Descriptors.FileDescriptor.buildFrom(
                    proto, dependencies.toArray(new Descriptors.FileDescriptor[0]));
        } catch (Descriptors.DescriptorValidationException e) {
            throw References.invalid(what + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw References.invalid(what + ": " + e.getMessage(), e);
        }
    }

    /** The element with imports and options in name order: differences that change no meaning. */
    static ProtoFileElement normalized(ProtoFileElement e) {
        return new ProtoFileElement(
                e.getLocation(),
                e.getPackageName(),
                e.getSyntax(),
                e.getImports().stream().sorted().toList(),
                e.getPublicImports().stream().sorted().toList(),
                e.getWeakImports().stream().sorted().toList(),
                e.getTypes(),
                e.getServices(),
                e.getExtendDeclarations(),
                sortedOptions(e.getOptions()));
    }

    private static List<OptionElement> sortedOptions(List<OptionElement> options) {
        return options.stream().sorted(Comparator.comparing(OptionElement::toSchema)).toList();
    }

    /**
     * The message {@code indexes} name: a path of positions among (nested) message declarations.
     */
    static Descriptors.Descriptor message(Descriptors.FileDescriptor file, List<Integer> indexes) {
        if (file.getMessageTypes().isEmpty()) {
            throw new IllegalArgumentException("the schema declares no message");
        }
        if (indexes.isEmpty()) {
            return file.getMessageTypes().get(0);
        }
        List<Descriptors.Descriptor> level = file.getMessageTypes();
        Descriptors.Descriptor found = null;
        for (int index : indexes) {
            if (index < 0
                    || index >= level.size()
                    || (found != null && isMapEntry(level.get(index)))) {
                throw new IllegalArgumentException(
                        "message indexes " + indexes + " name no message of the schema");
            }
            found = level.get(index);
            level = found.getNestedTypes();
        }
        return found;
    }

    private static boolean isMapEntry(Descriptors.Descriptor d) {
        return d.getOptions().getMapEntry();
    }

    /** Immutable, so thread-safe. */
    record Parsed(
            String text,
            String canonical,
            List<SchemaReference> references,
            Descriptors.FileDescriptor fileDescriptor,
            ProtoFileElement element)
            implements ProtobufParsedSchema {
        @Override
        public SchemaType type() {
            return SchemaType.PROTOBUF;
        }

        @Override
        public Descriptors.Descriptor message(List<Integer> messageIndexes) {
            return ProtobufFormat.message(fileDescriptor, messageIndexes);
        }

        /** Top-level message elements, in declaration order (the first is index [0]). */
        List<MessageElement> messages() {
            List<MessageElement> out = new ArrayList<>();
            for (TypeElement t : element.getTypes()) {
                if (t instanceof MessageElement m) {
                    out.add(m);
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return "PROTOBUF " + canonical;
        }
    }
}

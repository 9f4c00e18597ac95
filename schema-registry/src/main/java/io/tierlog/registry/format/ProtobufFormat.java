package io.tierlog.registry.format;

import com.google.protobuf.AnyProto;
import com.google.protobuf.ApiProto;
import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.SourceContextProto;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.TypeProto;
import com.google.protobuf.WrappersProto;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import io.tierlog.registry.SchemaReference;
import io.tierlog.registry.SchemaType;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Protobuf schemas: one .proto file as text, parsed by Wire, linked by protobuf-java into a {@code
 * FileDescriptor} whose imports are the referenced schemas (a reference's name is the import path)
 * or protobuf's well-known types ({@code google/protobuf/timestamp.proto} and the others bundled
 * with protobuf-java, and Confluent's {@code confluent/meta.proto} and {@code
 * confluent/type/decimal.proto}, which need no reference, as in Confluent's registry). The
 * canonical form is the file as Wire prints it (comments and layout dropped); normalized, imports
 * and options are also sorted. Stateless, so thread-safe.
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

    /** Confluent's own built-in imports, which need no reference either. */
    static final Map<String, Descriptors.FileDescriptor> CONFLUENT = ConfluentProtos.build();

    private ProtobufFormat() {}

    static ProtobufParsedSchema parse(
            String text,
            List<SchemaReference> references,
            ReferenceResolver resolver,
            boolean normalize) {
        if (!references.isEmpty() && resolver == null) {
            throw References.invalid("the schema has references but no resolver was given");
        }
        Linker linker = new Linker(resolver);
        boolean fromDescriptor = false;
        ProtoFileElement element;
        try {
            element = ProtoParser.Companion.parse(Location.get(FILE_NAME), text);
        } catch (RuntimeException e) {
            // Clients without a .proto parser (Confluent's JavaScript serdes) send a base64
            // FileDescriptorProto instead; Confluent's registry accepts both.
            FileDescriptorProto proto = maybeDescriptor(text);
            if (proto == null) {
                throw References.invalid(
                        "the schema does not parse as Protobuf: " + e.getMessage(), e);
            }
            fromDescriptor = true;
            element =
                    parseText(
                            ProtoPrinter.print(proto), "the schema (from its FileDescriptorProto)");
        }
        Descriptors.FileDescriptor descriptor =
                linker.link(element, FILE_NAME, references, "the schema", 0);
        ProtoFileElement canonicalElement = normalize ? normalized(element) : element;
        String canonical = canonicalElement.toSchema();
        return new Parsed(
                normalize || fromDescriptor ? canonical : text,
                canonical,
                List.copyOf(references),
                descriptor,
                canonicalElement);
    }

    /** The descriptor {@code text} holds as base64, or null when it is not one. */
    static FileDescriptorProto maybeDescriptor(String text) {
        String trimmed = text.strip();
        if (!trimmed.matches("[A-Za-z0-9+/=\\s]+")) {
            return null;
        }
        try {
            byte[] bytes = Base64.getMimeDecoder().decode(trimmed);
            FileDescriptorProto proto = FileDescriptorProto.parseFrom(bytes);
            return proto.getMessageTypeCount() + proto.getEnumTypeCount() + proto.getServiceCount()
                                    == 0
                            && !proto.hasPackage()
                    ? null
                    : proto;
        } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
            return null;
        }
    }

    static ProtoFileElement parseText(String text, String what) {
        try {
            return ProtoParser.Companion.parse(Location.get(FILE_NAME), text);
        } catch (RuntimeException e) {
            throw References.invalid(what + " does not parse as Protobuf: " + e.getMessage(), e);
        }
    }

    /**
     * Links files against their imports, building each referenced file once per import name (a
     * descriptor's dependencies are matched by file name, and the name is the import path). Not
     * thread-safe; one per parse.
     */
    private static final class Linker {
        private final ReferenceResolver resolver;
        private final Map<String, Descriptors.FileDescriptor> built = new HashMap<>();
        private final Set<String> inProgress = new HashSet<>();

        Linker(ReferenceResolver resolver) {
            this.resolver = resolver;
        }

        private Descriptors.FileDescriptor referenced(SchemaReference ref, int depth) {
            if (depth > References.MAX_DEPTH) {
                throw References.invalid("references nest deeper than " + References.MAX_DEPTH);
            }
            References.Resolved resolved = References.resolveOne(ref, resolver);
            String key = resolved.key() + "|" + ref.name();
            Descriptors.FileDescriptor done = built.get(key);
            if (done != null) {
                return done;
            }
            if (!inProgress.add(key)) {
                throw References.invalid("references form a cycle through " + ref.name());
            }
            String what =
                    "referenced schema "
                            + ref.name()
                            + " (subject "
                            + ref.subject()
                            + " version "
                            + ref.version()
                            + ")";
            String text = resolved.schema().text();
            ProtoFileElement element;
            try {
                element = ProtoParser.Companion.parse(Location.get(ref.name()), text);
            } catch (RuntimeException e) {
                FileDescriptorProto proto = maybeDescriptor(text);
                if (proto == null) {
                    throw References.invalid(
                            what + " does not parse as Protobuf: " + e.getMessage(), e);
                }
                element = parseText(ProtoPrinter.print(proto), what);
            }
            Descriptors.FileDescriptor file =
                    link(element, ref.name(), resolved.schema().references(), what, depth);
            inProgress.remove(key);
            built.put(key, file);
            return file;
        }

        Descriptors.FileDescriptor link(
                ProtoFileElement element,
                String fileName,
                List<SchemaReference> references,
                String what,
                int depth) {
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
                Descriptors.FileDescriptor dependency =
                        ref != null
                                ? referenced(ref, depth + 1)
                                : WELL_KNOWN.getOrDefault(path, CONFLUENT.get(path));
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
            try {
                FileDescriptorProto proto =
                        ProtoDescriptors.toProto(fileName, element, dependencyNames);
                return Descriptors.FileDescriptor.buildFrom(
                        proto, dependencies.toArray(new Descriptors.FileDescriptor[0]));
            } catch (Descriptors.DescriptorValidationException e) {
                throw References.invalid(what + ": " + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw References.invalid(what + ": " + e.getMessage(), e);
            }
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
        public String serialized() {
            return Base64.getEncoder()
                    .encodeToString(ResolvedDescriptorProto.of(fileDescriptor).toByteArray());
        }

        @Override
        public Descriptors.Descriptor message(List<Integer> messageIndexes) {
            return ProtobufFormat.message(fileDescriptor, messageIndexes);
        }

        @Override
        public String toString() {
            return "PROTOBUF " + canonical;
        }
    }
}

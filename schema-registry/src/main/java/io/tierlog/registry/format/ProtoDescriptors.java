package io.tierlog.registry.format;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumOptions;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileOptions;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.squareup.wire.Syntax;
import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.ExtendElement;
import com.squareup.wire.schema.internal.parser.ExtensionsElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ReservedElement;
import com.squareup.wire.schema.internal.parser.RpcElement;
import com.squareup.wire.schema.internal.parser.ServiceElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kotlin.ranges.IntRange;

/**
 * Turns Wire's parse of a .proto file into protobuf-java's {@code FileDescriptorProto}, as protoc
 * would describe the file, so protobuf-java can link it against its imports and build a {@code
 * FileDescriptor} (which validates names, numbers and types). Type names are left as written:
 * protobuf-java resolves relative names by protobuf's scoping rules. Map fields become the nested
 * {@code XxxEntry} messages protoc synthesizes; they are appended after the declared nested
 * messages, so a message's declared nested types keep the positions Confluent's message indexes
 * count. proto3 {@code optional} fields get protoc's synthetic oneofs. Options that change how data
 * is read or validated are carried ({@code packed}, {@code allow_alias}, {@code deprecated}, the
 * Java file options); other options stay in the text only. Groups are refused. Stateless.
 */
final class ProtoDescriptors {
    private static final Pattern MAP =
            Pattern.compile("map\\s*<\\s*([\\w.]+)\\s*,\\s*([\\w.]+)\\s*>");
    private static final int MAX_FIELD_NUMBER = 536_870_911;

    private static final Map<String, FieldDescriptorProto.Type> SCALARS =
            Map.ofEntries(
                    Map.entry("double", FieldDescriptorProto.Type.TYPE_DOUBLE),
                    Map.entry("float", FieldDescriptorProto.Type.TYPE_FLOAT),
                    Map.entry("int64", FieldDescriptorProto.Type.TYPE_INT64),
                    Map.entry("uint64", FieldDescriptorProto.Type.TYPE_UINT64),
                    Map.entry("int32", FieldDescriptorProto.Type.TYPE_INT32),
                    Map.entry("fixed64", FieldDescriptorProto.Type.TYPE_FIXED64),
                    Map.entry("fixed32", FieldDescriptorProto.Type.TYPE_FIXED32),
                    Map.entry("bool", FieldDescriptorProto.Type.TYPE_BOOL),
                    Map.entry("string", FieldDescriptorProto.Type.TYPE_STRING),
                    Map.entry("bytes", FieldDescriptorProto.Type.TYPE_BYTES),
                    Map.entry("uint32", FieldDescriptorProto.Type.TYPE_UINT32),
                    Map.entry("sfixed32", FieldDescriptorProto.Type.TYPE_SFIXED32),
                    Map.entry("sfixed64", FieldDescriptorProto.Type.TYPE_SFIXED64),
                    Map.entry("sint32", FieldDescriptorProto.Type.TYPE_SINT32),
                    Map.entry("sint64", FieldDescriptorProto.Type.TYPE_SINT64));

    private ProtoDescriptors() {}

    static FileDescriptorProto toProto(
            String fileName, ProtoFileElement file, List<String> imports) {
        boolean proto3 = file.getSyntax() == Syntax.PROTO_3;
        FileDescriptorProto.Builder out = FileDescriptorProto.newBuilder().setName(fileName);
        out.setSyntax(proto3 ? "proto3" : "proto2");
        if (file.getPackageName() != null) {
            out.setPackage(file.getPackageName());
        }
        out.addAllDependency(imports);
        // imports lists the file's plain, then public, then weak imports, by descriptor name.
        int plain = file.getImports().size();
        for (int i = 0; i < file.getPublicImports().size(); i++) {
            out.addPublicDependency(plain + i);
        }
        for (int i = 0; i < file.getWeakImports().size(); i++) {
            out.addWeakDependency(plain + file.getPublicImports().size() + i);
        }
        for (TypeElement type : file.getTypes()) {
            if (type instanceof MessageElement m) {
                out.addMessageType(message(m, proto3));
            } else if (type instanceof EnumElement e) {
                out.addEnumType(enumType(e));
            }
        }
        for (ServiceElement service : file.getServices()) {
            out.addService(service(service));
        }
        for (ExtendElement extend : file.getExtendDeclarations()) {
            for (FieldElement field : extend.getFields()) {
                out.addExtension(field(field, proto3, null, -1).setExtendee(extend.getName()));
            }
        }
        FileOptions.Builder options = FileOptions.newBuilder();
        for (OptionElement option : file.getOptions()) {
            String value = String.valueOf(option.getValue());
            switch (option.getName()) {
                case "java_package" -> options.setJavaPackage(value);
                case "java_outer_classname" -> options.setJavaOuterClassname(value);
                case "java_multiple_files" ->
                        options.setJavaMultipleFiles(Boolean.parseBoolean(value));
                case "go_package" -> options.setGoPackage(value);
                case "deprecated" -> options.setDeprecated(Boolean.parseBoolean(value));
                default -> {}
            }
        }
        if (!options.build().equals(FileOptions.getDefaultInstance())) {
            out.setOptions(options);
        }
        return out.build();
    }

    private static DescriptorProto message(MessageElement m, boolean proto3) {
        if (!m.getGroups().isEmpty()) {
            throw References.invalid("groups are not supported (message " + m.getName() + ")");
        }
        DescriptorProto.Builder out = DescriptorProto.newBuilder().setName(m.getName());
        List<DescriptorProto> mapEntries = new ArrayList<>();
        for (TypeElement nested : m.getNestedTypes()) {
            if (nested instanceof MessageElement nm) {
                out.addNestedType(message(nm, proto3));
            } else if (nested instanceof EnumElement ne) {
                out.addEnumType(enumType(ne));
            }
        }
        // Fields in declaration order across plain fields and oneofs, as protoc lists them.
        List<FieldElement> all = new ArrayList<>(m.getFields());
        Map<FieldElement, Integer> oneofOf = new java.util.IdentityHashMap<>();
        for (int i = 0; i < m.getOneOfs().size(); i++) {
            OneOfElement oneOf = m.getOneOfs().get(i);
            if (!oneOf.getGroups().isEmpty()) {
                throw References.invalid(
                        "groups are not supported (oneof " + oneOf.getName() + ")");
            }
            out.addOneofDecl(OneofDescriptorProto.newBuilder().setName(oneOf.getName()));
            for (FieldElement f : oneOf.getFields()) {
                all.add(f);
                oneofOf.put(f, i);
            }
        }
        all.sort(
                Comparator.comparingInt((FieldElement f) -> f.getLocation().getLine())
                        .thenComparingInt(f -> f.getLocation().getColumn()));
        int nextOneof = m.getOneOfs().size();
        List<String> syntheticOneofs = new ArrayList<>();
        for (FieldElement f : all) {
            Matcher map = MAP.matcher(f.getType());
            if (map.matches()) {
                String entryName = camel(f.getName()) + "Entry";
                mapEntries.add(
                        DescriptorProto.newBuilder()
                                .setName(entryName)
                                .addField(
                                        typed(
                                                        FieldDescriptorProto.newBuilder()
                                                                .setName("key")
                                                                .setNumber(1)
                                                                .setJsonName("key"),
                                                        map.group(1))
                                                .setLabel(
                                                        FieldDescriptorProto.Label.LABEL_OPTIONAL))
                                .addField(
                                        typed(
                                                        FieldDescriptorProto.newBuilder()
                                                                .setName("value")
                                                                .setNumber(2)
                                                                .setJsonName("value"),
                                                        map.group(2))
                                                .setLabel(
                                                        FieldDescriptorProto.Label.LABEL_OPTIONAL))
                                .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                                .build());
                out.addField(
                        field(f, proto3, null, -1)
                                .clearType()
                                .setTypeName(entryName)
                                .setLabel(FieldDescriptorProto.Label.LABEL_REPEATED));
                continue;
            }
            Integer oneofIndex = oneofOf.get(f);
            if (oneofIndex == null && proto3 && f.getLabel() == Field.Label.OPTIONAL) {
                syntheticOneofs.add(syntheticOneofName(f.getName(), out));
                out.addField(field(f, proto3, null, nextOneof++).setProto3Optional(true));
            } else {
                out.addField(field(f, proto3, oneofIndex, -1));
            }
        }
        for (String name : syntheticOneofs) {
            out.addOneofDecl(OneofDescriptorProto.newBuilder().setName(name));
        }
        out.addAllNestedType(mapEntries);
        for (ReservedElement reserved : m.getReserveds()) {
            for (Object value : reserved.getValues()) {
                if (value instanceof String name) {
                    out.addReservedName(name);
                } else {
                    int[] range = range(value);
                    out.addReservedRange(
                            DescriptorProto.ReservedRange.newBuilder()
                                    .setStart(range[0])
                                    .setEnd(range[1] + 1));
                }
            }
        }
        for (ExtensionsElement extensions : m.getExtensions()) {
            for (Object value : extensions.getValues()) {
                int[] range = range(value);
                out.addExtensionRange(
                        DescriptorProto.ExtensionRange.newBuilder()
                                .setStart(range[0])
                                .setEnd(range[1] + 1));
            }
        }
        for (ExtendElement extend : m.getExtendDeclarations()) {
            for (FieldElement field : extend.getFields()) {
                out.addExtension(field(field, proto3, null, -1).setExtendee(extend.getName()));
            }
        }
        MessageOptions.Builder options = MessageOptions.newBuilder();
        for (OptionElement option : m.getOptions()) {
            if (option.getName().equals("deprecated")) {
                options.setDeprecated(Boolean.parseBoolean(String.valueOf(option.getValue())));
            }
        }
        if (options.hasDeprecated()) {
            out.setOptions(options);
        }
        return out.build();
    }

    /** protoc's name for a proto3 optional field's oneof: "_" + name, made unique. */
    private static String syntheticOneofName(String field, DescriptorProto.Builder message) {
        String name = "_" + field;
        while (true) {
            String candidate = name;
            boolean clash =
                    message.getOneofDeclList().stream()
                            .anyMatch(o -> o.getName().equals(candidate));
            if (!clash) {
                return name;
            }
            name = "X" + name;
        }
    }

    private static FieldDescriptorProto.Builder field(
            FieldElement f, boolean proto3, Integer oneofIndex, int syntheticOneof) {
        FieldDescriptorProto.Builder out =
                FieldDescriptorProto.newBuilder().setName(f.getName()).setNumber(f.getTag());
        typed(out, f.getType());
        Field.Label label = f.getLabel();
        if (label == Field.Label.REPEATED) {
            out.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED);
        } else if (label == Field.Label.REQUIRED) {
            if (proto3) {
                throw References.invalid(
                        "required fields are not allowed in proto3 (" + f.getName() + ")");
            }
            out.setLabel(FieldDescriptorProto.Label.LABEL_REQUIRED);
        } else {
            out.setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
        }
        if (oneofIndex != null) {
            out.setOneofIndex(oneofIndex);
        } else if (syntheticOneof >= 0) {
            out.setOneofIndex(syntheticOneof);
        }
        if (f.getJsonName() != null) {
            out.setJsonName(f.getJsonName());
        }
        if (f.getDefaultValue() != null) {
            out.setDefaultValue(f.getDefaultValue());
        }
        FieldOptions.Builder options = FieldOptions.newBuilder();
        for (OptionElement option : f.getOptions()) {
            String value = String.valueOf(option.getValue());
            switch (option.getName()) {
                case "packed" -> options.setPacked(Boolean.parseBoolean(value));
                case "deprecated" -> options.setDeprecated(Boolean.parseBoolean(value));
                default -> {}
            }
        }
        if (!options.build().equals(FieldOptions.getDefaultInstance())) {
            out.setOptions(options);
        }
        return out;
    }

    private static FieldDescriptorProto.Builder typed(
            FieldDescriptorProto.Builder field, String type) {
        FieldDescriptorProto.Type scalar = SCALARS.get(type);
        if (scalar != null) {
            return field.setType(scalar);
        }
        // Message or enum: protobuf-java decides which when it resolves the name.
        return field.setTypeName(type);
    }

    private static EnumDescriptorProto enumType(EnumElement e) {
        EnumDescriptorProto.Builder out = EnumDescriptorProto.newBuilder().setName(e.getName());
        for (EnumConstantElement constant : e.getConstants()) {
            out.addValue(
                    EnumValueDescriptorProto.newBuilder()
                            .setName(constant.getName())
                            .setNumber(constant.getTag()));
        }
        for (ReservedElement reserved : e.getReserveds()) {
            for (Object value : reserved.getValues()) {
                if (value instanceof String name) {
                    out.addReservedName(name);
                } else {
                    int[] range = range(value);
                    // Enum reserved ranges are inclusive at both ends.
                    out.addReservedRange(
                            EnumDescriptorProto.EnumReservedRange.newBuilder()
                                    .setStart(range[0])
                                    .setEnd(range[1]));
                }
            }
        }
        EnumOptions.Builder options = EnumOptions.newBuilder();
        for (OptionElement option : e.getOptions()) {
            String value = String.valueOf(option.getValue());
            switch (option.getName()) {
                case "allow_alias" -> options.setAllowAlias(Boolean.parseBoolean(value));
                case "deprecated" -> options.setDeprecated(Boolean.parseBoolean(value));
                default -> {}
            }
        }
        if (!options.build().equals(EnumOptions.getDefaultInstance())) {
            out.setOptions(options);
        }
        return out.build();
    }

    private static ServiceDescriptorProto service(ServiceElement s) {
        ServiceDescriptorProto.Builder out =
                ServiceDescriptorProto.newBuilder().setName(s.getName());
        for (RpcElement rpc : s.getRpcs()) {
            out.addMethod(
                    MethodDescriptorProto.newBuilder()
                            .setName(rpc.getName())
                            .setInputType(rpc.getRequestType())
                            .setOutputType(rpc.getResponseType())
                            .setClientStreaming(rpc.getRequestStreaming())
                            .setServerStreaming(rpc.getResponseStreaming()));
        }
        return out.build();
    }

    /** {@code [first, last]} inclusive of a reserved or extensions value (an int or a range). */
    private static int[] range(Object value) {
        if (value instanceof Integer n) {
            return new int[] {n, n};
        }
        if (value instanceof IntRange r) {
            return new int[] {r.getFirst(), Math.min(r.getLast(), MAX_FIELD_NUMBER)};
        }
        throw References.invalid("unexpected range " + value);
    }

    /** protoc's CamelCase of a field name, for map entry messages: my_map -> MyMap. */
    static String camel(String name) {
        StringBuilder out = new StringBuilder();
        boolean upper = true;
        for (char c : name.toCharArray()) {
            if (c == '_') {
                upper = true;
            } else if (upper) {
                out.append(Character.toUpperCase(c));
                upper = false;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}

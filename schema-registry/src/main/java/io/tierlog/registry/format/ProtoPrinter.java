package io.tierlog.registry.format;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Writes a {@code FileDescriptorProto} (what Confluent's clients without a .proto parser send,
 * base64-encoded, as a Protobuf schema) as .proto text, so it is registered, stored and compared
 * like a schema written by hand. Type names stay fully qualified (with the leading dot), so no
 * scoping rule can resolve them differently. Map entry messages become {@code map<K, V>} fields;
 * proto3 optional fields get {@code optional} back. Kept options: the ones {@link ProtoDescriptors}
 * carries; others are dropped, as they change nothing the registry checks or decodes. Groups and
 * editions are refused. Stateless.
 */
final class ProtoPrinter {
    private static final int MAX_FIELD_NUMBER = 536_870_911;

    private ProtoPrinter() {}

    static String print(FileDescriptorProto file) {
        if (file.hasEdition() || "editions".equals(file.getSyntax())) {
            throw References.invalid("Protobuf editions are not supported");
        }
        boolean proto3 = "proto3".equals(file.getSyntax());
        StringBuilder out = new StringBuilder();
        out.append("syntax = \"").append(proto3 ? "proto3" : "proto2").append("\";\n");
        if (file.hasPackage()) {
            out.append("package ").append(file.getPackage()).append(";\n");
        }
        Set<Integer> publicDeps = new HashSet<>(file.getPublicDependencyList());
        Set<Integer> weakDeps = new HashSet<>(file.getWeakDependencyList());
        for (int i = 0; i < file.getDependencyCount(); i++) {
            out.append("import ")
                    .append(
                            publicDeps.contains(i)
                                    ? "public "
                                    : weakDeps.contains(i) ? "weak " : "")
                    .append(quote(file.getDependency(i)))
                    .append(";\n");
        }
        var options = file.getOptions();
        if (options.hasJavaPackage()) {
            out.append("option java_package = ")
                    .append(quote(options.getJavaPackage()))
                    .append(";\n");
        }
        if (options.hasJavaOuterClassname()) {
            out.append("option java_outer_classname = ")
                    .append(quote(options.getJavaOuterClassname()))
                    .append(";\n");
        }
        if (options.hasJavaMultipleFiles()) {
            out.append("option java_multiple_files = ")
                    .append(options.getJavaMultipleFiles())
                    .append(";\n");
        }
        if (options.hasGoPackage()) {
            out.append("option go_package = ").append(quote(options.getGoPackage())).append(";\n");
        }
        for (DescriptorProto message : file.getMessageTypeList()) {
            message(out, message, proto3, "");
        }
        for (EnumDescriptorProto e : file.getEnumTypeList()) {
            enumType(out, e, "");
        }
        for (ServiceDescriptorProto service : file.getServiceList()) {
            out.append("service ").append(service.getName()).append(" {\n");
            for (MethodDescriptorProto m : service.getMethodList()) {
                out.append("  rpc ")
                        .append(m.getName())
                        .append(" (")
                        .append(m.getClientStreaming() ? "stream " : "")
                        .append(m.getInputType())
                        .append(") returns (")
                        .append(m.getServerStreaming() ? "stream " : "")
                        .append(m.getOutputType())
                        .append(");\n");
            }
            out.append("}\n");
        }
        extensions(out, file.getExtensionList(), proto3, "");
        return out.toString();
    }

    private static void message(
            StringBuilder out, DescriptorProto m, boolean proto3, String indent) {
        out.append(indent).append("message ").append(m.getName()).append(" {\n");
        String inner = indent + "  ";
        if (m.getOptions().hasDeprecated()) {
            out.append(inner)
                    .append("option deprecated = ")
                    .append(m.getOptions().getDeprecated())
                    .append(";\n");
        }
        Map<String, DescriptorProto> mapEntries = new LinkedHashMap<>();
        for (DescriptorProto nested : m.getNestedTypeList()) {
            if (nested.getOptions().getMapEntry()) {
                mapEntries.put(nested.getName(), nested);
            }
        }
        Set<Integer> printedOneofs = new HashSet<>();
        for (FieldDescriptorProto f : m.getFieldList()) {
            boolean realOneof = f.hasOneofIndex() && !f.getProto3Optional();
            if (realOneof) {
                int index = f.getOneofIndex();
                if (printedOneofs.add(index)) {
                    out.append(inner)
                            .append("oneof ")
                            .append(m.getOneofDecl(index).getName())
                            .append(" {\n");
                    for (FieldDescriptorProto member : m.getFieldList()) {
                        if (member.hasOneofIndex()
                                && member.getOneofIndex() == index
                                && !member.getProto3Optional()) {
                            field(out, member, proto3, inner + "  ", mapEntries, true);
                        }
                    }
                    out.append(inner).append("}\n");
                }
                continue;
            }
            field(out, f, proto3, inner, mapEntries, false);
        }
        for (DescriptorProto nested : m.getNestedTypeList()) {
            if (!nested.getOptions().getMapEntry()) {
                message(out, nested, proto3, inner);
            }
        }
        for (EnumDescriptorProto e : m.getEnumTypeList()) {
            enumType(out, e, inner);
        }
        List<String> reserved = new ArrayList<>();
        for (DescriptorProto.ReservedRange r : m.getReservedRangeList()) {
            reserved.add(range(r.getStart(), r.getEnd() - 1));
        }
        if (!reserved.isEmpty()) {
            out.append(inner).append("reserved ").append(String.join(", ", reserved)).append(";\n");
        }
        if (m.getReservedNameCount() > 0) {
            List<String> names = new ArrayList<>();
            m.getReservedNameList().forEach(n -> names.add(quote(n)));
            out.append(inner).append("reserved ").append(String.join(", ", names)).append(";\n");
        }
        for (DescriptorProto.ExtensionRange r : m.getExtensionRangeList()) {
            out.append(inner)
                    .append("extensions ")
                    .append(range(r.getStart(), r.getEnd() - 1))
                    .append(";\n");
        }
        extensions(out, m.getExtensionList(), proto3, inner);
        out.append(indent).append("}\n");
    }

    private static void extensions(
            StringBuilder out, List<FieldDescriptorProto> fields, boolean proto3, String indent) {
        Map<String, List<FieldDescriptorProto>> byExtendee = new LinkedHashMap<>();
        for (FieldDescriptorProto f : fields) {
            byExtendee.computeIfAbsent(f.getExtendee(), k -> new ArrayList<>()).add(f);
        }
        for (Map.Entry<String, List<FieldDescriptorProto>> e : byExtendee.entrySet()) {
            out.append(indent).append("extend ").append(e.getKey()).append(" {\n");
            for (FieldDescriptorProto f : e.getValue()) {
                field(out, f, proto3, indent + "  ", Map.of(), false);
            }
            out.append(indent).append("}\n");
        }
    }

    private static void field(
            StringBuilder out,
            FieldDescriptorProto f,
            boolean proto3,
            String indent,
            Map<String, DescriptorProto> mapEntries,
            boolean inOneof) {
        if (f.getType() == FieldDescriptorProto.Type.TYPE_GROUP) {
            throw References.invalid("groups are not supported (field " + f.getName() + ")");
        }
        out.append(indent);
        DescriptorProto entry = mapEntry(f, mapEntries);
        if (entry != null) {
            out.append("map<")
                    .append(typeName(entry.getField(0)))
                    .append(", ")
                    .append(typeName(entry.getField(1)))
                    .append("> ");
        } else {
            if (!inOneof) {
                switch (f.getLabel()) {
                    case LABEL_REPEATED -> out.append("repeated ");
                    case LABEL_REQUIRED -> out.append("required ");
                    default -> {
                        if (!proto3 || f.getProto3Optional()) {
                            out.append("optional ");
                        }
                    }
                }
            }
            out.append(typeName(f)).append(' ');
        }
        out.append(f.getName()).append(" = ").append(f.getNumber());
        List<String> options = new ArrayList<>();
        if (f.hasDefaultValue()) {
            options.add("default = " + defaultValue(f));
        }
        if (f.hasJsonName() && !f.getJsonName().equals(defaultJsonName(f.getName()))) {
            options.add("json_name = " + quote(f.getJsonName()));
        }
        if (f.getOptions().hasPacked()) {
            options.add("packed = " + f.getOptions().getPacked());
        }
        if (f.getOptions().hasDeprecated()) {
            options.add("deprecated = " + f.getOptions().getDeprecated());
        }
        if (!options.isEmpty()) {
            out.append(" [").append(String.join(", ", options)).append(']');
        }
        out.append(";\n");
    }

    private static DescriptorProto mapEntry(
            FieldDescriptorProto f, Map<String, DescriptorProto> entries) {
        if (f.getLabel() != FieldDescriptorProto.Label.LABEL_REPEATED || !f.hasTypeName()) {
            return null;
        }
        String name = f.getTypeName();
        String simple = name.substring(name.lastIndexOf('.') + 1);
        return entries.get(simple);
    }

    private static String typeName(FieldDescriptorProto f) {
        if (f.hasTypeName()) {
            return f.getTypeName();
        }
        return f.getType().name().substring("TYPE_".length()).toLowerCase(Locale.ROOT);
    }

    private static String defaultValue(FieldDescriptorProto f) {
        return switch (f.getType()) {
            case TYPE_STRING -> quote(f.getDefaultValue());
            // descriptor.proto: bytes defaults are already C-escaped
            case TYPE_BYTES -> "\"" + f.getDefaultValue() + "\"";
            default -> f.getDefaultValue();
        };
    }

    /** protoc's json_name for a field: lowerCamelCase of the name. */
    static String defaultJsonName(String name) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
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

    private static void enumType(StringBuilder out, EnumDescriptorProto e, String indent) {
        out.append(indent).append("enum ").append(e.getName()).append(" {\n");
        String inner = indent + "  ";
        if (e.getOptions().hasAllowAlias()) {
            out.append(inner)
                    .append("option allow_alias = ")
                    .append(e.getOptions().getAllowAlias())
                    .append(";\n");
        }
        for (EnumValueDescriptorProto v : e.getValueList()) {
            out.append(inner).append(v.getName()).append(" = ").append(v.getNumber()).append(";\n");
        }
        List<String> reserved = new ArrayList<>();
        for (EnumDescriptorProto.EnumReservedRange r : e.getReservedRangeList()) {
            reserved.add(
                    r.getStart() == r.getEnd()
                            ? "" + r.getStart()
                            : r.getStart() + " to " + r.getEnd());
        }
        if (!reserved.isEmpty()) {
            out.append(inner).append("reserved ").append(String.join(", ", reserved)).append(";\n");
        }
        if (e.getReservedNameCount() > 0) {
            List<String> names = new ArrayList<>();
            e.getReservedNameList().forEach(n -> names.add(quote(n)));
            out.append(inner).append("reserved ").append(String.join(", ", names)).append(";\n");
        }
        out.append(indent).append("}\n");
    }

    private static String range(int first, int last) {
        if (first == last) {
            return Integer.toString(first);
        }
        return first + " to " + (last >= MAX_FIELD_NUMBER ? "max" : Integer.toString(last));
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }
}

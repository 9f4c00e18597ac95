package io.tierlog.registry.compat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import io.tierlog.registry.format.ProtobufParsedSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Protobuf compatibility as Confluent's registry defines it (its {@code ProtobufSchema} diff):
 * messages are matched by full name and fields by number, and these differences between the writer
 * and the reader schema are refused:
 *
 * <ul>
 *   <li>{@code PACKAGE_CHANGED}: the file's package differs;
 *   <li>{@code MESSAGE_REMOVED}: a message of the writer is missing from the reader;
 *   <li>{@code FIELD_KIND_CHANGED}: a field changed between scalar, enum, message and map;
 *   <li>{@code FIELD_SCALAR_KIND_CHANGED}: a scalar changed outside its wire-compatible group
 *       (int32/uint32/int64/uint64/bool, sint32/sint64, fixed32/sfixed32, fixed64/sfixed64,
 *       string/bytes);
 *   <li>{@code FIELD_NAMED_TYPE_CHANGED}: a message or enum field now names another type;
 *   <li>{@code REQUIRED_FIELD_ADDED} / {@code REQUIRED_FIELD_REMOVED} (proto2);
 *   <li>{@code ONEOF_FIELD_REMOVED}: a member of a oneof is gone (data setting it reads as no
 *       member set);
 *   <li>{@code MULTIPLE_FIELDS_MOVED_TO_ONEOF}: several independent fields now share a oneof;
 *   <li>{@code FIELD_MOVED_TO_EXISTING_ONEOF}: an independent field joined a oneof that already had
 *       members.
 * </ul>
 *
 * Compatible: added and removed fields and messages (a removed field's number should be reserved,
 * which protobuf itself enforces no further), renamed fields, enum constants added or removed,
 * oneofs added or removed, one field moved into a new oneof, label changes between singular and
 * repeated (the parser accepts both). proto3 {@code optional} fields are not oneof members here
 * (their oneof is synthetic). Messages of imported files (references) are compared where fields of
 * both schemas use them. Stateless.
 */
final class ProtobufRules {
    private static final List<Set<FieldDescriptor.Type>> SCALAR_GROUPS =
            List.of(
                    Set.of(
                            FieldDescriptor.Type.INT32,
                            FieldDescriptor.Type.UINT32,
                            FieldDescriptor.Type.INT64,
                            FieldDescriptor.Type.UINT64,
                            FieldDescriptor.Type.BOOL),
                    Set.of(FieldDescriptor.Type.SINT32, FieldDescriptor.Type.SINT64),
                    Set.of(FieldDescriptor.Type.FIXED32, FieldDescriptor.Type.SFIXED32),
                    Set.of(FieldDescriptor.Type.FIXED64, FieldDescriptor.Type.SFIXED64),
                    Set.of(FieldDescriptor.Type.STRING, FieldDescriptor.Type.BYTES));

    private ProtobufRules() {}

    static List<Issue> check(ProtobufParsedSchema reader, ProtobufParsedSchema writer) {
        List<Issue> issues = new ArrayList<>();
        FileDescriptor r = reader.fileDescriptor();
        FileDescriptor w = writer.fileDescriptor();
        if (!r.getPackage().equals(w.getPackage())) {
            issues.add(
                    new Issue(
                            "PACKAGE_CHANGED",
                            "#/package",
                            "the writer's package is '"
                                    + w.getPackage()
                                    + "', the reader's '"
                                    + r.getPackage()
                                    + "'"));
            return issues;
        }
        // A writer message may have moved to a file the reader imports: still the same message.
        Map<String, Descriptor> readerMessages = new LinkedHashMap<>();
        withImports(r, readerMessages, new java.util.HashSet<>());
        Map<String, Descriptor> writerMessages = messages(w);
        // Messages of imported files (references) that fields of both sides use are compared too;
        // each pair once, so recursive types terminate.
        Set<String> compared = new java.util.HashSet<>(writerMessages.keySet());
        java.util.ArrayDeque<Descriptor[]> pending = new java.util.ArrayDeque<>();
        for (Descriptor wm : writerMessages.values()) {
            Descriptor rm = readerMessages.get(wm.getFullName());
            if (rm == null) {
                issues.add(
                        new Issue(
                                "MESSAGE_REMOVED",
                                "#/" + wm.getFullName(),
                                "message "
                                        + wm.getFullName()
                                        + " of the writer schema is missing in the reader schema"));
            } else {
                message(rm, wm, issues, compared, pending);
            }
        }
        while (!pending.isEmpty()) {
            Descriptor[] pair = pending.poll();
            message(pair[0], pair[1], issues, compared, pending);
        }
        return issues;
    }

    private static void withImports(
            FileDescriptor file, Map<String, Descriptor> out, Set<String> seenFiles) {
        if (!seenFiles.add(file.getName())) {
            return;
        }
        for (FileDescriptor dependency : file.getDependencies()) {
            withImports(dependency, out, seenFiles);
        }
        out.putAll(messages(file));
    }

    /** Every message of the file by full name, nested ones included, map entries excluded. */
    private static Map<String, Descriptor> messages(FileDescriptor file) {
        Map<String, Descriptor> out = new LinkedHashMap<>();
        for (Descriptor d : file.getMessageTypes()) {
            collect(d, out);
        }
        return out;
    }

    private static void collect(Descriptor d, Map<String, Descriptor> out) {
        if (d.getOptions().getMapEntry()) {
            return;
        }
        out.put(d.getFullName(), d);
        for (Descriptor nested : d.getNestedTypes()) {
            collect(nested, out);
        }
    }

    private static void message(
            Descriptor reader,
            Descriptor writer,
            List<Issue> issues,
            Set<String> compared,
            java.util.Deque<Descriptor[]> pending) {
        String at = "#/" + reader.getFullName();
        Map<String, List<FieldDescriptor>> movedIntoOneof = new TreeMap<>();
        for (FieldDescriptor wf : writer.getFields()) {
            FieldDescriptor rf = reader.findFieldByNumber(wf.getNumber());
            String where = at + "/" + wf.getNumber();
            if (rf == null) {
                if (wf.isRequired()) {
                    issues.add(
                            new Issue(
                                    "REQUIRED_FIELD_REMOVED",
                                    where,
                                    "required field "
                                            + wf.getName()
                                            + " is missing in the reader schema"));
                } else if (realOneof(wf) != null) {
                    issues.add(
                            new Issue(
                                    "ONEOF_FIELD_REMOVED",
                                    where,
                                    "field "
                                            + wf.getName()
                                            + " of oneof "
                                            + realOneof(wf).getName()
                                            + " is missing in the reader schema"));
                }
                continue;
            }
            field(rf, wf, where, issues, compared, pending);
            if (rf.isRequired() && !wf.isRequired()) {
                issues.add(
                        new Issue(
                                "REQUIRED_FIELD_ADDED",
                                where,
                                "field "
                                        + rf.getName()
                                        + " is required in the reader schema only"));
            } else if (wf.isRequired() && !rf.isRequired()) {
                issues.add(
                        new Issue(
                                "REQUIRED_FIELD_REMOVED",
                                where,
                                "field "
                                        + wf.getName()
                                        + " is required in the writer schema only"));
            }
            OneofDescriptor ro = realOneof(rf);
            if (ro != null && realOneof(wf) == null) {
                movedIntoOneof.computeIfAbsent(ro.getName(), k -> new ArrayList<>()).add(rf);
            }
        }
        for (FieldDescriptor rf : reader.getFields()) {
            if (writer.findFieldByNumber(rf.getNumber()) == null && rf.isRequired()) {
                issues.add(
                        new Issue(
                                "REQUIRED_FIELD_ADDED",
                                at + "/" + rf.getNumber(),
                                "required field "
                                        + rf.getName()
                                        + " is missing in the writer schema"));
            }
        }
        for (Map.Entry<String, List<FieldDescriptor>> moved : movedIntoOneof.entrySet()) {
            String oneof = moved.getKey();
            List<String> names = moved.getValue().stream().map(FieldDescriptor::getName).toList();
            boolean existed =
                    writer.getRealOneofs().stream().anyMatch(o -> o.getName().equals(oneof));
            if (existed) {
                issues.add(
                        new Issue(
                                "FIELD_MOVED_TO_EXISTING_ONEOF",
                                at + "/oneof " + oneof,
                                "fields "
                                        + names
                                        + " moved into the writer's existing oneof "
                                        + oneof));
            } else if (names.size() > 1) {
                issues.add(
                        new Issue(
                                "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
                                at + "/oneof " + oneof,
                                "independent fields "
                                        + names
                                        + " moved into one new oneof "
                                        + oneof));
            }
        }
    }

    private static void field(
            FieldDescriptor r,
            FieldDescriptor w,
            String where,
            List<Issue> issues,
            Set<String> compared,
            java.util.Deque<Descriptor[]> pending) {
        String rk = kind(r);
        String wk = kind(w);
        if (!rk.equals(wk)) {
            issues.add(
                    new Issue(
                            "FIELD_KIND_CHANGED",
                            where,
                            "field "
                                    + w.getName()
                                    + " is a "
                                    + wk
                                    + " in the writer schema and a "
                                    + rk
                                    + " in the reader schema"));
            return;
        }
        switch (rk) {
            case "MAP" -> {
                FieldDescriptor rKey = r.getMessageType().findFieldByNumber(1);
                FieldDescriptor wKey = w.getMessageType().findFieldByNumber(1);
                field(rKey, wKey, where + "/key", issues, compared, pending);
                field(
                        r.getMessageType().findFieldByNumber(2),
                        w.getMessageType().findFieldByNumber(2),
                        where + "/value",
                        issues,
                        compared,
                        pending);
            }
            case "SCALAR" -> {
                if (r.getType() != w.getType() && !sameGroup(r.getType(), w.getType())) {
                    issues.add(
                            new Issue(
                                    "FIELD_SCALAR_KIND_CHANGED",
                                    where,
                                    "field "
                                            + w.getName()
                                            + " is "
                                            + lower(w.getType())
                                            + " in the writer schema and "
                                            + lower(r.getType())
                                            + " in the reader schema, which the wire format does not convert"));
                }
            }
            default -> {
                String rName =
                        rk.equals("ENUM")
                                ? r.getEnumType().getFullName()
                                : r.getMessageType().getFullName();
                String wName =
                        wk.equals("ENUM")
                                ? w.getEnumType().getFullName()
                                : w.getMessageType().getFullName();
                if (!rName.equals(wName)) {
                    issues.add(
                            new Issue(
                                    "FIELD_NAMED_TYPE_CHANGED",
                                    where,
                                    "field "
                                            + w.getName()
                                            + " is a "
                                            + wName
                                            + " in the writer schema and a "
                                            + rName
                                            + " in the reader schema"));
                } else if (rk.equals("MESSAGE") && compared.add(wName)) {
                    pending.add(new Descriptor[] {r.getMessageType(), w.getMessageType()});
                }
            }
        }
    }

    private static String kind(FieldDescriptor f) {
        if (f.isMapField()) {
            return "MAP";
        }
        return switch (f.getJavaType()) {
            case MESSAGE -> "MESSAGE";
            case ENUM -> "ENUM";
            default -> "SCALAR";
        };
    }

    private static boolean sameGroup(FieldDescriptor.Type a, FieldDescriptor.Type b) {
        for (Set<FieldDescriptor.Type> group : SCALAR_GROUPS) {
            if (group.contains(a) && group.contains(b)) {
                return true;
            }
        }
        return false;
    }

    private static OneofDescriptor realOneof(FieldDescriptor f) {
        return f.getRealContainingOneof();
    }

    private static String lower(FieldDescriptor.Type type) {
        return type.name().toLowerCase(java.util.Locale.ROOT);
    }
}

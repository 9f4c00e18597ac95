package io.tierlog.registry.format;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import java.util.List;

/**
 * A built file's {@code FileDescriptorProto} with every message-, enum- and group-typed field
 * resolved as protoc writes it: {@code type} set and {@code type_name} fully qualified ({@code
 * .pkg.Msg}). {@link FileDescriptor#toProto()} returns the proto the file was built from, where
 * such fields carry only the name as written in the .proto; descriptor.proto allows that, but
 * clients that build descriptors from it without resolving (Confluent's JavaScript serdes over
 * {@code @bufbuild/protobuf}) then read the field as a double. Thread-safety: stateless.
 */
final class ResolvedDescriptorProto {
    private ResolvedDescriptorProto() {}

    static FileDescriptorProto of(FileDescriptor file) {
        FileDescriptorProto.Builder b = file.toProto().toBuilder();
        List<Descriptor> messages = file.getMessageTypes();
        for (int i = 0; i < b.getMessageTypeCount(); i++) {
            resolve(b.getMessageTypeBuilder(i), messages.get(i));
        }
        List<FieldDescriptor> extensions = file.getExtensions();
        for (int i = 0; i < b.getExtensionCount(); i++) {
            resolve(b.getExtensionBuilder(i), extensions.get(i));
        }
        return b.build();
    }

    private static void resolve(DescriptorProto.Builder message, Descriptor d) {
        List<FieldDescriptor> fields = d.getFields();
        for (int i = 0; i < message.getFieldCount(); i++) {
            resolve(message.getFieldBuilder(i), fields.get(i));
        }
        List<FieldDescriptor> extensions = d.getExtensions();
        for (int i = 0; i < message.getExtensionCount(); i++) {
            resolve(message.getExtensionBuilder(i), extensions.get(i));
        }
        List<Descriptor> nested = d.getNestedTypes();
        for (int i = 0; i < message.getNestedTypeCount(); i++) {
            resolve(message.getNestedTypeBuilder(i), nested.get(i));
        }
    }

    private static void resolve(FieldDescriptorProto.Builder field, FieldDescriptor f) {
        switch (f.getType()) {
            case MESSAGE, GROUP ->
                    field.setType(f.getType().toProto())
                            .setTypeName("." + f.getMessageType().getFullName());
            case ENUM ->
                    field.setType(f.getType().toProto())
                            .setTypeName("." + f.getEnumType().getFullName());
            default -> {
                // scalar: its type is already set
            }
        }
        if (f.isExtension()) {
            field.setExtendee("." + f.getContainingType().getFullName());
        }
    }
}

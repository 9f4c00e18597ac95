package io.tierlog.registry.format;

import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.Descriptors;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import java.util.List;
import java.util.Map;

/**
 * The .proto files Confluent's registry provides without a reference, besides protobuf's well-known
 * types: {@code confluent/meta.proto} (documentation and tags as options) and {@code
 * confluent/type/decimal.proto} (a decimal as unscaled bytes, precision and scale). Written here
 * from their documented shape (package, messages, field numbers, the option extension number 1088),
 * so a schema importing them links as it does in Confluent's registry. Built once; the descriptors
 * are immutable, so thread-safe.
 */
final class ConfluentProtos {
    private static final String META =
            """
            syntax = "proto3";
            package confluent;
            import "google/protobuf/descriptor.proto";
            option java_package = "io.confluent.protobuf";
            option java_outer_classname = "MetaProto";
            message Meta {
              string doc = 1;
              map<string, string> params = 2;
              repeated string tags = 3;
            }
            extend google.protobuf.FileOptions { Meta file_meta = 1088; }
            extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
            extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
            extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
            extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; }
            """;

    private static final String DECIMAL =
            """
            syntax = "proto3";
            package confluent.type;
            option java_package = "io.confluent.protobuf.type";
            option java_outer_classname = "DecimalProto";
            message Decimal {
              bytes value = 1;
              uint32 precision = 2;
              int32 scale = 3;
            }
            """;

    private ConfluentProtos() {}

    /** The built-in files by import path. */
    static Map<String, Descriptors.FileDescriptor> build() {
        Descriptors.FileDescriptor meta =
                link("confluent/meta.proto", META, DescriptorProtos.getDescriptor());
        Descriptors.FileDescriptor decimal = link("confluent/type/decimal.proto", DECIMAL);
        return Map.of(meta.getName(), meta, decimal.getName(), decimal);
    }

    private static Descriptors.FileDescriptor link(
            String path, String text, Descriptors.FileDescriptor... dependencies) {
        var element = ProtoParser.Companion.parse(Location.get(path), text);
        List<String> names =
                java.util.Arrays.stream(dependencies)
                        .map(Descriptors.FileDescriptor::getName)
                        .toList();
        try {
            return Descriptors.FileDescriptor.buildFrom(
                    ProtoDescriptors.toProto(path, element, names), dependencies);
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException("built-in " + path + " does not link", e);
        }
    }
}

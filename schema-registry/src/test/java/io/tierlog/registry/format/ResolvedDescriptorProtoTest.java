package io.tierlog.registry.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import io.tierlog.registry.SchemaType;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code format=serialized} gives clients a descriptor they can use without resolving names
 * themselves (Confluent's JavaScript serdes cannot): message and enum fields carry their type and a
 * fully qualified type name, as protoc writes them.
 */
class ResolvedDescriptorProtoTest {
    private static final String PROTO =
            """
            syntax = "proto3";
            package tierlog.it;

            message Meta {
              string source = 1;
              Kind kind = 2;
              enum Kind { A = 0; B = 1; }
            }
            message Order {
              string id = 1;
              int64 qty = 2;
              Meta meta = 3;
              repeated Line lines = 4;
              map<string, Meta> by_name = 5;
              message Line { Meta.Kind kind = 1; Order parent = 2; }
            }
            """;

    @Test
    void messageAndEnumFieldsCarryTheirTypeAndAFullyQualifiedName() throws Exception {
        ProtobufParsedSchema p =
                (ProtobufParsedSchema)
                        SchemaFormats.parse(
                                SchemaType.PROTOBUF, PROTO, List.of(), name -> null, false);
        FileDescriptorProto file =
                FileDescriptorProto.parseFrom(Base64.getDecoder().decode(p.serialized()));
        DescriptorProto meta = file.getMessageType(0);
        DescriptorProto order = file.getMessageType(1);
        assertField(meta.getField(1), FieldDescriptorProto.Type.TYPE_ENUM, ".tierlog.it.Meta.Kind");
        assertField(order.getField(2), FieldDescriptorProto.Type.TYPE_MESSAGE, ".tierlog.it.Meta");
        assertField(
                order.getField(3),
                FieldDescriptorProto.Type.TYPE_MESSAGE,
                ".tierlog.it.Order.Line");
        DescriptorProto line =
                order.getNestedTypeList().stream()
                        .filter(n -> n.getName().equals("Line"))
                        .findFirst()
                        .orElseThrow();
        assertField(line.getField(0), FieldDescriptorProto.Type.TYPE_ENUM, ".tierlog.it.Meta.Kind");
        assertField(line.getField(1), FieldDescriptorProto.Type.TYPE_MESSAGE, ".tierlog.it.Order");
        // a map field is a repeated message of its synthetic entry type, whose value is Meta
        FieldDescriptorProto byName = order.getField(4);
        assertThat(byName.getType()).isEqualTo(FieldDescriptorProto.Type.TYPE_MESSAGE);
        DescriptorProto entry =
                order.getNestedTypeList().stream()
                        .filter(n -> byName.getTypeName().endsWith("." + n.getName()))
                        .findFirst()
                        .orElseThrow();
        assertField(entry.getField(1), FieldDescriptorProto.Type.TYPE_MESSAGE, ".tierlog.it.Meta");
        // scalars untouched
        assertThat(order.getField(1).getType()).isEqualTo(FieldDescriptorProto.Type.TYPE_INT64);
        assertThat(order.getField(1).hasTypeName()).isFalse();
    }

    private static void assertField(
            FieldDescriptorProto f, FieldDescriptorProto.Type type, String typeName) {
        assertThat(f.getType()).as(f.getName()).isEqualTo(type);
        assertThat(f.getTypeName()).as(f.getName()).isEqualTo(typeName);
    }
}

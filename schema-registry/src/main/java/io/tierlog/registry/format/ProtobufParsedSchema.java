package io.tierlog.registry.format;

import com.google.protobuf.Descriptors;
import io.tierlog.registry.ParsedSchema;
import java.util.List;

/**
 * A Protobuf schema (one .proto file, imports resolved through references and the well-known
 * types), for use inside this module: its descriptor, and the message a Confluent wire-format
 * record names by its message indexes (an empty list or {@code [0]} is the first message).
 */
public interface ProtobufParsedSchema extends ParsedSchema {
    Descriptors.FileDescriptor fileDescriptor();

    /**
     * The file as base64 of its serialized {@code FileDescriptorProto}: what Confluent's REST API
     * returns for {@code format=serialized}. Its dependencies are named by their import paths (the
     * references' names).
     */
    String serialized();

    /**
     * @throws IllegalArgumentException when the indexes name no message of the file
     */
    Descriptors.Descriptor message(List<Integer> messageIndexes);
}

package io.tierlog.registry;

import java.util.List;

/**
 * A schema parsed and validated in its format, with its references resolved. Implementations are
 * per format (see {@code io.tierlog.registry.format}) and give access to the format's own model
 * ({@code AvroParsedSchema.avro()}, {@code JsonParsedSchema.node()}, {@code
 * ProtobufParsedSchema.descriptor(...)}) inside this module only. Immutable, so thread-safe.
 */
public interface ParsedSchema {
    SchemaType type();

    /** The schema text as registered (after normalization when that was asked for). */
    String text();

    /**
     * The canonical form two registrations compare by (Avro's parsing canonical form plus what it
     * drops that matters, such as defaults; JSON with sorted keys; Protobuf as Wire prints it): the
     * same schema registered twice under a subject is one version, and one id globally.
     */
    String canonical();

    /** The references, in declaration order. */
    List<SchemaReference> references();
}

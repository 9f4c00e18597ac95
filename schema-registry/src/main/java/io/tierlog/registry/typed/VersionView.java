package io.tierlog.registry.typed;

import io.tierlog.common.typed.TypedType;
import io.tierlog.registry.ParsedSchema;
import io.tierlog.registry.format.AvroParsedSchema;
import io.tierlog.registry.format.JsonParsedSchema;
import io.tierlog.registry.format.ProtobufParsedSchema;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * The typed view of one schema (one subject version), and the decoder of payloads written with it
 * into rows of its own struct. Immutable, so thread-safe (decode allocates per call).
 */
interface VersionView {
    /** The struct of the view, field ids as the {@link FieldIds} that built it gave them. */
    TypedType.Struct struct();

    /** True when the wire-format header carries Protobuf message indexes. */
    boolean protobuf();

    /**
     * Decodes the payload from the position of {@code body} (after the header) to its limit.
     *
     * @throws Exception for a payload that does not decode with the schema (a {@code decode}
     *     failure, never a crash)
     */
    Object[] decode(ByteBuffer body, List<Integer> messageIndexes) throws Exception;

    /** The view of {@code schema}, or null when it has none. */
    static VersionView of(ParsedSchema schema, FieldIds ids) {
        if (schema instanceof AvroParsedSchema avro) {
            AvroView.Node node = AvroView.of(avro.avro(), ids);
            return node == null ? null : new Avro((AvroView.RecordNode) node);
        }
        if (schema instanceof JsonParsedSchema json) {
            return JsonView.of(json, ids);
        }
        if (schema instanceof ProtobufParsedSchema proto) {
            return ProtobufView.of(proto, ids);
        }
        return null;
    }

    /** Copies the bytes from position to limit (the buffer is not moved). */
    static byte[] bytes(ByteBuffer buf) {
        byte[] b = new byte[buf.remaining()];
        buf.duplicate().get(b);
        return b;
    }

    /** Avro: the payload is Avro binary written with the schema. */
    final class Avro implements VersionView {
        /** Avro's decoder is heavy to make and holds no state between payloads: one per thread. */
        private static final ThreadLocal<BinaryDecoder> DECODERS = new ThreadLocal<>();

        final AvroView.RecordNode node;

        Avro(AvroView.RecordNode node) {
            this.node = node;
        }

        @Override
        public TypedType.Struct struct() {
            return (TypedType.Struct) node.type;
        }

        @Override
        public boolean protobuf() {
            return false;
        }

        @Override
        public Object[] decode(ByteBuffer body, List<Integer> messageIndexes) throws Exception {
            BinaryDecoder reuse = DECODERS.get();
            BinaryDecoder in =
                    body.hasArray()
                            ? DecoderFactory.get()
                                    .binaryDecoder(
                                            body.array(),
                                            body.arrayOffset() + body.position(),
                                            body.remaining(),
                                            reuse)
                            : DecoderFactory.get().binaryDecoder(bytes(body), reuse);
            if (in != reuse) {
                DECODERS.set(in);
            }
            return node.read(in, body.remaining());
        }
    }
}

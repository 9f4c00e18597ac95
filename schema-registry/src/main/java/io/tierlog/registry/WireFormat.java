package io.tierlog.registry;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Confluent's wire format of a key or value written by a registry-aware serializer:
 *
 * <pre>
 * offset 0  MAGIC      1 byte   always 0
 * offset 1  SCHEMA_ID  4 bytes  the global schema id, big-endian int
 * offset 5  (PROTOBUF only) MESSAGE_INDEXES: a zigzag varint count n, then n zigzag varint
 *           indexes (the path of the message in the .proto file: top-level index, then nested
 *           indexes); a count of 0 (the single byte 0) means [0], the first message
 * then      the payload in the schema's format (Avro binary, JSON text, Protobuf binary)
 * </pre>
 *
 * Varints are Kafka's and Confluent's signed varints ({@code ByteUtils.writeVarint}: zigzag, at
 * most 5 bytes). Every method reads from the buffer's position without moving it, so one buffer can
 * be looked at by several readers. Stateless, so thread-safe.
 */
public final class WireFormat {
    /** The magic byte. */
    public static final byte MAGIC = 0;

    public static final int MAGIC_OFFSET = 0;
    public static final int MAGIC_LENGTH = 1;
    public static final int SCHEMA_ID_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    public static final int SCHEMA_ID_LENGTH = 4;

    /** Length of the header of AVRO and JSON payloads (magic + id); Protobuf's indexes follow. */
    public static final int HEADER_LENGTH = SCHEMA_ID_OFFSET + SCHEMA_ID_LENGTH;

    /** Message indexes beyond this count are refused as corrupt (no .proto nests so deep). */
    public static final int MAX_MESSAGE_INDEXES = 256;

    private static final int MAX_VARINT_BYTES = 5;

    private WireFormat() {}

    /**
     * A parsed header.
     *
     * @param schemaId the schema id (any int the producer wrote; registries assign ids from 1)
     * @param messageIndexes Protobuf's message indexes ({@code [0]} for the first message), or
     *     empty when they were not read (AVRO, JSON)
     * @param length bytes of header from the buffer's position: the payload starts at {@code
     *     position + length}
     */
    public record Header(int schemaId, List<Integer> messageIndexes, int length) {
        public Header {
            messageIndexes = List.copyOf(messageIndexes);
        }
    }

    /** A payload whose header is missing or corrupt; the message says what is wrong. */
    public static final class MalformedHeaderException extends RuntimeException {
        public MalformedHeaderException(String message) {
            super(message);
        }
    }

    /** True when {@code payload} starts with the magic byte and holds a whole schema id. */
    public static boolean hasHeader(ByteBuffer payload) {
        return payload.remaining() >= HEADER_LENGTH
                && payload.get(payload.position() + MAGIC_OFFSET) == MAGIC;
    }

    /**
     * The schema id of {@code payload}, or -1 when it has no header ({@link #hasHeader} false). The
     * cheap check for produce-time validation: no allocation. (A producer could write id -1; the
     * registry never assigns it, so treating it as "no header" is safe.)
     */
    public static int schemaIdOrMinusOne(ByteBuffer payload) {
        if (!hasHeader(payload)) {
            return -1;
        }
        return payload.getInt(payload.position() + SCHEMA_ID_OFFSET);
    }

    /**
     * Parses the header of {@code payload}; with {@code protobuf}, the message indexes too.
     *
     * @throws MalformedHeaderException when the payload is shorter than a header, the magic byte is
     *     not 0, or the message indexes are truncated, too many, negative or over-long varints
     */
    public static Header parse(ByteBuffer payload, boolean protobuf) {
        if (payload.remaining() < HEADER_LENGTH) {
            throw new MalformedHeaderException(
                    "no wire-format header: "
                            + payload.remaining()
                            + " bytes, a header needs "
                            + HEADER_LENGTH);
        }
        int start = payload.position();
        byte magic = payload.get(start + MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new MalformedHeaderException(
                    "no wire-format header: magic byte is " + (magic & 0xff) + ", expected 0");
        }
        int id = payload.getInt(start + SCHEMA_ID_OFFSET);
        if (!protobuf) {
            return new Header(id, List.of(), HEADER_LENGTH);
        }
        int[] pos = {start + HEADER_LENGTH};
        int count = readVarint(payload, pos, "message index count");
        if (count == 0) {
            return new Header(id, List.of(0), pos[0] - start);
        }
        if (count < 0 || count > MAX_MESSAGE_INDEXES) {
            throw new MalformedHeaderException(
                    "corrupt Protobuf message indexes: count "
                            + count
                            + " (at most "
                            + MAX_MESSAGE_INDEXES
                            + ")");
        }
        List<Integer> indexes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int index = readVarint(payload, pos, "message index " + i);
            if (index < 0) {
                throw new MalformedHeaderException(
                        "corrupt Protobuf message indexes: index " + i + " is " + index);
            }
            indexes.add(index);
        }
        return new Header(id, indexes, pos[0] - start);
    }

    /**
     * The header bytes for schema {@code schemaId}: magic and id, then for a non-null {@code
     * messageIndexes} Protobuf's indexes as Confluent's serializer writes them ({@code [0]} as the
     * single byte 0).
     */
    public static byte[] header(int schemaId, List<Integer> messageIndexes) {
        ByteBuffer out =
                ByteBuffer.allocate(
                        HEADER_LENGTH
                                + (messageIndexes == null
                                        ? 0
                                        : MAX_VARINT_BYTES * (1 + messageIndexes.size())));
        out.put(MAGIC).putInt(schemaId);
        if (messageIndexes != null) {
            if (messageIndexes.size() == 1 && messageIndexes.get(0) == 0) {
                writeVarint(out, 0);
            } else {
                writeVarint(out, messageIndexes.size());
                for (int index : messageIndexes) {
                    writeVarint(out, index);
                }
            }
        }
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    private static int readVarint(ByteBuffer buf, int[] pos, String what) {
        int raw = 0;
        for (int i = 0; i < MAX_VARINT_BYTES; i++) {
            if (pos[0] >= buf.limit()) {
                throw new MalformedHeaderException(
                        "corrupt Protobuf message indexes: " + what + " truncated");
            }
            int b = buf.get(pos[0]++) & 0xff;
            raw |= (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new MalformedHeaderException(
                "corrupt Protobuf message indexes: " + what + " is a varint over 5 bytes");
    }

    private static void writeVarint(ByteBuffer out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & ~0x7f) != 0) {
            out.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }
}

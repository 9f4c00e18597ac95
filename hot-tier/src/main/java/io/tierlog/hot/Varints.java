package io.tierlog.hot;

import java.nio.ByteBuffer;

/**
 * Zig-zag varint decoding (protobuf style, as Kafka's {@code ByteUtils}) at absolute buffer
 * indexes, bounded by a limit. Stateless; thread-safe.
 */
final class Varints {
    private Varints() {}

    /** Reads a zig-zag varint at {@code pos[0]}, advancing it; refuses to read at or past limit. */
    static int readVarint(ByteBuffer buf, int[] pos, int limit) {
        int value = 0;
        int shift = 0;
        int i = pos[0];
        while (true) {
            if (i >= limit) {
                throw new InvalidBatchException(
                        InvalidBatchException.Kind.INVALID_RECORD, "Varint runs past its record");
            }
            byte b = buf.get(i++);
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 28) {
                throw new InvalidBatchException(
                        InvalidBatchException.Kind.INVALID_RECORD, "Varint too long");
            }
        }
        pos[0] = i;
        return (value >>> 1) ^ -(value & 1);
    }

    /** Reads a zig-zag varlong at {@code pos[0]}, advancing it. */
    static long readVarlong(ByteBuffer buf, int[] pos, int limit) {
        long value = 0;
        int shift = 0;
        int i = pos[0];
        while (true) {
            if (i >= limit) {
                throw new InvalidBatchException(
                        InvalidBatchException.Kind.INVALID_RECORD, "Varlong runs past its record");
            }
            byte b = buf.get(i++);
            value |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 63) {
                throw new InvalidBatchException(
                        InvalidBatchException.Kind.INVALID_RECORD, "Varlong too long");
            }
        }
        pos[0] = i;
        return (value >>> 1) ^ -(value & 1);
    }
}

package io.tierlog.cold;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/**
 * Writes Kafka record batches (magic v2) into one growing heap buffer, record by record, from byte
 * ranges (no per-record objects): the fast counterpart of {@link RowBatchBuilder}, with the same
 * header fields taken from the stored batch columns. Uncompressed batches are written in place;
 * compressed ones are written to a scratch buffer and compressed with the batch's codec when the
 * batch ends.
 *
 * <p>Record layout (Kafka {@code DefaultRecord}): length varint, attributes int8 (0), timestamp
 * delta varlong, offset delta varint, key length varint (-1 = null) and bytes, value length and
 * bytes, header count varint, then per header key length, UTF-8 key, value length (-1 = null) and
 * value.
 *
 * <p>Not thread-safe: one encoder per read.
 */
final class BatchEncoder {
    private ByteBuffer out;
    private ByteBuffer scratch;

    /** Where records of the open batch go: {@link #out} or {@link #scratch}. */
    private ByteBuffer target;

    private int batchStart = -1;
    private BatchHeader header;
    private boolean logAppendTime;
    private int count;

    // Headers of the record being written: key and value ranges, value length -1 = null.
    private byte[][] headerKeys = new byte[4][];
    private int[] headerKeyOffsets = new int[4];
    private int[] headerKeyLengths = new int[4];
    private byte[][] headerValues = new byte[4][];
    private int[] headerValueOffsets = new int[4];
    private int[] headerValueLengths = new int[4];
    private int headerCount;

    BatchEncoder(int initialCapacity) {
        out = ByteBuffer.allocate(Math.max(1024, initialCapacity));
    }

    /** Bytes written so far (whole batches only between batches). */
    int position() {
        return out.position();
    }

    /**
     * True if the open batch is written in place (uncompressed) and already ends past {@code
     * limit}: it cannot fit in {@code limit} bytes whatever follows.
     */
    boolean overflows(int limit) {
        return target == out && out.position() > limit;
    }

    boolean inBatch() {
        return batchStart >= 0;
    }

    long baseOffset() {
        return header.baseOffset();
    }

    /** Opens a batch with the stored header fields. */
    void begin(BatchHeader header) {
        this.header = header;
        this.logAppendTime = header.logAppendTime();
        this.count = 0;
        ensure(RowBatchBuilder.RECORDS_OFFSET);
        batchStart = out.position();
        out.position(batchStart + RowBatchBuilder.RECORDS_OFFSET);
        if (header.codecId() == 0) {
            target = out;
        } else {
            if (scratch == null) {
                scratch = ByteBuffer.allocate(64 * 1024);
            }
            scratch.clear();
            target = scratch;
        }
    }

    /** Adds a header to the next record (ranges must stay valid until {@link #record}). */
    void header(
            byte[] key,
            int keyOffset,
            int keyLength,
            byte[] value,
            int valueOffset,
            int valueLength) {
        if (headerCount == headerKeys.length) {
            int n = headerCount * 2;
            headerKeys = java.util.Arrays.copyOf(headerKeys, n);
            headerKeyOffsets = java.util.Arrays.copyOf(headerKeyOffsets, n);
            headerKeyLengths = java.util.Arrays.copyOf(headerKeyLengths, n);
            headerValues = java.util.Arrays.copyOf(headerValues, n);
            headerValueOffsets = java.util.Arrays.copyOf(headerValueOffsets, n);
            headerValueLengths = java.util.Arrays.copyOf(headerValueLengths, n);
        }
        headerKeys[headerCount] = key;
        headerKeyOffsets[headerCount] = keyOffset;
        headerKeyLengths[headerCount] = keyLength;
        headerValues[headerCount] = value;
        headerValueOffsets[headerCount] = valueOffset;
        headerValueLengths[headerCount] = valueLength;
        headerCount++;
    }

    /**
     * Writes one record of the open batch with the headers added since the last record; {@code
     * keyLength} or {@code valueLength} -1 means null.
     */
    void record(
            long offset,
            long timestamp,
            byte[] key,
            int keyOffset,
            int keyLength,
            byte[] value,
            int valueOffset,
            int valueLength) {
        int offsetDelta = (int) (offset - header.baseOffset());
        // LogAppendTime batches report the batch max timestamp for every record; the deltas the
        // producer wrote are not kept, so they are written as zero.
        long timestampDelta = logAppendTime ? 0 : timestamp - header.baseTimestamp();
        int body =
                1
                        + sizeOfVarlong(timestampDelta)
                        + sizeOfVarint(offsetDelta)
                        + sizeOfBytes(keyLength)
                        + sizeOfBytes(valueLength)
                        + sizeOfVarint(headerCount);
        for (int i = 0; i < headerCount; i++) {
            body += sizeOfBytes(headerKeyLengths[i]) + sizeOfBytes(headerValueLengths[i]);
        }
        int total = sizeOfVarint(body) + body;
        ByteBuffer t = target;
        if (t.remaining() < total) {
            t = grow(t, total);
        }
        // Straight into the backing array: per-byte ByteBuffer puts were a quarter of decoding.
        byte[] a = t.array();
        int p = t.arrayOffset() + t.position();
        p = putVarint(a, p, body);
        a[p++] = 0;
        p = putVarlong(a, p, timestampDelta);
        p = putVarint(a, p, offsetDelta);
        p = putBytes(a, p, key, keyOffset, keyLength);
        p = putBytes(a, p, value, valueOffset, valueLength);
        p = putVarint(a, p, headerCount);
        for (int i = 0; i < headerCount; i++) {
            p = putBytes(a, p, headerKeys[i], headerKeyOffsets[i], headerKeyLengths[i]);
            p = putBytes(a, p, headerValues[i], headerValueOffsets[i], headerValueLengths[i]);
            headerKeys[i] = null;
            headerValues[i] = null;
        }
        t.position(p - t.arrayOffset());
        headerCount = 0;
        count++;
    }

    /** Finishes the open batch: compresses if needed, writes the header and the CRC. */
    void end() throws IOException {
        if (target == scratch) {
            scratch.flip();
            ByteBufferOutputStream bbos = new ByteBufferOutputStream(out);
            Compression compression =
                    Compression.of(CompressionType.forId(header.codecId())).build();
            try (OutputStream os = compression.wrapForOutput(bbos, RecordBatch.MAGIC_VALUE_V2)) {
                os.write(scratch.array(), scratch.arrayOffset(), scratch.limit());
            }
            out = bbos.buffer(); // may have been replaced by a larger one
        }
        header.writeTo(out, batchStart, out.position() - batchStart, count);
        batchStart = -1;
        target = null;
    }

    /** Drops everything after {@code position} (a whole-batch boundary). */
    void truncate(int position) {
        out.position(position);
        batchStart = -1;
        target = null;
    }

    /** The batches written, as a buffer from 0 to the current position. */
    ByteBuffer buffer() {
        ByteBuffer b = out.duplicate();
        b.flip();
        return b.slice();
    }

    private void ensure(int n) {
        if (out.remaining() < n) {
            out = grow(out, n);
        }
    }

    /** Replaces {@code b} (out or scratch) by a copy with room for {@code n} more bytes. */
    private ByteBuffer grow(ByteBuffer b, int n) {
        long want = Math.max((long) b.capacity() * 2, (long) b.position() + n);
        if (want > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("rebuilt batches exceed 2 GiB");
        }
        ByteBuffer bigger = ByteBuffer.allocate((int) want);
        b.flip();
        bigger.put(b);
        if (b == out) {
            out = bigger;
        } else {
            scratch = bigger;
        }
        if (target == b) {
            target = bigger;
        }
        return bigger;
    }

    private static int sizeOfBytes(int length) {
        return length < 0 ? 1 : sizeOfVarint(length) + length;
    }

    static int sizeOfVarint(int value) {
        int v = (value << 1) ^ (value >> 31);
        return v == 0 ? 1 : (38 - Integer.numberOfLeadingZeros(v)) / 7;
    }

    static int sizeOfVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        return v == 0 ? 1 : (70 - Long.numberOfLeadingZeros(v)) / 7;
    }

    private static int putBytes(byte[] a, int p, byte[] src, int off, int len) {
        if (len < 0) {
            a[p] = 1; // zigzag varint of -1
            return p + 1;
        }
        p = putVarint(a, p, len);
        System.arraycopy(src, off, a, p, len);
        return p + len;
    }

    private static int putVarint(byte[] a, int p, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xffffff80) != 0) {
            a[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        a[p++] = (byte) v;
        return p;
    }

    private static int putVarlong(byte[] a, int p, long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xffffffffffffff80L) != 0L) {
            a[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        a[p++] = (byte) v;
        return p;
    }
}

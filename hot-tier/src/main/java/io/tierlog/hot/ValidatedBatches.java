package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The batches of one validated append request: absolute buffer position, size and the header fields
 * the log needs, in parallel arrays (no per-batch objects). Not thread-safe: one instance per
 * thread, reused by each of its appends.
 */
final class ValidatedBatches {
    int count;
    int[] position = new int[1];
    int[] size = new int[1];
    int[] lastOffsetDelta = new int[1];
    long[] producerId = new long[1];
    short[] producerEpoch = new short[1];
    int[] baseSequence = new int[1];
    short[] attributes = new short[1];
    long totalRecords;

    /** Scratch for the record walk (absolute cursor; min and max record timestamp). */
    final int[] cursor = new int[1];

    final long[] minMax = new long[2];

    void reset() {
        count = 0;
        totalRecords = 0;
    }

    void add(int p, int batchSize, ByteBuffer buf) {
        if (count == position.length) {
            int n = count * 2;
            position = Arrays.copyOf(position, n);
            size = Arrays.copyOf(size, n);
            lastOffsetDelta = Arrays.copyOf(lastOffsetDelta, n);
            producerId = Arrays.copyOf(producerId, n);
            producerEpoch = Arrays.copyOf(producerEpoch, n);
            baseSequence = Arrays.copyOf(baseSequence, n);
            attributes = Arrays.copyOf(attributes, n);
        }
        position[count] = p;
        size[count] = batchSize;
        lastOffsetDelta[count] = buf.getInt(p + LAST_OFFSET_DELTA_OFFSET);
        producerId[count] = buf.getLong(p + PRODUCER_ID_OFFSET);
        producerEpoch[count] = buf.getShort(p + PRODUCER_EPOCH_OFFSET);
        baseSequence[count] = buf.getInt(p + BASE_SEQUENCE_OFFSET);
        attributes[count] = buf.getShort(p + ATTRIBUTES_OFFSET);
        totalRecords += lastOffsetDelta[count] + 1L;
        count++;
    }

    int totalBytes() {
        int n = 0;
        for (int i = 0; i < count; i++) {
            n += size[i];
        }
        return n;
    }
}

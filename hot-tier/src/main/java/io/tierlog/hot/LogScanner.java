package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Iterates the record batches of a {@code .log} file by reading their headers (and, when asked,
 * whole batches to verify the CRC), stopping at the first batch that is torn, corrupt or out of
 * order. Used by recovery, by read-only access to foreign log dirs and by the dump tool.
 *
 * <p>A batch is accepted when: at least a full header remains, magic is 2, the length is at least a
 * header and fits in the file, (if verifying) the CRC-32C matches, {@code lastOffsetDelta >= 0},
 * and the base offset is not below the previous batch's next offset (equal to it in strict mode,
 * which our own logs satisfy; Kafka's compacted logs have gaps).
 *
 * <p>Not thread-safe; one scanner per scan. The channel is not closed.
 */
final class LogScanner {
    private final FileChannel channel;
    private final long end;
    private final boolean verifyCrc;
    private final boolean strictOffsets;
    private final ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE);
    private ByteBuffer batch = ByteBuffer.allocate(0);

    private long nextPosition;
    private long expectedOffset;
    private String stopReason;

    // fields of the current batch
    long position;
    int size;
    long baseOffset;
    long lastOffset;
    long maxTimestamp;
    long producerId;
    short producerEpoch;
    int baseSequence;
    int lastOffsetDelta;
    short attributes;
    int recordCount;

    /**
     * @param start file position of the first batch
     * @param end file position after the last byte to consider
     * @param firstOffset offset the first batch must not be below (in strict mode: equal to), or -1
     *     for no check
     */
    LogScanner(
            FileChannel channel,
            long start,
            long end,
            long firstOffset,
            boolean verifyCrc,
            boolean strictOffsets) {
        this.channel = channel;
        this.nextPosition = start;
        this.end = end;
        this.expectedOffset = firstOffset;
        this.verifyCrc = verifyCrc;
        this.strictOffsets = strictOffsets;
    }

    /** Advances to the next valid batch; false at the end or at the first invalid batch. */
    boolean next() throws IOException {
        long p = nextPosition;
        if (p >= end) {
            return false;
        }
        if (end - p < HEADER_SIZE) {
            return stop("torn header at " + p);
        }
        header.clear();
        readFully(header, p);
        if (header.get(MAGIC_OFFSET) != MAGIC_V2) {
            return stop("magic " + header.get(MAGIC_OFFSET) + " at " + p);
        }
        int batchSize = header.getInt(LENGTH_OFFSET) + LOG_OVERHEAD;
        if (batchSize < HEADER_SIZE || batchSize > end - p) {
            return stop("batch size " + batchSize + " at " + p + " does not fit the file");
        }
        long base = header.getLong(BASE_OFFSET_OFFSET);
        int delta = header.getInt(LAST_OFFSET_DELTA_OFFSET);
        if (delta < 0) {
            return stop("negative lastOffsetDelta at " + p);
        }
        if (expectedOffset >= 0
                && (strictOffsets ? base != expectedOffset : base < expectedOffset)) {
            return stop("base offset " + base + " at " + p + ", expected " + expectedOffset);
        }
        if (verifyCrc) {
            if (batch.capacity() < batchSize) {
                batch = ByteBuffer.allocate(Math.max(batchSize, batch.capacity() * 2));
            }
            batch.clear().limit(batchSize);
            readFully(batch, p);
            if (!crcMatches(batch, 0, batchSize)) {
                return stop("CRC mismatch at " + p);
            }
        }
        position = p;
        size = batchSize;
        baseOffset = base;
        lastOffsetDelta = delta;
        lastOffset = base + delta;
        maxTimestamp = header.getLong(MAX_TIMESTAMP_OFFSET);
        producerId = header.getLong(PRODUCER_ID_OFFSET);
        producerEpoch = header.getShort(PRODUCER_EPOCH_OFFSET);
        baseSequence = header.getInt(BASE_SEQUENCE_OFFSET);
        attributes = header.getShort(ATTRIBUTES_OFFSET);
        recordCount = header.getInt(RECORDS_COUNT_OFFSET);
        nextPosition = p + batchSize;
        expectedOffset = lastOffset + 1;
        return true;
    }

    /** Position after the last accepted batch: the valid length of the file. */
    long validEnd() {
        return nextPosition;
    }

    /** Next offset after the last accepted batch (or the initial expectation). */
    long nextOffset() {
        return expectedOffset;
    }

    /** Why the scan stopped before {@code end}, or null when it reached the end. */
    String stopReason() {
        return stopReason;
    }

    /** The current batch's bytes (only when verifying CRCs), positioned at 0. */
    ByteBuffer batchBytes() {
        return batch.duplicate().position(0).limit(size);
    }

    private boolean stop(String reason) {
        stopReason = reason;
        return false;
    }

    private void readFully(ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            int n = channel.read(buf, pos);
            if (n < 0) {
                throw new IOException("Unexpected end of file at " + pos);
            }
            pos += n;
        }
        buf.flip();
    }
}

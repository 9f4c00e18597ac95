package io.tierlog.compactor;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Streams Kafka record batches (magic 2) from a byte range of a file channel one at a time, so that
 * a 1 GiB segment never sits in memory whole. Reads only: the channel is never written.
 *
 * <p>Batch framing (Kafka's {@code DefaultRecordBatch}): {@code baseOffset} int64 at 0, {@code
 * batchLength} int32 at 8 (bytes after this field), so a batch occupies {@code 12 + batchLength}
 * bytes. A truncated last batch ends the stream (the source vouches for whole batches).
 *
 * <p>Not thread-safe: one reader.
 */
public final class BatchStream implements Closeable {
    private static final int LOG_OVERHEAD = 12; // baseOffset (8) + batchLength (4)
    private static final int MAX_BATCH_BYTES = Integer.MAX_VALUE - 64;

    private final FileChannel channel;
    private final long end;
    private final Closeable onClose;
    private final ByteBuffer header = ByteBuffer.allocate(LOG_OVERHEAD);
    private long position;

    /**
     * @param channel file to read
     * @param position first byte of the first batch
     * @param size bytes of whole batches from {@code position}
     * @param onClose what closing the stream releases (may be null)
     */
    public BatchStream(FileChannel channel, long position, long size, Closeable onClose) {
        this.channel = channel;
        this.position = position;
        this.end = position + size;
        this.onClose = onClose;
    }

    /** An empty stream. */
    public static BatchStream empty() {
        return new BatchStream(null, 0, 0, null);
    }

    /** The next batch, or null at the end. */
    public RecordBatch next() throws IOException {
        if (end - position < LOG_OVERHEAD) {
            return null;
        }
        header.clear();
        readFully(header, position);
        header.flip();
        long baseOffset = header.getLong(0);
        int length = header.getInt(8);
        if (length < 0 || length > MAX_BATCH_BYTES) {
            throw new IOException(
                    "invalid batch length "
                            + length
                            + " at position "
                            + position
                            + " (offset "
                            + baseOffset
                            + ")");
        }
        long total = LOG_OVERHEAD + (long) length;
        if (position + total > end) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.allocate((int) total);
        readFully(buf, position);
        buf.flip();
        position += total;
        RecordBatch batch = MemoryRecords.readableRecords(buf).firstBatch();
        if (batch == null) {
            throw new IOException("unreadable batch at offset " + baseOffset);
        }
        return batch;
    }

    /** Bytes not yet returned. */
    public long remaining() {
        return end - position;
    }

    private void readFully(ByteBuffer buf, long at) throws IOException {
        long pos = at;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, pos);
            if (n < 0) {
                throw new EOFException("file ended at " + pos + " before " + end);
            }
            pos += n;
        }
    }

    @Override
    public void close() throws IOException {
        if (onClose != null) {
            onClose.close();
        }
    }
}

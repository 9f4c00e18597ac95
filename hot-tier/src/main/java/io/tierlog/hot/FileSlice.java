package io.tierlog.hot;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * A byte range of a segment file holding whole record batches, ready for zero-copy transfer
 * (sendfile) to a socket. Valid while the segment is not deleted; a deleted segment keeps its
 * channel open for {@code file.delete.delay.ms} so that in-flight transfers finish. The slice never
 * closes the channel: the owning log does.
 *
 * <p>Immutable; thread-safe (positional reads only).
 */
public final class FileSlice {
    private static final FileSlice EMPTY = new FileSlice(null, 0, 0, -1, -1);

    private final FileChannel channel;
    private final long position;
    private final int sizeInBytes;
    private final long firstOffset;
    private final long nextOffset;

    /**
     * @param channel the segment's channel (not closed by the slice)
     * @param position file position of the first batch
     * @param sizeInBytes total bytes of the batches
     * @param firstOffset base offset of the first batch
     * @param nextOffset last offset of the last batch + 1
     */
    public FileSlice(
            FileChannel channel,
            long position,
            int sizeInBytes,
            long firstOffset,
            long nextOffset) {
        this.channel = channel;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.firstOffset = firstOffset;
        this.nextOffset = nextOffset;
    }

    /** The empty slice (no channel; offsets -1). */
    public static FileSlice empty() {
        return EMPTY;
    }

    /** An empty slice that still says at which offset the next read should start. */
    static FileSlice emptyAt(long offset) {
        return new FileSlice(null, 0, 0, offset, offset);
    }

    public FileChannel channel() {
        return channel;
    }

    public long position() {
        return position;
    }

    public int sizeInBytes() {
        return sizeInBytes;
    }

    public boolean isEmpty() {
        return sizeInBytes == 0;
    }

    /** Base offset of the first batch (the batch may start before the requested offset). */
    public long firstOffset() {
        return firstOffset;
    }

    /** Last offset of the last batch + 1: where the next read continues. */
    public long nextOffset() {
        return nextOffset;
    }

    /**
     * Transfers up to {@code count} bytes starting {@code offsetInSlice} bytes into the slice, with
     * {@link FileChannel#transferTo} (sendfile where the target allows it). May transfer fewer
     * bytes (non-blocking targets); returns how many were transferred.
     */
    public long transferTo(WritableByteChannel target, long offsetInSlice, long count)
            throws IOException {
        if (offsetInSlice < 0 || offsetInSlice > sizeInBytes || count < 0) {
            throw new IllegalArgumentException(
                    "offsetInSlice " + offsetInSlice + " count " + count + " size " + sizeInBytes);
        }
        long n = Math.min(count, sizeInBytes - offsetInSlice);
        if (n == 0) {
            return 0;
        }
        return channel.transferTo(position + offsetInSlice, n, target);
    }

    /** Copies the slice into a new heap buffer (flipped, ready to read). */
    public ByteBuffer readFully() throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(sizeInBytes);
        long pos = position;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, pos);
            if (n < 0) {
                throw new EOFException(
                        "Segment ended at "
                                + pos
                                + " before the slice end "
                                + (position + sizeInBytes));
            }
            pos += n;
        }
        buf.flip();
        return buf;
    }

    /** The batches of the slice, read into memory (copy path: tests, tools, compactor). */
    public Iterable<RecordBatch> batches() {
        if (isEmpty()) {
            return List.of();
        }
        ByteBuffer buf;
        try {
            buf = readFully();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        List<RecordBatch> out = new ArrayList<>();
        for (RecordBatch b : MemoryRecords.readableRecords(buf).batches()) {
            out.add(b);
        }
        return out;
    }

    @Override
    public String toString() {
        return "FileSlice{position="
                + position
                + ", size="
                + sizeInBytes
                + ", offsets=["
                + firstOffset
                + ", "
                + nextOffset
                + ")}";
    }
}

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
 * (sendfile) to a socket. Valid while the segment is not deleted; a deleted segment keeps its file
 * for {@code file.delete.delay.ms} so that in-flight transfers finish. The slice never closes the
 * channel: the owning log does.
 *
 * <p>A slice of a live log refers to its segment's {@link SegmentFile}, whose descriptor the log
 * dir's {@link OpenFiles} bound may close while idle: {@link #readFully} and {@link #transferTo}
 * pin the file for the duration of the call, and a transfer spanning many calls (a Netty file
 * region) holds a {@link #pin()} from start to end, so that the descriptor it sends from stays
 * open.
 *
 * <p>Immutable; thread-safe (positional reads only).
 */
public final class FileSlice {
    private static final FileSlice EMPTY = new FileSlice((FileChannel) null, 0, 0, -1, -1);

    private final FileChannel channel;
    private final SegmentFile file;
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
        this.file = null;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.firstOffset = firstOffset;
        this.nextOffset = nextOffset;
    }

    /** A slice of a live segment whose descriptor may be closed while idle. */
    FileSlice(SegmentFile file, long position, int sizeInBytes, long firstOffset, long nextOffset) {
        this.channel = null;
        this.file = file;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.firstOffset = firstOffset;
        this.nextOffset = nextOffset;
    }

    /**
     * A pin of the slice's file: its channel stays open until {@link #close()}. Close it exactly
     * once (more closes are ignored); not thread-safe.
     */
    public static final class Pin implements AutoCloseable {
        private final FileChannel channel;
        private final SegmentFile file;
        private boolean released;

        private Pin(FileChannel channel, SegmentFile file) {
            this.channel = channel;
            this.file = file;
        }

        /** The channel, open until {@link #close()}. */
        public FileChannel channel() {
            return channel;
        }

        @Override
        public void close() {
            if (!released) {
                released = true;
                if (file != null) {
                    file.release();
                }
            }
        }
    }

    /**
     * Pins the file open (reopening it if the bound closed it) until the returned pin is closed:
     * for a transfer that spans several calls, such as a Netty file region being written.
     */
    public Pin pin() throws IOException {
        return file == null ? new Pin(channel, null) : new Pin(file.acquire(), file);
    }

    /** The empty slice (no channel; offsets -1). */
    public static FileSlice empty() {
        return EMPTY;
    }

    /** An empty slice that still says at which offset the next read should start. */
    static FileSlice emptyAt(long offset) {
        return new FileSlice((FileChannel) null, 0, 0, offset, offset);
    }

    /**
     * The channel, for slices built over a caller's channel; for a slice of a live log it is open
     * only while pinned: use {@link #pin()} instead.
     */
    public FileChannel channel() {
        if (file == null) {
            return channel;
        }
        try (Pin p = pin()) {
            return p.channel();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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
        if (file == null) {
            return channel.transferTo(position + offsetInSlice, n, target);
        }
        FileChannel ch = file.acquire();
        try {
            return ch.transferTo(position + offsetInSlice, n, target);
        } finally {
            file.release();
        }
    }

    /** Copies the slice into a new heap buffer (flipped, ready to read). */
    public ByteBuffer readFully() throws IOException {
        if (file == null) {
            return readFully(channel);
        }
        FileChannel ch = file.acquire();
        try {
            return readFully(ch);
        } finally {
            file.release();
        }
    }

    private ByteBuffer readFully(FileChannel channel) throws IOException {
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

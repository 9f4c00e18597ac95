package io.tierlog.hot;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file of fixed-size index entries, sorted by key, as Kafka's {@code AbstractIndex}: read through
 * a read-only memory mapping, written with positional {@link FileChannel} writes. A writable index
 * is extended (sparsely) to {@code maxIndexSize} (rounded down to whole entries) and trimmed to its
 * valid entries on {@link #trimToValidSize()}; a read-only index maps the file as it is and never
 * writes.
 *
 * <p>Why entries are not written through the mapping, as Kafka does: the preallocated file is
 * sparse, and a store into a mapped page that the file system cannot allocate (disk full) raises
 * SIGBUS, which the JVM turns into an asynchronous {@link InternalError} that may surface anywhere
 * in the writing thread (it killed a Netty event loop) and leaves a zeroed entry counted as
 * written. A {@code pwrite} instead fails with an {@link IOException} (ENOSPC) before the entry is
 * counted, and the caller rolls back. Linux keeps the mapping coherent with the writes (one page
 * cache). Reading a sparse hole through the mapping never faults.
 *
 * <p>The write channel is opened on the first write, counts against the log dir's {@link
 * OpenFiles} bound (closed while idle, reopened on the next write) and is closed for good on trim,
 * so an index that is not being appended to holds no file descriptor.
 *
 * <p>Thread-safety: one writer (the log's append lock) and any number of lock-free readers; the
 * entry count is volatile and published only after the entry bytes are written.
 */
abstract class AbstractIndex {
    protected final Path file;
    protected final long baseOffset;
    protected final boolean writable;
    protected volatile MappedByteBuffer mmap;
    protected volatile int entries;
    protected int maxEntries;

    /** The log dir's bound on open files, which the write channel counts against. */
    private final OpenFiles files;

    /**
     * Opened on the first write (writable indexes only), closed by the bound while idle like a
     * segment's log file; guarded by the writer.
     */
    private volatile SegmentFile writeFile;

    /** One entry being written (direct: a heap buffer would be copied to a temporary one). */
    private ByteBuffer entryBuffer;

    /** Bytes written since the last {@link #flush()}. */
    private volatile boolean dirty;

    AbstractIndex(
            Path file,
            long baseOffset,
            int maxIndexSize,
            boolean writable,
            boolean fresh,
            OpenFiles files)
            throws IOException {
        this.file = file;
        this.files = files;
        this.baseOffset = baseOffset;
        this.writable = writable;
        if (!writable) {
            mapReadOnly();
            int n = Files.exists(file) ? (int) (Files.size(file) / entrySize()) : 0;
            entries = n;
            entries = countValidEntries(n);
            maxEntries = entries;
            return;
        }
        boolean exists = Files.exists(file) && !fresh;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long existing = exists ? raf.length() : 0;
            if (!exists) {
                // Truncated in place, not replaced: a replaced file stays allocated while an old
                // mapping of it lives (until GC), so a recovery on a full disk could not rebuild
                // it. Only a segment recovered while offline is truncated under old mappings, and
                // offline logs refuse new reads.
                raf.setLength(0);
            }
            int validEntries = (int) (existing / entrySize());
            long size = roundDown(Math.max(maxIndexSize, validEntries * (long) entrySize()));
            raf.setLength(size); // sparse: extending allocates nothing, so never ENOSPC
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, size);
            maxEntries = (int) (size / entrySize());
            entries = validEntries;
        }
        if (exists) {
            entries = countValidEntries(entries);
        }
    }

    private void mapReadOnly() throws IOException {
        if (!Files.exists(file)) {
            mmap = null;
            return;
        }
        try (FileChannel ch = FileChannel.open(file)) {
            mmap = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
        }
    }

    private long roundDown(long size) {
        return size / entrySize() * entrySize();
    }

    abstract int entrySize();

    /** Relative offset stored in entry {@code n}. */
    abstract int relativeOffset(int n);

    /**
     * Number of leading entries that are plausible (strictly increasing); trailing zeros of a
     * preallocated file written before a crash are cut off. Throws when entries are disordered.
     */
    abstract int countValidEntries(int candidates);

    int entries() {
        return entries;
    }

    boolean isFull() {
        return entries >= maxEntries;
    }

    long baseOffset() {
        return baseOffset;
    }

    Path file() {
        return file;
    }

    /** Size of the valid entries in bytes. */
    long sizeInBytes() {
        return (long) entries * entrySize();
    }

    /** Drops every entry (the file keeps its preallocated size). */
    void reset() {
        entries = 0;
    }

    /** Keeps the first {@code n} entries. */
    void truncateToEntries(int n) {
        entries = Math.min(entries, n);
    }

    /**
     * Writes the entry in {@code slot} from {@link #entryBuffer()} (filled by the caller, not yet
     * flipped) at its position in the file. The caller counts the entry only after this returned: a
     * failed write (ENOSPC) leaves at most a partial entry beyond the valid ones, which the next
     * write to that slot overwrites and a trim cuts off.
     */
    protected final void writeEntry(int slot) throws IOException {
        if (!writable) {
            throw new IllegalStateException("Index " + file + " is read-only");
        }
        ByteBuffer b = entryBuffer;
        b.flip();
        SegmentFile f = writeFile;
        if (f == null) {
            f = SegmentFile.lazy(files, file);
            writeFile = f;
        }
        FileChannel ch = f.acquire();
        try {
            long pos = (long) slot * entrySize();
            while (b.hasRemaining()) {
                pos += ch.write(b, pos);
            }
        } finally {
            f.markUnflushed();
            f.release();
        }
        dirty = true;
    }

    /** The cleared buffer for one entry, to fill before {@link #writeEntry}. */
    protected final ByteBuffer entryBuffer() {
        ByteBuffer b = entryBuffer;
        if (b == null) {
            b = ByteBuffer.allocateDirect(entrySize());
            entryBuffer = b;
        }
        b.clear();
        return b;
    }

    /** Shrinks the file to its valid entries (on roll and close, as Kafka does). */
    void trimToValidSize() throws IOException {
        if (!writable) {
            return;
        }
        long size = sizeInBytes();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size); // shrinking never needs space
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, size);
        } finally {
            closeWriteChannel();
        }
        maxEntries = entries;
    }

    /** Fsyncs the entries written since the last flush. */
    void flush() throws IOException {
        if (!writable || !dirty) {
            return;
        }
        SegmentFile f = writeFile;
        if (f != null) {
            f.force();
        } else {
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                c.force(false);
            }
        }
        dirty = false;
    }

    private void closeWriteChannel() throws IOException {
        SegmentFile f = writeFile;
        writeFile = null;
        if (f != null) {
            f.close();
        }
    }

    /** Closes the write channel, ignoring errors (the segment is being abandoned). */
    void closeQuietly() {
        try {
            closeWriteChannel();
        } catch (IOException ignored) {
            // abandoning after a failure: the original error matters
        }
    }

    /**
     * Largest slot whose key is {@code <= target} (or {@code < target} when strict), or -1. Keys
     * are read by {@code key(n)}; entries are sorted by key.
     */
    protected int largestLowerBound(long target, boolean strict, KeyReader key) {
        int lo = 0;
        int hi = entries - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long k = key.key(mid);
            if (k < target || (!strict && k == target)) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Reads the sort key of entry n. */
    @FunctionalInterface
    protected interface KeyReader {
        long key(int n);
    }

    /** Trims a writable index and closes its write channel (the JVM unmaps on GC). */
    void close() throws IOException {
        if (writable) {
            trimToValidSize();
        }
    }

    void deleteIfExists() throws IOException {
        Files.deleteIfExists(file);
    }
}

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
 * A memory-mapped file of fixed-size index entries, sorted by key, as Kafka's {@code
 * AbstractIndex}. A writable index is extended (sparsely) to {@code maxIndexSize} (rounded down to
 * whole entries) and trimmed to its valid entries on {@link #trimToValidSize()}; a read-only index
 * maps the file as it is and never writes.
 *
 * <p>Why stores into the mapping are preceded by real writes: the extended file is sparse, and a
 * store into a mapped page that the file system cannot allocate (disk full) raises SIGBUS, which
 * the JVM turns into an asynchronous {@link InternalError} that may surface anywhere in the writing
 * thread (it killed a Netty event loop) and leaves a zeroed entry counted as written. So before an
 * entry is stored, the file region holding it is allocated by writing zeros with {@link
 * FileChannel} positional writes, {@link #PREALLOCATE_BYTES} at a time: on a full disk that write
 * fails with an {@link IOException} (ENOSPC) before the entry counts, and the caller rolls back; a
 * store into an allocated page never needs space (ext4, XFS, tmpfs; copy-on-write file systems such
 * as btrfs may still need space at the store, as for Kafka). One zero write per page (4 KiB) of
 * entries keeps the append path as fast as plain mapped stores (a positional write per entry cost a
 * syscall and an mtime update, which made each fsync-mode journal commit larger). Reading a sparse
 * hole through the mapping never faults.
 *
 * <p>The write channel is opened on the first allocation, counts against the log dir's {@link
 * OpenFiles} bound (closed while idle, reopened on the next allocation) and is closed for good on
 * trim, so an index that is not being appended to holds no file descriptor.
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

    /**
     * Bytes allocated by each zero write ahead of the entries: one page, so that thousands of
     * active segments do not hold much more than their entries.
     */
    static final int PREALLOCATE_BYTES = 4096;

    /** Zeros for {@link #ensureAllocated} (direct: a heap buffer would be copied again). */
    private static final ByteBuffer ZEROS =
            ByteBuffer.allocateDirect(PREALLOCATE_BYTES).asReadOnlyBuffer();

    /** The first bytes of the file known to be allocated by real writes; guarded by the writer. */
    private long allocated;

    /** One entry being written, copied into the mapping. */
    private final ByteBuffer entryBuffer = ByteBuffer.allocate(16);

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
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
            allocated = validEntries * (long) entrySize(); // written once, so allocated
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
     * Stores the entry in {@code slot} from {@link #entryBuffer()} (filled by the caller, not yet
     * flipped) into the mapping, after making sure its page is allocated. The caller counts the
     * entry only after this returned: a failed allocation (ENOSPC) stores nothing.
     */
    protected final void writeEntry(int slot) throws IOException {
        if (!writable) {
            throw new IllegalStateException("Index " + file + " is read-only");
        }
        ByteBuffer b = entryBuffer;
        b.flip();
        int pos = slot * entrySize();
        ensureAllocated(pos + b.remaining());
        mmap.put(pos, b, 0, b.remaining());
        dirty = true;
    }

    /**
     * Allocates the file up to at least {@code end} by writing zeros over the (sparse, unused)
     * bytes from {@link #allocated} on, so that later stores into those pages cannot fault.
     */
    private void ensureAllocated(long end) throws IOException {
        if (end <= allocated) {
            return;
        }
        long limit = mmap.capacity();
        long target =
                Math.min(
                        limit,
                        (end + PREALLOCATE_BYTES - 1) / PREALLOCATE_BYTES * PREALLOCATE_BYTES);
        SegmentFile f = writeFile;
        if (f == null) {
            f = SegmentFile.lazy(files, file);
            writeFile = f;
        }
        FileChannel ch = f.acquire();
        try {
            ByteBuffer zeros = ZEROS.duplicate();
            long pos = allocated;
            while (pos < target) {
                zeros.clear().limit((int) Math.min(PREALLOCATE_BYTES, target - pos));
                pos += ch.write(zeros, pos);
                allocated = pos; // what was written is allocated even if the next write fails
            }
        } finally {
            f.markUnflushed();
            f.release();
        }
        dirty = true;
    }

    /**
     * Whether writing up to {@code more} further entries could need {@link #ensureAllocated} (a
     * zero write, and opening the write channel on the first one), as opposed to stores into pages
     * already allocated. Called by the writer.
     */
    boolean mayAllocate(int more) {
        return writable && (long) (entries + more) * entrySize() > allocated;
    }

    /** The cleared buffer for one entry, to fill before {@link #writeEntry}. */
    protected final ByteBuffer entryBuffer() {
        return entryBuffer.clear();
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
            allocated = Math.min(allocated, size);
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
        MappedByteBuffer m = mmap;
        SegmentFile f = writeFile;
        if (!m.isReadOnly()) {
            m.force(); // msync: the stores into the mapping, and the zero writes of the range
        } else if (f != null) {
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

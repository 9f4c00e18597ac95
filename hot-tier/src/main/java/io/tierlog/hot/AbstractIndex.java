package io.tierlog.hot;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A memory-mapped file of fixed-size index entries, sorted by key, as Kafka's {@code
 * AbstractIndex}. A writable index is preallocated to {@code maxIndexSize} (rounded down to whole
 * entries) and trimmed to its valid entries on {@link #trimToValidSize()}; a read-only index maps
 * the file as it is and never writes.
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

    AbstractIndex(Path file, long baseOffset, int maxIndexSize, boolean writable, boolean fresh)
            throws IOException {
        this.file = file;
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
                raf.setLength(0);
            }
            int validEntries = (int) (existing / entrySize());
            long size = roundDown(Math.max(maxIndexSize, validEntries * (long) entrySize()));
            raf.setLength(size);
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
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

    /** Shrinks the file to its valid entries (on roll and close, as Kafka does). */
    void trimToValidSize() throws IOException {
        if (!writable) {
            return;
        }
        long size = sizeInBytes();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
        }
        maxEntries = entries;
    }

    void flush() {
        if (writable && mmap != null) {
            mmap.force();
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

    /** Releases the mapping (best effort; the JVM unmaps on GC). */
    void close() throws IOException {
        if (writable) {
            trimToValidSize();
        }
    }

    void deleteIfExists() throws IOException {
        Files.deleteIfExists(file);
    }
}

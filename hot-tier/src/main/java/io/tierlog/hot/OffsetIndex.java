package io.tierlog.hot;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Kafka's sparse offset index ({@code <baseOffset>.index}). The file is an array of 8-byte
 * big-endian entries, sorted by offset:
 *
 * <pre>
 *   RELATIVE_OFFSET  int32  offset - baseOffset of the LAST offset of the indexed batch
 *   POSITION         int32  file position of that batch in the .log file
 * </pre>
 *
 * An entry is added every {@code index.interval.bytes} of log. A writable file is preallocated to
 * {@code segment.index.bytes} and trimmed on roll/close; unused tail entries are zeros.
 *
 * <p>Thread-safety: one writer under the log's append lock, lock-free readers.
 */
final class OffsetIndex extends AbstractIndex {
    static final int RELATIVE_OFFSET_OFFSET = 0;
    static final int POSITION_OFFSET = RELATIVE_OFFSET_OFFSET + 4;
    static final int ENTRY_SIZE = POSITION_OFFSET + 4;

    OffsetIndex(
            Path file,
            long baseOffset,
            int maxIndexSize,
            boolean writable,
            boolean fresh,
            OpenFiles files)
            throws IOException {
        super(file, baseOffset, maxIndexSize, writable, fresh, files);
    }

    @Override
    int entrySize() {
        return ENTRY_SIZE;
    }

    @Override
    int relativeOffset(int n) {
        return mmap.getInt(n * ENTRY_SIZE + RELATIVE_OFFSET_OFFSET);
    }

    int position(int n) {
        return mmap.getInt(n * ENTRY_SIZE + POSITION_OFFSET);
    }

    @Override
    int countValidEntries(int candidates) {
        for (int i = 0; i < candidates; i++) {
            int rel = relativeOffset(i);
            int pos = position(i);
            if (i > 0 && rel == 0 && pos == 0) {
                return i;
            }
            if (rel < 0 || pos < 0) {
                throw new CorruptIndexException(
                        "Negative entry " + i + " (" + rel + ", " + pos + ") in " + file);
            }
            if (i > 0 && (rel <= relativeOffset(i - 1) || pos <= position(i - 1))) {
                throw new CorruptIndexException(
                        "Entries out of order at slot " + i + " in " + file);
            }
        }
        return candidates;
    }

    /** Checks every entry points inside a log of {@code logSize} bytes. */
    void sanityCheck(long logSize) {
        int n = entries;
        if (n > 0 && position(n - 1) >= logSize) {
            throw new CorruptIndexException(
                    "Last entry of " + file + " points past the log end " + logSize);
        }
    }

    /**
     * Appends an entry for a batch whose last offset is {@code lastOffset} at {@code position}.
     *
     * @throws IOException when the entry cannot be written (it is then not counted)
     */
    void append(long lastOffset, int position) throws IOException {
        int n = entries;
        if (n >= maxEntries) {
            throw new IllegalStateException("Index full: " + file);
        }
        int rel = (int) (lastOffset - baseOffset);
        if (n > 0 && rel <= relativeOffset(n - 1)) {
            return;
        }
        entryBuffer().putInt(rel).putInt(position);
        writeEntry(n);
        entries = n + 1;
    }

    /**
     * File position to start scanning for {@code targetOffset}: the position of the last entry
     * whose offset is {@code < targetOffset} (strictly less: an entry names a batch's last offset,
     * so the batch holding {@code targetOffset} starts after the previous entry's batch at the
     * earliest), or 0.
     */
    int lookup(long targetOffset) {
        long rel = targetOffset - baseOffset;
        int slot = largestLowerBound(rel, true, this::relativeOffset);
        return slot < 0 ? 0 : position(slot);
    }

    /** Largest slot whose position is {@code <= position}, or -1. */
    int slotAtOrBelowPosition(int position) {
        return largestLowerBound(position, false, this::position);
    }

    /** Largest slot whose (last) offset is {@code < offset}, or -1. */
    int slotBelowOffset(long offset) {
        return largestLowerBound(offset - baseOffset, true, this::relativeOffset);
    }

    /** Keeps only entries whose position is below {@code position}. */
    void truncateToPosition(int position) {
        int n = entries;
        int keep = n;
        while (keep > 0 && position(keep - 1) >= position) {
            keep--;
        }
        truncateToEntries(keep);
    }
}

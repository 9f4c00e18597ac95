package io.tierlog.hot;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Kafka's time index ({@code <baseOffset>.timeindex}). The file is an array of 12-byte big-endian
 * entries, strictly increasing in timestamp:
 *
 * <pre>
 *   TIMESTAMP        int64  largest batch max timestamp seen so far in the segment
 *   RELATIVE_OFFSET  int32  last offset - baseOffset of the batch that carried that timestamp
 * </pre>
 *
 * An entry is added together with an offset-index entry when the max timestamp grew, and once more
 * when the segment is rolled (so the last entry holds the segment's max timestamp).
 *
 * <p>Thread-safety: one writer under the log's append lock, lock-free readers.
 */
final class TimeIndex extends AbstractIndex {
    static final int TIMESTAMP_OFFSET = 0;
    static final int RELATIVE_OFFSET_OFFSET = TIMESTAMP_OFFSET + 8;
    static final int ENTRY_SIZE = RELATIVE_OFFSET_OFFSET + 4;

    TimeIndex(
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

    long timestamp(int n) {
        return mmap.getLong(n * ENTRY_SIZE + TIMESTAMP_OFFSET);
    }

    @Override
    int relativeOffset(int n) {
        return mmap.getInt(n * ENTRY_SIZE + RELATIVE_OFFSET_OFFSET);
    }

    @Override
    int countValidEntries(int candidates) {
        for (int i = 0; i < candidates; i++) {
            long ts = timestamp(i);
            int rel = relativeOffset(i);
            if (i > 0 && ts == 0 && rel == 0) {
                return i;
            }
            if (rel < 0) {
                throw new CorruptIndexException("Negative offset in slot " + i + " of " + file);
            }
            if (i > 0 && (ts <= timestamp(i - 1) || rel < relativeOffset(i - 1))) {
                throw new CorruptIndexException(
                        "Entries out of order at slot " + i + " in " + file);
            }
        }
        return candidates;
    }

    /** Last entry's timestamp, or -1. */
    long lastTimestamp() {
        int n = entries;
        return n == 0 ? -1 : timestamp(n - 1);
    }

    /**
     * Appends (timestamp, offset) when {@code timestamp} is larger than the last entry's.
     *
     * @throws IOException when the entry cannot be written (it is then not counted)
     */
    void maybeAppend(long timestamp, long offset) throws IOException {
        int n = entries;
        if (offset < baseOffset || timestamp < 0) {
            return; // no batch with a timestamp yet (producers may send NO_TIMESTAMP, -1)
        }
        if (n > 0 && timestamp <= timestamp(n - 1)) {
            return;
        }
        if (n >= maxEntries) {
            throw new IllegalStateException("Time index full: " + file);
        }
        entryBuffer().putLong(timestamp).putInt((int) (offset - baseOffset));
        writeEntry(n);
        entries = n + 1;
    }

    /**
     * Offset at which to start scanning for the first record with timestamp {@code >= target}: the
     * offset of the last entry whose timestamp is {@code < target} (every record before that
     * entry's batch has a smaller timestamp), or the base offset.
     */
    long lookup(long target) {
        int slot = largestLowerBound(target, true, this::timestamp);
        return slot < 0 ? baseOffset : baseOffset + relativeOffset(slot);
    }

    /** Keeps only entries whose offset is below {@code offset}. */
    void truncateToOffset(long offset) {
        int keep = entries;
        while (keep > 0 && baseOffset + relativeOffset(keep - 1) >= offset) {
            keep--;
        }
        truncateToEntries(keep);
    }
}

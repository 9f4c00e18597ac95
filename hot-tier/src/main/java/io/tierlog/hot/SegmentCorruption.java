package io.tierlog.hot;

import static io.tierlog.hot.RecordBatchLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Where a segment file stops holding valid batches, as found by recovery ({@link
 * LogSegment#recover()}) or by a deep check ({@link ReadOnlyLogDir#findCorruption}).
 *
 * <p>Besides the first invalid byte, it records what a resynchronising scan found after it: batches
 * that are whole and pass their CRC although they follow the corruption. Their offsets were
 * assigned (a batch is only written after its offsets are), so recovery must never hand them out
 * again even though it cannot keep the batches themselves (the bytes between are not trusted).
 *
 * <p>Immutable, so thread-safe.
 *
 * @param file the segment's {@code .log} file
 * @param position byte position of the first invalid batch (= the valid length of the file)
 * @param firstLostOffset offset the invalid batch should start at (the offset after the last valid
 *     batch, or the segment's base offset)
 * @param reason why the batch at {@code position} is invalid (torn, CRC mismatch, ...)
 * @param bytesAfter bytes from {@code position} to the end of the file
 * @param endAfter one past the last offset of the valid batches found after the corruption, or -1
 *     when none was found
 */
public record SegmentCorruption(
        Path file,
        long position,
        long firstLostOffset,
        String reason,
        long bytesAfter,
        long endAfter) {

    /** Bytes read per resync step; candidates are checked inside such a window. */
    private static final int WINDOW = 1 << 20;

    /** Plausibility bound of a resynchronised batch's base offset, per byte after minOffset's. */
    private static final long MAX_OFFSETS_PER_BYTE = 4096;

    /**
     * Whether the invalid bytes are only a torn tail (a partial batch at the end, nothing after).
     */
    public boolean tornTail() {
        return endAfter < 0
                && reason != null
                && (reason.startsWith("torn") || reason.endsWith("does not fit the file"));
    }

    @Override
    public String toString() {
        return file
                + " at byte "
                + position
                + " (offset "
                + firstLostOffset
                + "): "
                + reason
                + "; "
                + bytesAfter
                + " bytes after it"
                + (endAfter >= 0 ? ", valid batches after it up to offset " + (endAfter - 1) : "");
    }

    /**
     * Scans {@code [from, end)} of {@code channel} byte by byte for whole batches that pass their
     * CRC and start at or above {@code minOffset} (and not implausibly far above it for the bytes
     * scanned: offsets of our own logs are contiguous), and returns one past the largest last
     * offset found, or -1. A candidate must have magic 2, a length that fits and a non-negative
     * last offset delta before its CRC is computed, so random bytes cost one header check each.
     * Reads only.
     */
    static long highestEndAfter(FileChannel channel, long from, long end, long minOffset)
            throws IOException {
        long best = -1;
        ByteBuffer win = ByteBuffer.allocate((int) Math.min(WINDOW, Math.max(0, end - from)));
        long p = from;
        while (end - p >= HEADER_SIZE) {
            win.clear();
            int n = (int) Math.min(win.capacity(), end - p);
            win.limit(n);
            while (win.hasRemaining()) {
                if (channel.read(win, p + win.position()) < 0) {
                    return best;
                }
            }
            int last = n - HEADER_SIZE; // candidate starts in this window: 0..last
            long jump = -1;
            for (int i = 0; i <= last; i++) {
                if (win.get(i + MAGIC_OFFSET) != MAGIC_V2) {
                    continue;
                }
                long base = win.getLong(i + BASE_OFFSET_OFFSET);
                int size = win.getInt(i + LENGTH_OFFSET) + LOG_OVERHEAD;
                int delta = win.getInt(i + LAST_OFFSET_DELTA_OFFSET);
                // The base offset is outside the CRC: one whose distance from minOffset is out of
                // all proportion to the bytes in between (a flipped high bit) is not trusted.
                // Offsets are contiguous in our logs and even a compressed record takes more
                // than 1/MAX_OFFSETS_PER_BYTE bytes.
                if (base < minOffset
                        || base - minOffset > (p + i - from + 1) * MAX_OFFSETS_PER_BYTE
                        || delta < 0
                        || size < HEADER_SIZE
                        || size > end - (p + i)) {
                    continue;
                }
                LogScanner sc = new LogScanner(channel, p + i, end, -1, true, false);
                if (sc.next()) {
                    best = Math.max(best, sc.lastOffset + 1);
                    // whole batches follow each other: walk them without a byte scan
                    while (sc.next()) {
                        best = Math.max(best, sc.lastOffset + 1);
                    }
                    jump = sc.validEnd();
                    break;
                }
            }
            p = jump > p ? jump : p + last + 1;
        }
        return best;
    }
}

package io.tierlog.cold;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A parquet-mr {@link InputFile} over ranged GETs of one object. The tail of the object (footer,
 * and after {@link #prefetchIndexes} the column and offset indexes that parquet-mr writes just
 * before the footer) is fetched once and kept. parquet-mr asks for all the pages it needs of a row
 * group at once ({@link SeekableInputStream#readVectored vectored read}: one range per run of
 * adjacent pages of a column chunk); ranges closer than {@value #MAX_GAP} bytes are coalesced into
 * one ranged GET of at most {@value #MAX_COALESCED} bytes, so a read of a few pages of every column
 * costs a few GETs rather than one per column. Plain stream reads are one ranged GET each.
 *
 * <p>Thread-safe: the cached tail is replaced atomically; streams are per reader.
 */
final class ObjectStoreInputFile implements InputFile {
    private static final int INITIAL_TAIL = 64 * 1024;

    /** Largest hole between two wanted ranges that one GET spans (fetched and dropped). */
    static final int MAX_GAP = 1 << 20;

    /** Coalesced GETs larger than this read each range into its own buffer. */
    static final int SPLIT_ABOVE = 1 << 20;

    /** Largest coalesced GET. */
    static final int MAX_COALESCED = 16 << 20;

    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private final ObjectStore store;
    private final String key;
    private final long length;

    /** Bytes [tailStart, length) of the object, or null before the first read. */
    private volatile Tail tail;

    private record Tail(long start, ByteBuffer bytes) {}

    ObjectStoreInputFile(ObjectStore store, String key, long length) {
        this.store = store;
        this.key = key;
        this.length = length;
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() {
        return new Stream();
    }

    private Tail tail() throws IOException {
        Tail t = tail;
        if (t != null) {
            return t;
        }
        synchronized (this) {
            if (tail != null) {
                return tail;
            }
            if (length < MAGIC.length * 2 + 4) {
                throw new ObjectCorruptException(
                        key, "object of " + length + " bytes is not Parquet", null);
            }
            int n = (int) Math.min(length, INITIAL_TAIL);
            ByteBuffer b = fetch(length - n, n);
            int footerLength = b.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(n - 8);
            for (int i = 0; i < MAGIC.length; i++) {
                if (b.get(n - MAGIC.length + i) != MAGIC[i]) {
                    throw new ObjectCorruptException(
                            key, "object does not end with Parquet magic", null);
                }
            }
            if (footerLength < 0 || footerLength + 8L + MAGIC.length > length) {
                throw new ObjectCorruptException(
                        key, "corrupt Parquet footer length " + footerLength, null);
            }
            if (footerLength + 8 > n) {
                int m = footerLength + 8;
                b = fetch(length - m, m);
                n = m;
            }
            tail = new Tail(length - n, b);
            return tail;
        }
    }

    /**
     * Extends the cached tail down to the lowest column/offset index of {@code footer}, with one
     * ranged GET, so that page-index lookups cost no further requests.
     */
    void prefetchIndexes(ParquetMetadata footer) throws IOException {
        long lowest = Long.MAX_VALUE;
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData c : block.getColumns()) {
                lowest = Math.min(lowest, offsetOf(c.getColumnIndexReference()));
                lowest = Math.min(lowest, offsetOf(c.getOffsetIndexReference()));
            }
        }
        synchronized (this) {
            Tail t = tail();
            if (lowest == Long.MAX_VALUE || lowest >= t.start() || lowest < 0) {
                return;
            }
            int extra = Math.toIntExact(t.start() - lowest);
            ByteBuffer head = fetch(lowest, extra);
            ByteBuffer merged = ByteBuffer.allocate(extra + t.bytes().remaining());
            merged.put(head).put(t.bytes().duplicate()).flip();
            tail = new Tail(lowest, merged);
        }
    }

    /**
     * Completes the data future of every range in {@code ranges}: ranges inside the cached tail are
     * served locally, the others with ranged GETs, neighbours closer than {@link #MAX_GAP}
     * coalesced into one GET (of at most {@link #MAX_COALESCED} bytes unless one range is larger).
     */
    void readRanges(List<ParquetFileRange> ranges) throws IOException {
        readRanges(ranges, null);
    }

    /**
     * As {@link #readRanges(List)}; with an {@code arena}, every fetched range is read into a
     * buffer of the arena (valid until the arena is reset).
     */
    void readRanges(List<ParquetFileRange> ranges, ReadArena arena) throws IOException {
        List<ParquetFileRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(ParquetFileRange::getOffset));
        for (ParquetFileRange r : sorted) {
            if (r.getOffset() < 0 || r.getLength() < 0 || r.getOffset() + r.getLength() > length) {
                throw new EOFException(
                        "range " + r + " outside object " + key + " of " + length + " bytes");
            }
        }
        Tail t = tail();
        int i = 0;
        while (i < sorted.size()) {
            ParquetFileRange first = sorted.get(i);
            if (first.getOffset() >= t.start()) {
                ByteBuffer src = t.bytes().duplicate();
                src.position((int) (first.getOffset() - t.start()));
                src.limit(src.position() + first.getLength());
                first.setDataReadFuture(CompletableFuture.completedFuture(src.slice()));
                i++;
                continue;
            }
            long start = first.getOffset();
            long end = start + first.getLength();
            int j = i + 1;
            while (j < sorted.size()) {
                ParquetFileRange next = sorted.get(j);
                long nextEnd = Math.max(end, next.getOffset() + next.getLength());
                if (next.getOffset() - end > MAX_GAP
                        || nextEnd > t.start()
                        || nextEnd - start > MAX_COALESCED) {
                    break;
                }
                end = nextEnd;
                j++;
            }
            if ((arena != null || end - start > SPLIT_ABOVE) && disjoint(sorted, i, j)) {
                fetchParts(sorted, i, j, start, arena);
            } else {
                ByteBuffer fetched = fetch(start, Math.toIntExact(end - start));
                for (int k = i; k < j; k++) {
                    ParquetFileRange r = sorted.get(k);
                    ByteBuffer part = fetched.duplicate();
                    part.position((int) (r.getOffset() - start));
                    part.limit(part.position() + r.getLength());
                    r.setDataReadFuture(CompletableFuture.completedFuture(part.slice()));
                }
            }
            i = j;
        }
    }

    /** True if ranges {@code [from, to)} of the sorted list do not overlap. */
    private static boolean disjoint(List<ParquetFileRange> sorted, int from, int to) {
        for (int k = from + 1; k < to; k++) {
            ParquetFileRange prev = sorted.get(k - 1);
            if (sorted.get(k).getOffset() < prev.getOffset() + prev.getLength()) {
                return false;
            }
        }
        return true;
    }

    /** One GET for ranges {@code [from, to)}, each range read into its own buffer. */
    private void fetchParts(
            List<ParquetFileRange> sorted, int from, int to, long start, ReadArena arena)
            throws IOException {
        int[] lengths = new int[(to - from) * 2];
        int[] slotOf = new int[to - from];
        int n = 0;
        long at = start;
        for (int k = from; k < to; k++) {
            ParquetFileRange r = sorted.get(k);
            if (r.getOffset() > at) {
                lengths[n++] = -Math.toIntExact(r.getOffset() - at);
            }
            slotOf[k - from] = n;
            lengths[n++] = r.getLength();
            at = r.getOffset() + r.getLength();
        }
        int[] exact = java.util.Arrays.copyOf(lengths, n);
        ByteBuffer[] parts =
                arena == null
                        ? store.getParts(key, start, exact)
                        : store.getParts(key, start, exact, arena::allocate);
        for (int k = from; k < to; k++) {
            ByteBuffer part = parts[slotOf[k - from]];
            if (part == null || part.remaining() != sorted.get(k).getLength()) {
                throw new ObjectCorruptException(key, "short ranged read at " + start, null);
            }
            sorted.get(k).setDataReadFuture(CompletableFuture.completedFuture(part));
        }
    }

    private static long offsetOf(IndexReference ref) {
        return ref == null ? Long.MAX_VALUE : ref.getOffset();
    }

    private ByteBuffer fetch(long position, int n) throws IOException {
        ByteBuffer b = store.get(key, position, n);
        if (b.remaining() != n) {
            throw new ObjectCorruptException(
                    key,
                    "short ranged read at "
                            + position
                            + ": wanted "
                            + n
                            + " bytes, got "
                            + b.remaining()
                            + " (object size "
                            + length
                            + ")",
                    null);
        }
        return b.slice();
    }

    /** A positioned stream; reads inside the cached tail are served locally. */
    private final class Stream extends SeekableInputStream {
        private long pos;

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) throws IOException {
            if (newPos < 0 || newPos > length) {
                throw new EOFException("seek to " + newPos + " outside object " + key);
            }
            pos = newPos;
        }

        @Override
        public boolean readVectoredAvailable(ByteBufferAllocator allocator) {
            return true;
        }

        @Override
        public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator)
                throws IOException {
            readRanges(ranges);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos >= length) {
                return -1;
            }
            int n = (int) Math.min(len, length - pos);
            readFully(b, off, n);
            return n;
        }

        @Override
        public void readFully(byte[] bytes) throws IOException {
            readFully(bytes, 0, bytes.length);
        }

        @Override
        public void readFully(byte[] bytes, int start, int len) throws IOException {
            readFully(ByteBuffer.wrap(bytes, start, len));
        }

        @Override
        public int read(ByteBuffer buf) throws IOException {
            if (!buf.hasRemaining()) {
                return 0;
            }
            if (pos >= length) {
                return -1;
            }
            int n = (int) Math.min(buf.remaining(), length - pos);
            ByteBuffer view = buf.duplicate();
            view.limit(view.position() + n);
            readFully(view);
            buf.position(buf.position() + n);
            return n;
        }

        @Override
        public void readFully(ByteBuffer buf) throws IOException {
            int n = buf.remaining();
            if (n == 0) {
                return;
            }
            if (pos + n > length) {
                throw new EOFException(
                        "read of " + n + " bytes at " + pos + " past the end of " + key);
            }
            Tail t = tail();
            ByteBuffer src;
            if (pos >= t.start()) {
                src = t.bytes().duplicate();
                src.position((int) (pos - t.start()));
                src.limit(src.position() + n);
            } else {
                src = fetch(pos, n);
            }
            buf.put(src);
            pos += n;
        }
    }
}

package io.tierlog.hot;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The aborted transactions whose abort marker lies in one segment: Kafka's {@code .txnindex}, in
 * its byte format, so that Kafka's tools read ours and ours read Kafka's. The file exists only once
 * an entry was written (absent = none, as Kafka).
 *
 * <p>File {@code <20-digit base offset>.txnindex}: a sequence of 34-byte big-endian entries, in the
 * order the markers were written (so {@code LAST_OFFSET} strictly ascends):
 *
 * <pre>
 *   VERSION            int16  0
 *   PRODUCER_ID        int64  the producer whose transaction was aborted
 *   FIRST_OFFSET       int64  offset of the transaction's first data batch in this partition
 *   LAST_OFFSET        int64  offset of the abort marker (inside this segment)
 *   LAST_STABLE_OFFSET int64  the partition's LSO once the marker was written
 * </pre>
 *
 * <p>The entries are also kept in memory (aborts are rare and small), so that {@code
 * read_committed} fetches do not read the file. Thread-safety: mutations are serialised by the
 * log's append lock (or its loader); readers see an immutable array through a volatile field.
 */
final class TxnIndex {
    static final int VERSION_OFFSET = 0;
    static final int PRODUCER_ID_OFFSET = VERSION_OFFSET + 2;
    static final int FIRST_OFFSET_OFFSET = PRODUCER_ID_OFFSET + 8;
    static final int LAST_OFFSET_OFFSET = FIRST_OFFSET_OFFSET + 8;
    static final int LAST_STABLE_OFFSET_OFFSET = LAST_OFFSET_OFFSET + 8;
    static final int ENTRY_SIZE = LAST_STABLE_OFFSET_OFFSET + 8;
    static final short VERSION = 0;

    private static final AbortedTxn[] NONE = new AbortedTxn[0];

    private volatile Path file;
    private volatile AbortedTxn[] entries = NONE;
    private boolean unflushed;

    private TxnIndex(Path file) {
        this.file = file;
    }

    /** An index with no file yet (a new segment). */
    static TxnIndex empty(Path file) {
        return new TxnIndex(file);
    }

    /**
     * Loads {@code file} if it exists.
     *
     * @throws CorruptIndexException when its length is not a multiple of 34, a version is not 0, or
     *     the marker offsets do not ascend inside {@code [baseOffset, nextOffset)}
     */
    static TxnIndex load(Path file, long baseOffset, long nextOffset) throws IOException {
        TxnIndex idx = new TxnIndex(file);
        if (!Files.exists(file)) {
            return idx;
        }
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length % ENTRY_SIZE != 0) {
            throw new CorruptIndexException(
                    "Transaction index " + file + " has length " + bytes.length);
        }
        AbortedTxn[] out = decode(ByteBuffer.wrap(bytes));
        long prev = -1;
        for (AbortedTxn a : out) {
            if (a.lastOffset() <= prev
                    || a.lastOffset() < baseOffset
                    || a.lastOffset() >= nextOffset
                    || a.firstOffset() > a.lastOffset()) {
                throw new CorruptIndexException(
                        "Transaction index " + file + " has an entry out of order: " + a);
            }
            prev = a.lastOffset();
        }
        idx.entries = out;
        return idx;
    }

    static AbortedTxn[] decode(ByteBuffer buf) {
        int n = buf.remaining() / ENTRY_SIZE;
        AbortedTxn[] out = new AbortedTxn[n];
        for (int i = 0; i < n; i++) {
            int p = buf.position() + i * ENTRY_SIZE;
            short version = buf.getShort(p + VERSION_OFFSET);
            if (version != VERSION) {
                throw new CorruptIndexException("Transaction index entry version " + version);
            }
            out[i] =
                    new AbortedTxn(
                            buf.getLong(p + PRODUCER_ID_OFFSET),
                            buf.getLong(p + FIRST_OFFSET_OFFSET),
                            buf.getLong(p + LAST_OFFSET_OFFSET),
                            buf.getLong(p + LAST_STABLE_OFFSET_OFFSET));
        }
        return out;
    }

    static ByteBuffer encode(List<AbortedTxn> list) {
        ByteBuffer buf = ByteBuffer.allocate(list.size() * ENTRY_SIZE);
        for (AbortedTxn a : list) {
            buf.putShort(VERSION)
                    .putLong(a.producerId())
                    .putLong(a.firstOffset())
                    .putLong(a.lastOffset())
                    .putLong(a.lastStableOffset());
        }
        return buf.flip();
    }

    /** Every entry, in file order. */
    List<AbortedTxn> entries() {
        return List.of(entries);
    }

    boolean isEmpty() {
        return entries.length == 0;
    }

    Path file() {
        return file;
    }

    /**
     * Appends one entry (creating the file), as Kafka's {@code TransactionIndex.append}.
     *
     * @throws IllegalArgumentException when its marker offset does not follow the last entry's
     */
    void append(AbortedTxn a) throws IOException {
        AbortedTxn[] cur = entries;
        if (cur.length > 0 && a.lastOffset() <= cur[cur.length - 1].lastOffset()) {
            throw new IllegalArgumentException(
                    "Transaction index "
                            + file
                            + ": entry "
                            + a
                            + " does not follow "
                            + cur[cur.length - 1]);
        }
        ByteBuffer buf = encode(List.of(a));
        try (FileChannel ch =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
        AbortedTxn[] next = Arrays.copyOf(cur, cur.length + 1);
        next[cur.length] = a;
        entries = next;
        unflushed = true;
    }

    /** Replaces the whole content (a rebuild after recovery, or a cleaned segment's index). */
    void rewrite(List<AbortedTxn> list) throws IOException {
        if (list.isEmpty()) {
            Files.deleteIfExists(file);
            entries = NONE;
            return;
        }
        write(file, list);
        entries = list.toArray(NONE);
        unflushed = true;
    }

    /** Writes {@code list} as a complete index file at {@code target} (tmp file, then rename). */
    static void write(Path target, List<AbortedTxn> list) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        ByteBuffer buf = encode(list);
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(
                tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Drops the entries whose marker is at or after {@code offset} (Kafka's truncateTo). */
    void truncateTo(long offset) throws IOException {
        AbortedTxn[] cur = entries;
        int keep = 0;
        while (keep < cur.length && cur[keep].lastOffset() < offset) {
            keep++;
        }
        if (keep == cur.length) {
            return;
        }
        rewrite(new ArrayList<>(Arrays.asList(cur).subList(0, keep)));
    }

    /**
     * Adds to {@code out} the entries a reader of {@code [from, upTo)} must know: marker at or
     * after {@code from} and first offset below {@code upTo} (Kafka's {@code collectAbortedTxns}).
     *
     * @return true when an entry's last stable offset reached {@code upTo}: no later segment can
     *     hold an entry that matters, so the search stops
     */
    boolean collect(long from, long upTo, List<AbortedTxn> out) {
        for (AbortedTxn a : entries) {
            if (a.lastOffset() >= from && a.firstOffset() < upTo) {
                out.add(a);
            }
            if (a.lastStableOffset() >= upTo) {
                return true;
            }
        }
        return false;
    }

    void flush() throws IOException {
        if (!unflushed) {
            return;
        }
        Path f = file;
        if (Files.exists(f)) {
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
        }
        unflushed = false;
    }

    /** Renames the file (if any) to {@code target} and keeps using that name. */
    void renameTo(Path target) throws IOException {
        Path f = file;
        if (Files.exists(f)) {
            Files.move(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
        file = target;
    }

    void deleteIfExists() throws IOException {
        Files.deleteIfExists(file);
    }
}

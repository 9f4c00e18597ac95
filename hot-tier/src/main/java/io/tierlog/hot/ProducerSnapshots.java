package io.tierlog.hot;

import io.tierlog.hot.ProducerEntry.BatchMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots of the idempotent-producer state, so that opening a log replays only the batch headers
 * after the latest snapshot instead of the whole log. Written on every roll (state as of the new
 * segment's base offset) and on close (state as of the log end); the two newest are kept. Kafka's
 * own {@code <offset>.snapshot} format keeps one batch per producer; ours keeps the five that
 * deduplication needs, so it has its own suffix ({@value #SUFFIX}), which Kafka ignores.
 *
 * <p>File {@code <20-digit offset>.producers}, big-endian:
 *
 * <pre>
 *   MAGIC          int32  0x544C5053 ("TLPS")
 *   VERSION        int16  2 (1 is still read)
 *   CRC            int32  CRC-32C of every byte after this field
 *   OFFSET         int64  the state covers every batch below this offset
 *   COUNT          int32  producers, then per producer:
 *     PRODUCER_ID    int64
 *     EPOCH          int16
 *     COORD_EPOCH    int32  coordinator epoch of its last marker, -1 none      (version 2)
 *     LAST_TIMESTAMP int64  max timestamp of its last batch or marker, -1     (version 2)
 *     TXN_FIRST      int64  first offset of its open transaction, -1 none     (version 2)
 *     BATCHES        int8   0..5, then per batch:
 *       FIRST_SEQ      int32
 *       LAST_SEQ       int32
 *       FIRST_OFFSET   int64
 *       LAST_OFFSET    int64
 *       TIMESTAMP      int64
 * </pre>
 *
 * Version 1 (before transactions) has no transaction fields: its producers have none open, and
 * their last timestamp is their last batch's. A snapshot that is torn or fails its CRC is deleted
 * and an older one (or a full replay) is used.
 *
 * <p>Stateless; callers serialise access per partition (the log's append lock or its loader).
 */
final class ProducerSnapshots {
    static final String SUFFIX = ".producers";
    private static final Logger LOG = LoggerFactory.getLogger(ProducerSnapshots.class);
    private static final int MAGIC = 0x544C5053;
    private static final short VERSION = 2;
    private static final short VERSION_1 = 1;
    private static final int HEADER = 4 + 2 + 4;
    private static final int BATCH_SIZE = 4 + 4 + 8 + 8 + 8;

    private ProducerSnapshots() {}

    /**
     * Writes the snapshot at {@code offset} (tmp file, then rename), keeping the newest two. Not
     * fsynced: a snapshot lost or torn by a crash fails its CRC or lies beyond the recovered log
     * end, and is then ignored.
     *
     * @param present the offsets of the snapshots in {@code dir} (ascending, as {@link #list}
     *     returns them), updated to what is left: the log keeps them in memory, so that a roll does
     *     not list a folder holding every segment's files to find the one to delete
     */
    static void write(Path dir, long offset, List<ProducerEntry> entries, List<Long> present)
            throws IOException {
        writeFile(dir, offset, entries);
        present.remove(Long.valueOf(offset));
        present.add(offset);
        present.sort(null);
        while (present.size() > 2) {
            Files.deleteIfExists(dir.resolve(LogSegment.fileName(present.remove(0)) + SUFFIX));
        }
    }

    /** Writes the snapshot file at {@code offset} in {@code version} (1 only for tests). */
    static void writeFile(Path dir, long offset, List<ProducerEntry> entries) throws IOException {
        writeFile(dir, offset, entries, VERSION);
    }

    static void writeFile(Path dir, long offset, List<ProducerEntry> entries, short version)
            throws IOException {
        int size = HEADER + 8 + 4;
        for (ProducerEntry e : entries) {
            size +=
                    8
                            + 2
                            + (version >= VERSION ? 4 + 8 + 8 : 0)
                            + 1
                            + e.batches().size() * BATCH_SIZE;
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putInt(MAGIC).putShort(version).putInt(0).putLong(offset).putInt(entries.size());
        for (ProducerEntry e : entries) {
            buf.putLong(e.producerId()).putShort(e.producerEpoch());
            if (version >= VERSION) {
                buf.putInt(e.coordinatorEpoch())
                        .putLong(e.lastTimestamp())
                        .putLong(e.currentTxnFirstOffset());
            }
            buf.put((byte) e.batches().size());
            for (BatchMetadata b : e.batches()) {
                buf.putInt(b.firstSequence())
                        .putInt(b.lastSequence())
                        .putLong(b.firstOffset())
                        .putLong(b.lastOffset())
                        .putLong(b.timestamp());
            }
        }
        buf.putInt(6, crc(buf, HEADER, size));
        buf.flip();
        Path file = dir.resolve(LogSegment.fileName(offset) + SUFFIX);
        Path tmp = dir.resolve(LogSegment.fileName(offset) + SUFFIX + ".tmp");
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Loads the newest valid snapshot at or below {@code maxOffset} into {@code psm}; snapshots
     * above it (the log was truncated) or corrupt are deleted.
     *
     * @return the snapshot's offset, or -1 when none was loaded (replay from the start)
     */
    static long loadLatest(Path dir, long maxOffset, ProducerStateManager psm) throws IOException {
        return loadLatest(dir, maxOffset, maxOffset, psm);
    }

    /**
     * As {@link #loadLatest(Path, long, ProducerStateManager)}, loading only a snapshot at or below
     * {@code useAtOrBelow} (those between it and {@code maxOffset} are kept): the replay must cover
     * a segment whose txn index is rebuilt.
     */
    static long loadLatest(Path dir, long maxOffset, long useAtOrBelow, ProducerStateManager psm)
            throws IOException {
        List<Long> offsets = list(dir);
        for (int i = offsets.size() - 1; i >= 0; i--) {
            long offset = offsets.get(i);
            Path file = dir.resolve(LogSegment.fileName(offset) + SUFFIX);
            if (offset > maxOffset) {
                Files.deleteIfExists(file);
                continue;
            }
            if (offset > useAtOrBelow) {
                continue;
            }
            List<ProducerEntry> entries = read(file, offset);
            if (entries == null) {
                LOG.warn("Deleting corrupt producer snapshot {}", file);
                Files.deleteIfExists(file);
                continue;
            }
            psm.load(entries);
            return offset;
        }
        return -1;
    }

    /**
     * Deletes the snapshots above {@code offset}: recovery lost the batches from there on, and a
     * snapshot taken after them would make a producer's retry of a lost batch look like a
     * duplicate.
     */
    static void deleteAbove(Path dir, long offset) throws IOException {
        for (long o : list(dir)) {
            if (o > offset) {
                Files.deleteIfExists(dir.resolve(LogSegment.fileName(o) + SUFFIX));
            }
        }
    }

    private static List<ProducerEntry> read(Path file, long expectedOffset) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
        try {
            if (buf.getInt() != MAGIC) {
                return null;
            }
            short version = buf.getShort();
            if (version != VERSION && version != VERSION_1) {
                return null;
            }
            int stored = buf.getInt();
            if (stored != crc(buf, HEADER, buf.limit()) || buf.getLong() != expectedOffset) {
                return null;
            }
            int n = buf.getInt();
            List<ProducerEntry> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long pid = buf.getLong();
                short epoch = buf.getShort();
                int coordinatorEpoch = -1;
                long lastTimestamp = -1;
                long txnFirst = -1;
                if (version >= VERSION) {
                    coordinatorEpoch = buf.getInt();
                    lastTimestamp = buf.getLong();
                    txnFirst = buf.getLong();
                }
                int batches = buf.get();
                List<BatchMetadata> list = new ArrayList<>(batches);
                for (int b = 0; b < batches; b++) {
                    list.add(
                            new BatchMetadata(
                                    buf.getInt(),
                                    buf.getInt(),
                                    buf.getLong(),
                                    buf.getLong(),
                                    buf.getLong()));
                }
                out.add(
                        version >= VERSION
                                ? new ProducerEntry(
                                        pid, epoch, list, coordinatorEpoch, lastTimestamp, txnFirst)
                                : new ProducerEntry(pid, epoch, list));
            }
            return buf.hasRemaining() ? null : out;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static int crc(ByteBuffer buf, int from, int to) {
        CRC32C c = new CRC32C();
        ByteBuffer d = buf.duplicate();
        d.limit(to).position(from);
        c.update(d);
        return (int) c.getValue();
    }

    /** Offsets of the snapshot files in {@code dir}, ascending; leftover tmp files are removed. */
    static List<Long> list(Path dir) throws IOException {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path f : ds) {
                String name = f.getFileName().toString();
                if (name.endsWith(SUFFIX + ".tmp")) {
                    Files.deleteIfExists(f);
                    continue;
                }
                Long o = LogLoader.baseOffsetOf(name, SUFFIX);
                if (o != null) {
                    out.add(o);
                }
            }
        }
        out.sort(null);
        return out;
    }
}

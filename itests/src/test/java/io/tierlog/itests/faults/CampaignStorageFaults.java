package io.tierlog.itests.faults;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;

/**
 * The campaign's faults below the server: a torn tail on a partition's segments (while the server
 * is down after a SIGKILL), a full disk (a ballast file filling the data dir's tmpfs) and a locked
 * catalog (a SQLite connection holding {@code BEGIN EXCLUSIVE}).
 *
 * <p><b>Which bytes a torn tail may destroy.</b> A power loss destroys only bytes that were not yet
 * durable, and never an acknowledged record of a log that fsyncs before acknowledging. The campaign
 * keeps its check strict (every acknowledged record readable) by tearing only:
 *
 * <ul>
 *   <li><i>active</i>: the active segment after the last batch holding an acknowledged offset
 *       (records written but never acknowledged: the in-flight tail of a crash), cut at a random
 *       byte or garbled; when there are none, a partial batch (garbage, zeros or a header whose
 *       length runs past the end) is appended, as a torn write of the next batch;
 *   <li><i>offloaded</i>: a closed segment above the checkpointed recovery point (the server itself
 *       treats those bytes as possibly not durable and rescans them) whose every offset is below
 *       the cold high watermark, so the catalog holds an intact copy: a byte garbled or the file
 *       cut in one of its batches. Acknowledged records there must still be read (from the cold
 *       tier), and the log must go on above the cold high watermark (issue 16, finding 2).
 * </ul>
 *
 * <p>Stateless helpers; not for concurrent use on the same files.
 */
final class CampaignStorageFaults {
    private static final int LOG_OVERHEAD = 12;
    private static final int LAST_OFFSET_DELTA = 23;
    private static final int HEADER = 61;

    private CampaignStorageFaults() {}

    /** One batch of a segment file: file position, size, first and last offset. */
    record Batch(long position, int size, long baseOffset, long lastOffset) {}

    /** What a tear did, and the offsets whose bytes it destroyed (empty range when none). */
    record Tear(String description, long fromOffset, long toOffset, boolean destroysOffsets) {}

    /** The batches of a segment that parse (magic 2, length inside the file), in order. */
    static List<Batch> batches(Path segment) throws IOException {
        List<Batch> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            long size = ch.size();
            long pos = 0;
            ByteBuffer head = ByteBuffer.allocate(LAST_OFFSET_DELTA + 4);
            while (pos + HEADER <= size) {
                head.clear();
                if (ch.read(head, pos) < head.capacity()) {
                    break;
                }
                long base = head.getLong(0);
                int length = head.getInt(8);
                byte magic = head.get(16);
                if (length < HEADER - LOG_OVERHEAD
                        || magic != 2
                        || pos + LOG_OVERHEAD + length > size) {
                    break;
                }
                out.add(
                        new Batch(
                                pos,
                                LOG_OVERHEAD + length,
                                base,
                                base + head.getInt(LAST_OFFSET_DELTA)));
                pos += LOG_OVERHEAD + length;
            }
        }
        return out;
    }

    /** The {@code .log} files of a partition folder, by base offset. */
    static List<Path> segments(Path partitionDir) throws IOException {
        try (Stream<Path> s = Files.list(partitionDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
    }

    /** Tears the active segment of {@code partitionDir} above {@code highestAcked} (see above). */
    static Tear tearActive(Path partitionDir, long highestAcked, Random random) throws IOException {
        List<Path> segs = segments(partitionDir);
        if (segs.isEmpty()) {
            return new Tear("no segment", 0, -1, false);
        }
        Path active = segs.get(segs.size() - 1);
        List<Batch> batches = batches(active);
        Batch firstUnacked = null;
        for (Batch b : batches) {
            if (b.baseOffset() > highestAcked) {
                firstUnacked = b;
                break;
            }
        }
        long end =
                batches.isEmpty()
                        ? 0
                        : batches.get(batches.size() - 1).position()
                                + batches.get(batches.size() - 1).size();
        if (firstUnacked != null) {
            Batch last = batches.get(batches.size() - 1);
            long cut = firstUnacked.position() + random.nextLong(end - firstUnacked.position());
            if (random.nextBoolean()) {
                try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE)) {
                    ch.truncate(cut);
                }
                return new Tear(
                        "cut " + active.getFileName() + " at byte " + cut + " of " + end,
                        firstUnacked.baseOffset(),
                        last.lastOffset(),
                        true);
            }
            garble(active, cut, (int) Math.min(64, end - cut), random);
            return new Tear(
                    "garbled " + active.getFileName() + " from byte " + cut + " of " + end,
                    firstUnacked.baseOffset(),
                    last.lastOffset(),
                    true);
        }
        long next = batches.isEmpty() ? -1 : batches.get(batches.size() - 1).lastOffset() + 1;
        byte[] tail = new byte[1 + random.nextInt(200)];
        String kind;
        switch (random.nextInt(3)) {
            case 0 -> {
                random.nextBytes(tail);
                kind = "random bytes";
            }
            case 1 -> kind = "zeros";
            default -> {
                tail = new byte[Math.max(tail.length, HEADER)];
                ByteBuffer b = ByteBuffer.wrap(tail);
                b.putLong(0, next).putInt(8, 4096 + tail.length).put(16, (byte) 2);
                kind = "a partial batch header (length past the end)";
            }
        }
        try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE)) {
            ch.truncate(end); // drops anything past the last whole batch first
            ch.write(ByteBuffer.wrap(tail), end);
        }
        return new Tear(
                "appended " + tail.length + " bytes of " + kind + " to " + active.getFileName(),
                0,
                -1,
                false);
    }

    /**
     * Tears a closed segment of {@code topic}-{@code partition} entirely below {@code
     * coldHighWatermark}; empty when the partition has none. When the segment is below the
     * checkpointed recovery point, the checkpoint's entry is first set back to the segment's base
     * offset: the state of a crash after the segment was offloaded (the compactor reads the page
     * cache) but before the background fsync after its roll and the next checkpoint write, the
     * window in which a power loss can tear it.
     */
    static Optional<Tear> tearOffloaded(
            Path logDir, String topic, int partition, long coldHighWatermark, Random random)
            throws IOException {
        Path partitionDir = logDir.resolve(topic + "-" + partition);
        List<Path> segs = segments(partitionDir);
        List<Path> candidates = new ArrayList<>();
        for (int i = 0; i + 1 < segs.size(); i++) {
            long nextBase = baseOffset(segs.get(i + 1));
            if (nextBase <= coldHighWatermark) {
                candidates.add(segs.get(i));
            }
        }
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        Path seg = candidates.get(random.nextInt(candidates.size()));
        List<Batch> batches = batches(seg);
        if (batches.isEmpty()) {
            return Optional.empty();
        }
        String rolledBack = "";
        long rp = recoveryPoint(logDir, topic, partition);
        if (baseOffset(seg) < rp) {
            setRecoveryPoint(logDir, topic, partition, baseOffset(seg));
            rolledBack = ", recovery point " + rp + " -> " + baseOffset(seg);
        }
        Batch victim = batches.get(batches.size() / 2 + random.nextInt((batches.size() + 1) / 2));
        Batch last = batches.get(batches.size() - 1);
        long at = victim.position() + HEADER + random.nextInt(Math.max(1, victim.size() - HEADER));
        if (random.nextBoolean()) {
            try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
                ch.truncate(at);
            }
            return Optional.of(
                    new Tear(
                            "cut offloaded "
                                    + seg.getFileName()
                                    + " at byte "
                                    + at
                                    + " (cold high watermark "
                                    + coldHighWatermark
                                    + rolledBack
                                    + ")",
                            victim.baseOffset(),
                            last.lastOffset(),
                            true));
        }
        garble(seg, Math.min(at, victim.position() + victim.size() - 1), 1, random);
        return Optional.of(
                new Tear(
                        "garbled offloaded "
                                + seg.getFileName()
                                + " at byte "
                                + at
                                + " (cold high watermark "
                                + coldHighWatermark
                                + rolledBack
                                + ")",
                        victim.baseOffset(),
                        victim.lastOffset(),
                        true));
    }

    private static void garble(Path file, long from, int n, Random random) throws IOException {
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(Math.max(1, n));
            ch.read(b, from);
            b.flip();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] ^= (byte) (1 + random.nextInt(255)); // every byte changes
            }
            ch.write(ByteBuffer.wrap(bytes), from);
        }
    }

    private static long baseOffset(Path segment) {
        return Long.parseLong(segment.getFileName().toString().replace(".log", ""));
    }

    /**
     * Rewrites the recovery-point checkpoint (Kafka's text format: version, count, one {@code topic
     * partition offset} line each) with this partition's entry set to {@code offset}.
     */
    static void setRecoveryPoint(Path logDir, String topic, int partition, long offset)
            throws IOException {
        Path f = logDir.resolve("recovery-point-offset-checkpoint");
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        for (int i = 2; i < lines.size(); i++) {
            String[] parts = lines.get(i).trim().split(" ");
            if (parts.length == 3
                    && parts[0].equals(topic)
                    && parts[1].equals(Integer.toString(partition))) {
                lines.set(i, topic + " " + partition + " " + offset);
            }
        }
        Files.write(f, lines);
    }

    /** The checkpointed recovery point of a partition (0 when the checkpoint lacks it). */
    static long recoveryPoint(Path logDir, String topic, int partition) throws IOException {
        Path f = logDir.resolve("recovery-point-offset-checkpoint");
        if (!Files.exists(f)) {
            return 0;
        }
        for (String line : Files.readAllLines(f)) {
            String[] parts = line.trim().split(" ");
            if (parts.length == 3
                    && parts[0].equals(topic)
                    && parts[1].equals(Integer.toString(partition))) {
                return Long.parseLong(parts[2]);
            }
        }
        return 0;
    }

    /** The catalog's cold high watermark of a partition, read-only; empty when unknown. */
    static Optional<Long> coldHighWatermark(Path catalogDb, String topic, int partition) {
        if (!Files.exists(catalogDb)) {
            return Optional.empty();
        }
        Properties props = new Properties();
        props.setProperty("open_mode", "1"); // SQLITE_OPEN_READONLY: never create or change a file
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + catalogDb, props);
                PreparedStatement s =
                        c.prepareStatement(
                                "SELECT p.cold_hw FROM partitions p JOIN topics t ON p.topic_id = t.id"
                                        + " WHERE t.name = ? AND p.partition_id = ?")) {
            s.setString(1, topic);
            s.setInt(2, partition);
            try (ResultSet r = s.executeQuery()) {
                if (r.next()) {
                    long hw = r.getLong(1);
                    return r.wasNull() ? Optional.of(0L) : Optional.of(hw);
                }
            }
        } catch (SQLException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * Fills the file system of {@code dir} with a ballast file until a write fails for lack of
     * space; returns the ballast (delete it to free the space) and how many bytes it took.
     */
    static long fillDisk(Path ballast) throws IOException {
        long written = 0;
        byte[] mib = new byte[1 << 20];
        byte[] page = new byte[4096];
        try (OutputStream out = Files.newOutputStream(ballast)) {
            try {
                while (true) {
                    out.write(mib);
                    out.flush();
                    written += mib.length;
                }
            } catch (IOException full) {
                // now the last pages
            }
            try {
                while (true) {
                    out.write(page);
                    out.flush();
                    written += page.length;
                }
            } catch (IOException full) {
                // full
            }
        } catch (IOException closingAFullFile) {
            // the buffered rest could not be written: still full
        }
        return written;
    }

    /**
     * Takes SQLite's exclusive write lock on the catalog (readers go on in WAL mode; every writer,
     * so every offload commit, waits or fails busy) until the returned connection is closed.
     */
    static Connection lockCatalog(Path catalogDb) throws SQLException {
        Properties props = new Properties();
        props.setProperty("open_mode", "2"); // SQLITE_OPEN_READWRITE without CREATE
        props.setProperty("busy_timeout", "5000");
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + catalogDb, props);
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN EXCLUSIVE");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** Rolls back and closes a connection from {@link #lockCatalog}. */
    static void unlockCatalog(Connection c) throws SQLException {
        try (c;
                Statement s = c.createStatement()) {
            s.execute("ROLLBACK");
        }
    }
}

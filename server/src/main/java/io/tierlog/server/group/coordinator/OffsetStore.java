package io.tierlog.server.group.coordinator;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed consumer-group offsets, kept in memory and persisted under {@code
 * <data.dir>/meta/groups/} as an append-only journal plus snapshots ({@link OffsetJournal}; byte
 * format in docs/formats.md, "Group offsets").
 *
 * <p>Transactions: offsets of a TxnOffsetCommit are pending ({@link #txnCommit}), not visible as
 * committed, until the transaction's marker ({@link #endTxn}) commits them (each one unless a later
 * change committed its partition: {@link OffsetState}) or aborts them; pending offsets are
 * journaled and stay pending across a restart.
 *
 * <p>Durability: a commit, offset deletion or group deletion returns once its record is in the page
 * cache ({@link Durability#PAGE_CACHE}, the default, like Kafka's {@code __consumer_offsets}:
 * survives kill -9 of the server, not a power loss) or fsynced ({@link Durability#FSYNC}).
 * Concurrent callers share one write and one fsync (group commit). A multi-partition commit is one
 * record: after a crash it is there whole or not at all.
 *
 * <p>Recovery at open: the newest readable snapshot, then every journal from its generation on, in
 * order; a journal's torn or damaged tail (a write that was cut, hence never acknowledged in
 * page_cache mode by a kill, nor in fsync mode by a power loss) ends its replay with a WARN. An
 * unreadable snapshot is moved aside to {@code <name>.corrupt-<millis>} with an ERROR and the one
 * before it is used (its journals replayed); the server always starts. Then a new generation is
 * written from what was recovered.
 *
 * <p>Upgrade: a data directory written before the journal has one {@code <hex of the group
 * id>.properties} (or {@code g-<SHA-256 hex>.properties}) per group; when no snapshot is readable
 * those are loaded (an unreadable one is moved aside with an ERROR), written into the first
 * snapshot, and deleted only once that snapshot is durable. Left over next to a readable snapshot,
 * they are remains of a finished upgrade and are deleted unread.
 *
 * <p>Thread-safe. Changes are serialised by the journal's lock and may block on disk (call them
 * from the blocking executor); reads are lock-free and may already see a change whose caller has
 * not returned yet.
 */
public final class OffsetStore implements Closeable {
    /** One committed offset. */
    public record Committed(long offset, int leaderEpoch, String metadata) {}

    /** When a change is acknowledged. */
    public enum Durability {
        /** Once written to the page cache (survives a kill of the process). */
        PAGE_CACHE,
        /** Once fsynced (survives a power loss). */
        FSYNC
    }

    /** Journal size past which the next batch writes a snapshot and starts a new journal. */
    static final long DEFAULT_SNAPSHOT_BYTES = 64L << 20;

    private static final Logger LOG = LoggerFactory.getLogger(OffsetStore.class);
    private static final String SUFFIX = ".properties";
    private static final String GROUP_KEY = "group.id";
    private static final int MAX_FILE_NAME_BYTES = 255;

    private final OffsetState groups;
    private final OffsetJournal journal;

    private OffsetStore(
            OffsetState groups,
            OffsetFiles files,
            Path dir,
            Durability durability,
            long snapshotBytes) {
        this.groups = groups;
        this.journal =
                new OffsetJournal(
                        files,
                        dir,
                        durability == Durability.FSYNC,
                        snapshotBytes,
                        () -> OffsetRecords.snapshot(groups));
    }

    /** Opens (recovers) the offsets of {@code metaDir/groups}, acknowledged in the page cache. */
    static OffsetStore open(Path metaDir) throws IOException {
        return open(metaDir, Durability.PAGE_CACHE);
    }

    /** Opens (recovers) the offsets of {@code metaDir/groups}. */
    public static OffsetStore open(Path metaDir, Durability durability) throws IOException {
        return open(metaDir, durability, DEFAULT_SNAPSHOT_BYTES, OffsetFiles.REAL);
    }

    static OffsetStore open(
            Path metaDir, Durability durability, long snapshotBytes, OffsetFiles files)
            throws IOException {
        Path dir = metaDir.resolve("groups");
        Files.createDirectories(dir);
        TreeMap<Long, Path> snapshots = new TreeMap<>();
        TreeMap<Long, Path> journals = new TreeMap<>();
        List<Path> legacy = new ArrayList<>();
        long maxGen = 0;
        for (Path p : files.list(dir)) {
            String n = p.getFileName().toString();
            OptionalLong s = OffsetJournal.snapshotGeneration(n);
            OptionalLong j = OffsetJournal.journalGeneration(n);
            if (n.endsWith(".tmp")) {
                files.deleteIfExists(p); // a snapshot (or old group file) cut before its rename
            } else if (s.isPresent()) {
                snapshots.put(s.getAsLong(), p);
                maxGen = Math.max(maxGen, s.getAsLong());
            } else if (j.isPresent()) {
                journals.put(j.getAsLong(), p);
                maxGen = Math.max(maxGen, j.getAsLong());
            } else if (n.endsWith(SUFFIX)) {
                legacy.add(p);
            }
        }
        OffsetState state = new OffsetState();
        long base = -1;
        for (Map.Entry<Long, Path> s : snapshots.descendingMap().entrySet()) {
            OffsetState read = readSnapshot(files, s.getValue());
            if (read != null) {
                state = read;
                base = s.getKey();
                break;
            }
            moveAside(files, s.getValue(), "snapshot of committed group offsets", "an older one");
        }
        if (base < 0) {
            if (!snapshots.isEmpty() || !journals.isEmpty()) {
                LOG.error(
                        "No readable snapshot of committed group offsets in {}: recovering from"
                                + " the old per-group files and journals left; offsets committed"
                                + " before them are lost",
                        dir);
            }
            for (Path f : legacy) {
                loadLegacy(files, f, state);
            }
        }
        for (Map.Entry<Long, Path> j : journals.tailMap(Math.max(base, 0), true).entrySet()) {
            replayJournal(files, j.getValue(), state);
        }
        OffsetStore store = new OffsetStore(state, files, dir, durability, snapshotBytes);
        store.journal.start(
                maxGen + 1, OffsetRecords.snapshot(state), base < 0 ? maxGen + 1 : base);
        // the old per-group files are in the durable snapshot now
        for (Path f : legacy) {
            files.deleteIfExists(f);
        }
        if (!legacy.isEmpty()) {
            files.fsyncDir(dir);
            LOG.info(
                    "Moved the committed offsets of {} per-group files into {}",
                    legacy.size(),
                    OffsetJournal.snapshotName(maxGen + 1));
        }
        return store;
    }

    /** The offsets of a snapshot file, or null (with an ERROR) if it is unreadable. */
    private static OffsetState readSnapshot(OffsetFiles files, Path f) {
        try {
            byte[] b = files.read(f);
            int m = OffsetRecords.SNAPSHOT_MAGIC.length;
            if (b.length < m || !Arrays.equals(b, 0, m, OffsetRecords.SNAPSHOT_MAGIC, 0, m)) {
                LOG.error("{} is not a snapshot of committed group offsets (bad magic)", f);
                return null;
            }
            OffsetState state = new OffsetState();
            ByteBuffer buf = ByteBuffer.wrap(b);
            buf.position(m);
            OffsetRecords.Replayed r = OffsetRecords.replay(buf, state);
            if (!r.ended() || m + r.bytes() != b.length) {
                LOG.error(
                        "Snapshot of committed group offsets {} is damaged at byte {} of {}",
                        f,
                        m + r.bytes(),
                        b.length);
                return null;
            }
            return state;
        } catch (IOException e) {
            LOG.error("Cannot read snapshot of committed group offsets {}: {}", f, e.toString());
            return null;
        }
    }

    private static void replayJournal(OffsetFiles files, Path f, OffsetState state)
            throws IOException {
        byte[] b = files.read(f);
        int m = OffsetRecords.JOURNAL_MAGIC.length;
        if (b.length < m || !Arrays.equals(b, 0, m, OffsetRecords.JOURNAL_MAGIC, 0, m)) {
            if (b.length > 0) {
                LOG.warn("Offset journal {} has no valid header ({} bytes): ignored", f, b.length);
            }
            return;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        buf.position(m);
        OffsetRecords.Replayed r = OffsetRecords.replay(buf, state);
        long valid = m + (long) r.bytes();
        if (valid != b.length) {
            LOG.warn(
                    "Offset journal {} ends in a torn or damaged record: discarded its last {}"
                            + " bytes from byte {} (a write cut by the crash, never acknowledged)",
                    f,
                    b.length - valid,
                    valid);
        }
    }

    private static void loadLegacy(OffsetFiles files, Path f, OffsetState state)
            throws IOException {
        try {
            Properties p = new Properties();
            p.load(
                    new InputStreamReader(
                            new ByteArrayInputStream(files.read(f)), StandardCharsets.ISO_8859_1));
            String group = p.getProperty(GROUP_KEY);
            if (group == null) {
                String fn = f.getFileName().toString();
                group =
                        new String(
                                HexFormat.of()
                                        .parseHex(fn.substring(0, fn.length() - SUFFIX.length())),
                                StandardCharsets.UTF_8);
            }
            Map<TopicPartition, Committed> m = new ConcurrentHashMap<>();
            for (String k : p.stringPropertyNames()) {
                if (k.equals(GROUP_KEY)) {
                    continue;
                }
                int dot = k.indexOf('.');
                String[] v = p.getProperty(k).split(",", 3);
                m.put(
                        new TopicPartition(
                                k.substring(dot + 1), Integer.parseInt(k.substring(0, dot))),
                        new Committed(Long.parseLong(v[0]), Integer.parseInt(v[1]), v[2]));
            }
            if (!m.isEmpty()) {
                state.commit(group, m);
            }
        } catch (IOException | RuntimeException e) {
            moveAside(
                    files, f, "committed group offsets", "that group's committed offsets are lost");
        }
    }

    private static void moveAside(OffsetFiles files, Path f, String what, String consequence)
            throws IOException {
        Path aside = f.resolveSibling(f.getFileName() + ".corrupt-" + System.currentTimeMillis());
        LOG.error(
                "Cannot read {} {}: moved aside to {}; using {}",
                what,
                f,
                aside.getFileName(),
                consequence);
        files.move(f, aside);
    }

    /** The file a group had before the journal: hex of its id, or a hash when too long. */
    static String fileName(String group) {
        String hex = HexFormat.of().formatHex(group.getBytes(StandardCharsets.UTF_8));
        if (hex.length() + SUFFIX.length() + ".tmp".length() <= MAX_FILE_NAME_BYTES) {
            return hex + SUFFIX;
        }
        try {
            byte[] h =
                    MessageDigest.getInstance("SHA-256")
                            .digest(group.getBytes(StandardCharsets.UTF_8));
            return "g-" + HexFormat.of().formatHex(h) + SUFFIX;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }

    Optional<Committed> committed(String group, TopicPartition tp) {
        return groups.committed(group, tp);
    }

    Map<TopicPartition, Committed> all(String group) {
        return groups.all(group);
    }

    /** Ids of every group with committed offsets or offsets pending in a transaction. */
    Set<String> groupIds() {
        return groups.groupIds();
    }

    /** Whether an open transaction has offsets of {@code tp} pending in {@code group}. */
    boolean hasPendingTxnOffsets(String group, TopicPartition tp) {
        return groups.hasPending(group, tp);
    }

    /** Commits {@code offsets} of {@code group} durably (all or none after a crash). */
    void commit(String group, Map<TopicPartition, Committed> offsets) throws IOException {
        if (offsets.isEmpty()) {
            return;
        }
        byte[] record = OffsetRecords.commit(group, offsets);
        journal.append(
                () -> {
                    groups.commit(group, offsets);
                    return record;
                });
    }

    /**
     * Records {@code offsets} of {@code group} as pending in {@code producerId}'s transaction,
     * durably (all or none after a crash); false, with nothing changed, if offsets of that producer
     * are already pending at a higher epoch (a fenced producer).
     */
    boolean txnCommit(
            String group, long producerId, short epoch, Map<TopicPartition, Committed> offsets)
            throws IOException {
        byte[] record = OffsetRecords.pending(group, producerId, epoch, offsets);
        boolean[] accepted = new boolean[1];
        journal.append(
                () -> {
                    accepted[0] = groups.acceptsEpoch(group, producerId, epoch);
                    if (!accepted[0] || offsets.isEmpty()) {
                        return null;
                    }
                    groups.addPending(group, producerId, epoch, offsets);
                    return record;
                });
        return accepted[0];
    }

    /** The outcome of a transaction in {@code group}. */
    enum TxnEnd {
        /** The outcome is durable (nothing was pending, or it was applied). */
        DONE,
        /** Offsets of that producer are pending at a higher epoch than the marker's. */
        FENCED
    }

    /**
     * Applies (commit) or drops (abort) {@code producerId}'s pending offsets in {@code group} and
     * journals that outcome. The record is written even when nothing is pending: a retry after a
     * failed write then persists what memory already holds.
     */
    TxnEnd endTxn(String group, long producerId, short markerEpoch, boolean commit)
            throws IOException {
        byte[] record = OffsetRecords.txnEnd(group, producerId, commit);
        TxnEnd[] out = {TxnEnd.DONE};
        int[] applied = new int[1];
        journal.append(
                () -> {
                    Optional<Short> pendingEpoch = groups.pendingEpoch(group, producerId);
                    if (pendingEpoch.isPresent() && pendingEpoch.get() > markerEpoch) {
                        out[0] = TxnEnd.FENCED;
                        return null;
                    }
                    applied[0] = groups.endTxn(group, producerId, commit);
                    return record;
                });
        if (out[0] == TxnEnd.DONE && applied[0] > 0) {
            LOG.debug(
                    "Group {}: transaction of producer {} committed {} offsets",
                    group,
                    producerId,
                    applied[0]);
        }
        return out[0];
    }

    /**
     * Removes the committed and pending offsets of {@code partitions} (those without one are
     * ignored); a group left without offsets is gone. Idempotent.
     */
    void delete(String group, Collection<TopicPartition> partitions) throws IOException {
        byte[] record = OffsetRecords.delete(group, List.copyOf(partitions));
        journal.append(() -> groups.delete(group, partitions) ? record : null);
    }

    /**
     * Removes every committed and pending offset of {@code group}; true if it had any. Idempotent.
     */
    boolean deleteGroup(String group) throws IOException {
        byte[] record = OffsetRecords.deleteGroup(group);
        boolean[] had = new boolean[1];
        journal.append(
                () -> {
                    had[0] = groups.deleteGroup(group);
                    return had[0] ? record : null;
                });
        return had[0];
    }

    /** The in-memory state, for tests of recovery. */
    OffsetState state() {
        return groups;
    }

    /** The journal, for tests of group commit. */
    OffsetJournal journal() {
        return journal;
    }

    /** Fsyncs and closes the journal; later changes fail. Idempotent. */
    @Override
    public void close() throws IOException {
        journal.close();
    }
}

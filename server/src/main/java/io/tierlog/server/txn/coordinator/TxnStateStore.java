package io.tierlog.server.txn.coordinator;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator's durable state in {@code <meta>/transactions} (format: {@link
 * TxnRecords}, docs/formats.md "Transaction state"): the latest record of every transactional id.
 *
 * <p>Generations, as the group offsets journal: snapshot {@code txn-<n>.snapshot} holds every id's
 * record and the coordinator epoch as of the start of journal {@code txn-<n>.journal}, which holds
 * the records after it (it starts with a header frame repeating the epoch). Every open writes a new
 * generation with the coordinator epoch one higher; a journal past {@code snapshotBytes} makes the
 * next batch write a snapshot instead, after which generation {@code n-1} is deleted (generation
 * {@code n} stays as the fallback).
 *
 * <p>Recovery: the newest readable snapshot, then every journal from its generation on; a journal's
 * torn or damaged tail (a write cut by a crash, never acknowledged) ends its replay with a WARN; an
 * unreadable snapshot is moved aside to {@code <name>.corrupt-<millis>} with an ERROR and the one
 * before it is used.
 *
 * <p>Writes: group commit. A caller queues its record under the lock (with the record remembered as
 * its id's latest, which the next snapshot takes); the first caller finding no write in progress
 * writes every queued record with one {@code write} (and one fsync in fsync mode) outside the lock;
 * a failed write undoes its records' place in the snapshot map and marks the journal broken, so the
 * next batch starts a new generation (the old journal may end in a torn record).
 *
 * <p>Thread-safe. {@link #write} and {@link #remove} block: callers run on the I/O executor.
 */
final class TxnStateStore implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TxnStateStore.class);
    static final String DIR = "transactions";
    private static final String PREFIX = "txn-";
    private static final String SNAPSHOT_SUFFIX = ".snapshot";
    private static final String JOURNAL_SUFFIX = ".journal";

    private static final class Ticket {
        final byte[] record;
        final Runnable undo;
        boolean done;
        IOException error;

        Ticket(byte[] record, Runnable undo) {
            this.record = record;
            this.undo = undo;
        }
    }

    private final TxnFiles files;
    private final Path dir;
    private final boolean fsync;
    private final long snapshotBytes;
    private final int coordinatorEpoch;
    private final Map<String, TxnTransit> loaded;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition written = lock.newCondition();

    // guarded by lock
    private final Map<String, TxnTransit> latest;
    private List<Ticket> queue = new ArrayList<>();
    private boolean writing;
    private boolean broken;
    private boolean closed;
    private long generation;
    private TxnFiles.Appender journal;
    private long journalBytes;

    private TxnStateStore(
            TxnFiles files,
            Path dir,
            boolean fsync,
            long snapshotBytes,
            int coordinatorEpoch,
            Map<String, TxnTransit> loaded) {
        this.files = files;
        this.dir = dir;
        this.fsync = fsync;
        this.snapshotBytes = snapshotBytes;
        this.coordinatorEpoch = coordinatorEpoch;
        this.loaded = Map.copyOf(loaded);
        this.latest = new HashMap<>(loaded);
    }

    static String snapshotName(long generation) {
        return String.format("%s%019d%s", PREFIX, generation, SNAPSHOT_SUFFIX);
    }

    static String journalName(long generation) {
        return String.format("%s%019d%s", PREFIX, generation, JOURNAL_SUFFIX);
    }

    private static OptionalLong generation(String name, String suffix) {
        if (!name.startsWith(PREFIX) || !name.endsWith(suffix)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(
                    Long.parseLong(
                            name.substring(PREFIX.length(), name.length() - suffix.length())));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Recovers {@code metaDir/transactions} and starts a new generation, one epoch higher. */
    static TxnStateStore open(Path metaDir, boolean fsync, long snapshotBytes, TxnFiles files)
            throws IOException {
        Path dir = metaDir.resolve(DIR);
        Files.createDirectories(dir);
        TreeMap<Long, Path> snapshots = new TreeMap<>();
        TreeMap<Long, Path> journals = new TreeMap<>();
        long maxGen = 0;
        for (Path p : files.list(dir)) {
            String n = p.getFileName().toString();
            OptionalLong s = generation(n, SNAPSHOT_SUFFIX);
            OptionalLong j = generation(n, JOURNAL_SUFFIX);
            if (n.endsWith(".tmp")) {
                files.deleteIfExists(p); // a snapshot cut before its rename
            } else if (s.isPresent()) {
                snapshots.put(s.getAsLong(), p);
                maxGen = Math.max(maxGen, s.getAsLong());
            } else if (j.isPresent()) {
                journals.put(j.getAsLong(), p);
                maxGen = Math.max(maxGen, j.getAsLong());
            }
        }
        TxnRecords.Replay state = null;
        long base = -1;
        for (Map.Entry<Long, Path> s : snapshots.descendingMap().entrySet()) {
            state = readSnapshot(files, s.getValue());
            if (state != null) {
                base = s.getKey();
                break;
            }
            Path aside =
                    s.getValue()
                            .resolveSibling(
                                    s.getValue().getFileName()
                                            + ".corrupt-"
                                            + System.currentTimeMillis());
            LOG.error(
                    "Cannot read transaction state snapshot {}: moved aside to {}; using an older"
                            + " one",
                    s.getValue(),
                    aside.getFileName());
            files.move(s.getValue(), aside);
        }
        if (state == null) {
            state = new TxnRecords.Replay();
            if (!snapshots.isEmpty()) {
                LOG.error(
                        "No readable transaction state snapshot in {}: recovering from the"
                                + " journals left; transactions recorded before them are lost",
                        dir);
            }
        }
        int epoch = state.coordinatorEpoch;
        for (Map.Entry<Long, Path> j : journals.tailMap(Math.max(base, 0), true).entrySet()) {
            replayJournal(files, j.getValue(), state);
            epoch = Math.max(epoch, state.coordinatorEpoch);
        }
        int next = epoch == Integer.MAX_VALUE ? 0 : epoch + 1;
        TxnStateStore store =
                new TxnStateStore(files, dir, fsync, snapshotBytes, next, state.states);
        store.lock.lock();
        try {
            store.switchTo(maxGen + 1, base < 0 ? maxGen + 1 : base);
        } finally {
            store.lock.unlock();
        }
        return store;
    }

    private static TxnRecords.Replay readSnapshot(TxnFiles files, Path f) {
        try {
            byte[] b = files.read(f);
            int m = TxnRecords.SNAPSHOT_MAGIC.length;
            if (b.length < m || !Arrays.equals(b, 0, m, TxnRecords.SNAPSHOT_MAGIC, 0, m)) {
                LOG.error("{} is not a transaction state snapshot (bad magic)", f);
                return null;
            }
            TxnRecords.Replay r = new TxnRecords.Replay();
            ByteBuffer buf = ByteBuffer.wrap(b);
            buf.position(m);
            TxnRecords.replay(buf, r);
            if (!r.ended || m + r.validBytes != b.length || r.coordinatorEpoch < 0) {
                LOG.error(
                        "Transaction state snapshot {} is damaged at byte {} of {}",
                        f,
                        m + r.validBytes,
                        b.length);
                return null;
            }
            r.ended = false;
            return r;
        } catch (IOException e) {
            LOG.error("Cannot read transaction state snapshot {}: {}", f, e.toString());
            return null;
        }
    }

    private static void replayJournal(TxnFiles files, Path f, TxnRecords.Replay state)
            throws IOException {
        byte[] b = files.read(f);
        int m = TxnRecords.JOURNAL_MAGIC.length;
        if (b.length < m || !Arrays.equals(b, 0, m, TxnRecords.JOURNAL_MAGIC, 0, m)) {
            if (b.length > 0) {
                LOG.warn(
                        "Transaction state journal {} has no valid header ({} bytes): ignored",
                        f,
                        b.length);
            }
            return;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        buf.position(m);
        state.validBytes = 0;
        TxnRecords.replay(buf, state);
        long valid = m + (long) state.validBytes;
        if (valid != b.length) {
            LOG.warn(
                    "Transaction state journal {} ends in a torn or damaged record: discarded its"
                            + " last {} bytes from byte {} (a write cut by a crash, never"
                            + " acknowledged)",
                    f,
                    b.length - valid,
                    valid);
        }
        state.ended = false;
    }

    /** The coordinator epoch of this run (one more than the last run's). */
    int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    /** Every transactional id's record as recovered at open. */
    Map<String, TxnTransit> loaded() {
        return loaded;
    }

    /** Journals {@code t} as its id's latest record; returns once durable (see class comment). */
    void write(TxnTransit t) throws IOException {
        byte[] record = TxnRecords.state(t);
        append(record, t.transactionalId(), t);
    }

    /** Journals that {@code txnId} is gone (expired). */
    void remove(String txnId) throws IOException {
        append(TxnRecords.tombstone(txnId), txnId, null);
    }

    private void append(byte[] record, String txnId, TxnTransit t) throws IOException {
        lock.lock();
        try {
            if (closed) {
                throw new IOException("the transaction state journal is closed");
            }
            TxnTransit before = t == null ? latest.remove(txnId) : latest.put(txnId, t);
            Ticket ticket =
                    new Ticket(
                            record,
                            () -> {
                                if (before == null) {
                                    latest.remove(txnId);
                                } else {
                                    latest.put(txnId, before);
                                }
                            });
            queue.add(ticket);
            while (!ticket.done) {
                if (writing) {
                    written.awaitUninterruptibly();
                } else {
                    lead();
                }
            }
            if (ticket.error != null) {
                throw new IOException(ticket.error.getMessage(), ticket.error);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Writes the queued batch; called with the lock held, releases it while writing. */
    private void lead() {
        List<Ticket> batch = queue;
        queue = new ArrayList<>();
        boolean snapshot = broken || journalBytes >= snapshotBytes;
        byte[] snap = snapshot ? TxnRecords.snapshot(coordinatorEpoch, latest.values()) : null;
        long gen = generation;
        writing = true;
        IOException error = null;
        lock.unlock();
        try {
            if (snap != null) {
                switchFiles(gen + 1, snap, gen);
            } else {
                int size = 0;
                for (Ticket t : batch) {
                    size += t.record.length;
                }
                ByteBuffer b = ByteBuffer.allocate(size);
                for (Ticket t : batch) {
                    b.put(t.record);
                }
                b.flip();
                journal.write(b);
                journalBytes += size;
                if (fsync) {
                    journal.force();
                }
            }
        } catch (IOException | RuntimeException e) {
            error = e instanceof IOException io ? io : new IOException(e);
            broken = true;
            LOG.error(
                    "Cannot persist transaction state in {} ({}); the next change starts a new"
                            + " snapshot",
                    dir,
                    e.toString());
        } finally {
            lock.lock();
        }
        writing = false;
        if (error != null) {
            for (int i = batch.size() - 1; i >= 0; i--) {
                batch.get(i).undo.run();
            }
        }
        for (Ticket t : batch) {
            t.done = true;
            t.error = error;
        }
        written.signalAll();
    }

    /** At open: the first generation of this run, from the recovered state. */
    private void switchTo(long gen, long keepFrom) throws IOException {
        switchFiles(gen, TxnRecords.snapshot(coordinatorEpoch, latest.values()), keepFrom);
    }

    private void switchFiles(long gen, byte[] snapshot, long keepFrom) throws IOException {
        files.writeAtomically(dir.resolve(snapshotName(gen)), snapshot);
        // From here on generation gen is the one recovery reads.
        TxnFiles.Appender old = journal;
        journal = null;
        generation = gen;
        broken = true; // until the new journal exists
        if (old != null) {
            try {
                old.close();
            } catch (IOException e) {
                LOG.warn("Cannot close the old transaction journal in {}: {}", dir, e.toString());
            }
        }
        TxnFiles.Appender next = files.create(dir.resolve(journalName(gen)));
        byte[] head = TxnRecords.header(coordinatorEpoch);
        try {
            ByteBuffer b = ByteBuffer.allocate(TxnRecords.JOURNAL_MAGIC.length + head.length);
            b.put(TxnRecords.JOURNAL_MAGIC).put(head).flip();
            next.write(b);
            files.fsyncDir(dir);
        } catch (IOException e) {
            next.close();
            throw e;
        }
        journal = next;
        journalBytes = TxnRecords.JOURNAL_MAGIC.length + head.length;
        broken = false;
        for (Path p : files.list(dir)) {
            String n = p.getFileName().toString();
            OptionalLong s = generation(n, SNAPSHOT_SUFFIX);
            OptionalLong j = generation(n, JOURNAL_SUFFIX);
            if ((s.isPresent() && s.getAsLong() < keepFrom)
                    || (j.isPresent() && j.getAsLong() < keepFrom)) {
                files.deleteIfExists(p);
            }
        }
    }

    /** The current generation; for tests. */
    long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a write in progress, then fsyncs and closes the journal. Idempotent. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            while (writing) {
                written.awaitUninterruptibly();
            }
            if (closed) {
                return;
            }
            closed = true;
            if (journal != null) {
                try {
                    journal.force();
                } finally {
                    journal.close();
                    journal = null;
                }
            }
        } finally {
            lock.unlock();
        }
    }
}

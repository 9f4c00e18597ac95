package io.tierlog.server.group.coordinator;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of the offset journal, with group commit: a caller applies its change to memory and
 * queues its record under one lock (so the journal's order is memory's order); the first caller to
 * find no write in progress becomes the leader, takes every queued record, writes them with one
 * {@code write} (and, with {@code fsync} durability, one fsync) outside the lock, then wakes them
 * all. A caller returns once its record is in the page cache ({@code page_cache}: survives kill -9,
 * as Kafka's log) or on disk ({@code fsync}).
 *
 * <p>Generations: snapshot {@code n} holds every offset as of the start of journal {@code n}; the
 * journal holds the records after it. When the journal passes {@code snapshotBytes}, the leader
 * writes snapshot {@code n+1} (of memory, taken under the lock together with the batch, so the
 * batch is in it and need not be journaled), durably (temp file, fsync, rename, directory fsync),
 * then starts journal {@code n+1} and deletes generation {@code n-1} (generation {@code n} stays as
 * the fallback should snapshot {@code n+1} ever be unreadable). A failed write or switch fails its
 * batch and marks the journal broken: the next batch starts a new generation first, since the old
 * journal may end in a torn record after which nothing may be appended.
 *
 * <p>Thread-safe. Callers block (they run on the blocking executor, never on an event loop).
 */
final class OffsetJournal implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(OffsetJournal.class);
    private static final String SNAPSHOT_SUFFIX = ".snapshot";
    private static final String JOURNAL_SUFFIX = ".journal";
    private static final String PREFIX = "offsets-";

    private static final class Ticket {
        final byte[] record;
        boolean done;
        IOException error;

        Ticket(byte[] record) {
            this.record = record;
        }
    }

    private final OffsetFiles files;
    private final Path dir;
    private final boolean fsync;
    private final long snapshotBytes;
    private final Supplier<byte[]> snapshotOfMemory;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition written = lock.newCondition();

    // guarded by lock
    private List<Ticket> queue = new ArrayList<>();
    private boolean writing;
    private boolean broken;
    private boolean closed;
    private long generation;
    private OffsetFiles.Appender journal;
    private long journalBytes;
    private long batches;

    /**
     * @param snapshotOfMemory the snapshot file of the current in-memory offsets; called under the
     *     lock that every change to them holds
     */
    OffsetJournal(
            OffsetFiles files,
            Path dir,
            boolean fsync,
            long snapshotBytes,
            Supplier<byte[]> snapshotOfMemory) {
        this.files = files;
        this.dir = dir;
        this.fsync = fsync;
        this.snapshotBytes = snapshotBytes;
        this.snapshotOfMemory = snapshotOfMemory;
    }

    static String snapshotName(long generation) {
        return String.format("%s%019d%s", PREFIX, generation, SNAPSHOT_SUFFIX);
    }

    static String journalName(long generation) {
        return String.format("%s%019d%s", PREFIX, generation, JOURNAL_SUFFIX);
    }

    /** The generation of a snapshot file name, if it is one. */
    static OptionalLong snapshotGeneration(String name) {
        return generation(name, SNAPSHOT_SUFFIX);
    }

    /** The generation of a journal file name, if it is one. */
    static OptionalLong journalGeneration(String name) {
        return generation(name, JOURNAL_SUFFIX);
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

    /**
     * Starts generation {@code gen} from {@code snapshot} (at open: of the recovered offsets) and
     * deletes every generation below {@code keepFrom}.
     */
    void start(long gen, byte[] snapshot, long keepFrom) throws IOException {
        lock.lock();
        try {
            switchTo(gen, snapshot, keepFrom);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code change} under the journal's lock; it applies a change to memory and returns its
     * record, or null when there is nothing to persist. Returns once the record is durable (see the
     * class comment).
     *
     * @throws IOException the record could not be written; memory may hold the change (it was not
     *     acknowledged, so either outcome is allowed)
     */
    void append(Supplier<byte[]> change) throws IOException {
        lock.lock();
        try {
            if (closed) {
                throw new IOException("the group offset journal is closed");
            }
            byte[] record = change.get();
            if (record == null) {
                return;
            }
            Ticket t = new Ticket(record);
            queue.add(t);
            while (!t.done) {
                if (writing) {
                    written.awaitUninterruptibly();
                } else {
                    lead();
                }
            }
            if (t.error != null) {
                throw new IOException(t.error.getMessage(), t.error);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Writes the queued batch; called with the lock held, releases it while writing. */
    private void lead() {
        List<Ticket> batch = queue;
        queue = new ArrayList<>();
        byte[] snapshot = broken || journalBytes >= snapshotBytes ? snapshotOfMemory.get() : null;
        long gen = generation;
        writing = true;
        IOException error = null;
        lock.unlock();
        try {
            if (snapshot != null) {
                switchTo(gen + 1, snapshot, gen);
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
                    "Cannot persist committed group offsets in {} ({}); the next commit starts a"
                            + " new snapshot",
                    dir,
                    e.toString());
        } finally {
            lock.lock();
        }
        batches++;
        writing = false;
        for (Ticket t : batch) {
            t.done = true;
            t.error = error;
        }
        written.signalAll();
    }

    /** Snapshot, new journal, then old generations deleted; the writer's role is held. */
    private void switchTo(long gen, byte[] snapshot, long keepFrom) throws IOException {
        files.writeAtomically(dir.resolve(snapshotName(gen)), snapshot);
        // From here on generation gen is the one recovery reads: the old journal is done with.
        OffsetFiles.Appender old = journal;
        journal = null;
        generation = gen;
        broken = true; // until the new journal exists
        if (old != null) {
            try {
                old.close();
            } catch (IOException e) {
                LOG.warn("Cannot close the old offset journal in {}: {}", dir, e.toString());
            }
        }
        OffsetFiles.Appender next = files.create(dir.resolve(journalName(gen)));
        try {
            next.write(ByteBuffer.wrap(OffsetRecords.JOURNAL_MAGIC));
            files.fsyncDir(dir);
        } catch (IOException e) {
            next.close();
            throw e;
        }
        journal = next;
        journalBytes = OffsetRecords.JOURNAL_MAGIC.length;
        broken = false;
        for (Path p : files.list(dir)) {
            String n = p.getFileName().toString();
            OptionalLong s = snapshotGeneration(n);
            OptionalLong j = journalGeneration(n);
            if ((s.isPresent() && s.getAsLong() < keepFrom)
                    || (j.isPresent() && j.getAsLong() < keepFrom)) {
                files.deleteIfExists(p);
            }
        }
    }

    /** Records waiting for the leader; for tests of group commit. */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Batches written (or switched) so far; for tests of group commit. */
    long batches() {
        lock.lock();
        try {
            return batches;
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

package io.tierlog.hot;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code .log} file of one segment, whose channel is opened on demand and may be closed by
 * {@link OpenFiles} while idle. Every use of the channel is bracketed by {@link #acquire()} and
 * {@link #release()} (a pin): a pinned file is never closed, so a read, an append or a sendfile in
 * progress keeps its descriptor; an unpinned one reopens on the next {@code acquire}, at its
 * current path (which follows the {@code .deleted} rename).
 *
 * <p>{@link #close()} closes for good; while pins remain the channel is closed by the last {@link
 * #release()}, so a transfer of a segment being deleted finishes.
 *
 * <p>Thread-safe. The pin count is -1 while an eviction closes the channel, so that acquiring is
 * one compare-and-set on the fast path and can never return a channel that is being closed.
 */
final class SegmentFile {
    private final OpenFiles limiter;
    private final boolean readOnly;
    private final AtomicInteger pins = new AtomicInteger();
    private volatile Path path;
    private volatile FileChannel channel;
    private volatile long lastUse;
    private volatile boolean unflushed;
    private volatile boolean closed; // set under this

    private SegmentFile(OpenFiles limiter, Path path, FileChannel channel, boolean readOnly) {
        this.limiter = limiter;
        this.readOnly = readOnly;
        this.path = path;
        this.channel = channel;
        this.lastUse = System.nanoTime();
    }

    /** Wraps a channel just opened (created) by the caller, and registers it with the bound. */
    static SegmentFile opened(OpenFiles limiter, Path path, FileChannel channel) {
        SegmentFile f = new SegmentFile(limiter, path, channel, false);
        limiter.opened(f);
        return f;
    }

    /** An existing file, opened on first use. */
    static SegmentFile lazy(OpenFiles limiter, Path path) {
        return new SegmentFile(limiter, path, null, false);
    }

    /** An existing file of a log dir that is not ours: opened read-only, on first use. */
    static SegmentFile readOnly(OpenFiles limiter, Path path) {
        return new SegmentFile(limiter, path, null, true);
    }

    /**
     * The channel, pinned open until the matching {@link #release()}.
     *
     * @throws ClosedChannelException after {@link #close()}
     */
    FileChannel acquire() throws IOException {
        int p = pins.get();
        if (p >= 0 && pins.compareAndSet(p, p + 1)) {
            FileChannel ch = channel;
            if (ch != null && ch.isOpen()) {
                lastUse = System.nanoTime();
                return ch;
            }
            release();
        }
        return acquireSlow();
    }

    /**
     * The channel pinned as by {@link #acquire()} if it is open right now, else null (nothing is
     * opened): for callers that must not touch the file system.
     */
    FileChannel acquireIfOpen() {
        int p = pins.get();
        if (p >= 0 && pins.compareAndSet(p, p + 1)) {
            FileChannel ch = channel;
            if (ch != null && ch.isOpen() && !closed) {
                lastUse = System.nanoTime();
                return ch;
            }
            release();
        }
        return null;
    }

    private FileChannel acquireSlow() throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return acquireLocked();
            } catch (IOException e) {
                if (attempt > 0 || !OpenFiles.isOutOfDescriptors(e)) {
                    throw e;
                }
                // EMFILE/ENFILE: give back every idle descriptor of this log dir, then try once
                // more; never while holding this file's lock (an eviction pass takes file locks)
                limiter.evict(0);
            }
        }
    }

    private FileChannel acquireLocked() throws IOException {
        boolean opened = false;
        FileChannel ch;
        synchronized (this) {
            if (closed) {
                throw new ClosedChannelException();
            }
            // no eviction runs while we hold the lock, so the count is >= 0 here
            pins.incrementAndGet();
            ch = channel;
            if (ch == null || !ch.isOpen()) {
                // never opened, evicted, or closed under a reader interrupted mid-read (an
                // interruptible channel closes itself then): open it again
                try {
                    ch = openChannel();
                } catch (IOException | RuntimeException e) {
                    pins.decrementAndGet();
                    throw e;
                }
                channel = ch;
                opened = true;
            }
            lastUse = System.nanoTime();
        }
        if (opened) {
            limiter.opened(this); // this file is pinned: never the one evicted
        }
        return ch;
    }

    private FileChannel openChannel() throws IOException {
        Path p = path;
        try {
            return open(p);
        } catch (NoSuchFileException e) {
            if (p.equals(path)) {
                throw e;
            }
            return open(path); // renamed to .deleted while we opened
        }
    }

    private FileChannel open(Path p) throws IOException {
        return readOnly
                ? FileChannel.open(p, StandardOpenOption.READ)
                : FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** The bound this file counts against. */
    OpenFiles limiter() {
        return limiter;
    }

    /** Ends a pin taken by {@link #acquire()}. */
    void release() {
        if (pins.decrementAndGet() == 0 && closed) {
            closeIfIdle();
        }
    }

    /**
     * The channel of a file the caller has pinned (no second pin: for code already inside an {@code
     * acquire}/{@code release} bracket).
     */
    FileChannel pinnedChannel() {
        FileChannel ch = channel;
        if (ch == null || pins.get() <= 0) {
            throw new IllegalStateException("segment file " + path + " is not pinned");
        }
        return ch;
    }

    /** Closes the channel if it is open and nobody holds a pin; true if it was closed now. */
    boolean closeIfIdle() {
        FileChannel ch;
        synchronized (this) {
            ch = channel;
            if (ch == null || !pins.compareAndSet(0, -1)) {
                return false;
            }
            channel = null;
            pins.set(0);
        }
        try {
            ch.close();
        } catch (IOException e) {
            // the descriptor is released by close even when it reports an error
        }
        limiter.closed(this);
        return true;
    }

    /** Closes for good (now, or at the last release if pinned). Idempotent. */
    void close() {
        synchronized (this) {
            closed = true;
        }
        closeIfIdle();
    }

    /** Marks data written through the channel as not yet fsynced. */
    void markUnflushed() {
        unflushed = true;
    }

    /** Fsyncs the file if anything was written since the last force; no open just to find out. */
    void force() throws IOException {
        if (!unflushed) {
            return;
        }
        unflushed = false;
        FileChannel ch = acquire();
        try {
            ch.force(false);
        } catch (IOException | RuntimeException e) {
            unflushed = true;
            throw e;
        } finally {
            release();
        }
    }

    /** The file was renamed (to {@code .deleted}); an open channel is unaffected. */
    void renamedTo(Path p) {
        path = p;
    }

    Path path() {
        return path;
    }

    long lastUse() {
        return lastUse;
    }

    /** Whether the channel is open right now (tests, metrics). */
    boolean isOpen() {
        return channel != null;
    }

    @Override
    public String toString() {
        return "SegmentFile{" + path + ", open=" + isOpen() + ", pins=" + pins.get() + "}";
    }
}

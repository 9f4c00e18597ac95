package io.tierlog.common;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive OS lock on a file in a directory (Kafka's {@code .lock} in each log dir), held from
 * {@link #acquire} until {@link #close()}: no other process, and no second holder in this one, gets
 * it meanwhile. The file itself stays, empty; a process that dies releases the lock.
 *
 * <p>Taken before anything else starts (a second {@code serve} on the same data dir must fail
 * before it has started an S3 server, a metrics endpoint or opened a catalog), and then handed to
 * whoever owns the directory ({@code LogManager}).
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class DirLock implements Closeable {

    /** The lock is held by another process (or another holder in this one). */
    public static final class InUseException extends IOException {
        private static final long serialVersionUID = 1L;

        InUseException(String message) {
            super(message);
        }
    }

    private final Path dir;
    private final FileLock lock;
    private boolean closed;

    private DirLock(Path dir, FileLock lock) {
        this.dir = dir;
        this.lock = lock;
    }

    /**
     * Takes the exclusive lock on {@code dir/fileName}, creating the file (not the directory).
     *
     * @param what names the directory in the message, e.g. {@code "log dir"}
     * @throws InUseException if anyone holds it; nothing is held then
     */
    public static DirLock acquire(Path dir, String fileName, String what) throws IOException {
        Path file = dir.resolve(fileName);
        FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by another channel of this JVM
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            ch.close();
            throw new InUseException(
                    what + " " + dir + " is in use by another process (lock held on " + file + ")");
        }
        return new DirLock(dir, lock);
    }

    /** The locked directory. */
    public Path dir() {
        return dir;
    }

    /** Whether the lock is still held (not closed, channel open). */
    public synchronized boolean held() {
        return !closed && lock.isValid();
    }

    /** Releases the lock (closing its channel). */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        lock.channel().close();
    }
}

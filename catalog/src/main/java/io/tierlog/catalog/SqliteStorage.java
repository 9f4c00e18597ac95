package io.tierlog.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;

/**
 * Tells whether the SQLite files a connection holds open are still the ones at their paths. A file
 * deleted (or replaced) under an open SQLite connection is the silent way to lose a catalog: the
 * connection keeps reading and committing to the unlinked inode, and the next process opens
 * whatever is at the path, or creates an empty database there. So the identity ({@link
 * BasicFileAttributes#fileKey()}, device and inode on Unix) of the database file is recorded when a
 * connection opens, and of its {@code -wal} and {@code -shm} files when first seen, and compared on
 * every {@link #check()}.
 *
 * <p>Not thread-safe: used under {@link JdbcCatalog}'s lock.
 */
final class SqliteStorage {
    /** What {@link #check()} found wrong. */
    record Problem(String description, boolean reconnect) {}

    private final Path db;
    private final Path wal;
    private final Path shm;
    private Object dbKey;
    private Object walKey;
    private Object shmKey;

    SqliteStorage(Path db) {
        this.db = db.toAbsolutePath().normalize();
        this.wal = Path.of(this.db + "-wal");
        this.shm = Path.of(this.db + "-shm");
    }

    Path db() {
        return db;
    }

    /** Records the files a fresh connection opened. */
    void connected() {
        dbKey = key(db).orElse(null);
        walKey = key(wal).orElse(null);
        shmKey = key(shm).orElse(null);
    }

    /**
     * Compares the files at the paths with the ones recorded. A problem with {@code reconnect} set
     * is one a fresh connection repairs (closing the old one checkpoints a deleted write-ahead log
     * into the database file, which is still linked; a replaced database file is opened anew and
     * judged by its id).
     */
    Optional<Problem> check() {
        Optional<Object> now = key(db);
        if (now.isEmpty()) {
            return Optional.of(
                    new Problem(
                            "catalog file " + db + " no longer exists (deleted while open)",
                            false));
        }
        if (dbKey == null) {
            dbKey = now.get(); // the file was created lazily, after the connection opened
        }
        if (!Objects.equals(dbKey, now.get())) {
            return Optional.of(
                    new Problem(
                            "catalog file " + db + " was replaced by another file while open",
                            true));
        }
        Optional<Problem> p = checkSide(wal, walKey, "write-ahead log");
        if (p.isPresent()) {
            return p;
        }
        return checkSide(shm, shmKey, "shared-memory file");
    }

    private Optional<Problem> checkSide(Path f, Object recorded, String what) {
        Optional<Object> now = key(f);
        if (recorded == null) {
            if (now.isPresent()) {
                if (f == wal) {
                    walKey = now.get();
                } else {
                    shmKey = now.get();
                }
            }
            return Optional.empty();
        }
        if (now.isEmpty()) {
            return Optional.of(
                    new Problem("catalog " + what + " " + f + " was deleted while open", true));
        }
        if (!Objects.equals(recorded, now.get())) {
            return Optional.of(
                    new Problem("catalog " + what + " " + f + " was replaced while open", true));
        }
        return Optional.empty();
    }

    private static Optional<Object> key(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
            Object k = a.fileKey();
            // Without file keys (some file systems) fall back to the creation time.
            return Optional.of(k != null ? k : a.creationTime());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}

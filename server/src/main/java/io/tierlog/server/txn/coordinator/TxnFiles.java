package io.tierlog.server.txn.coordinator;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The file-system steps of the transaction state journal, one method per step, so that a test can
 * fail exactly one of them. {@link #REAL} is the only production implementation. (The group offsets
 * journal has the same seam; the two stay separate so neither coordinator's files change with the
 * other's.) Implementations are thread-safe; one {@link Appender} is used by one writer at a time.
 */
interface TxnFiles {
    /** An open file written only at its end. */
    interface Appender extends Closeable {
        /** Writes all of {@code b} at the end of the file (into the page cache). */
        void write(ByteBuffer b) throws IOException;

        /** fsync of the file's data. */
        void force() throws IOException;
    }

    List<Path> list(Path dir) throws IOException;

    byte[] read(Path file) throws IOException;

    /** Creates {@code file} (truncated if it exists) for appending. */
    Appender create(Path file) throws IOException;

    /** Rename, atomic where the file system can. */
    void move(Path from, Path to) throws IOException;

    void deleteIfExists(Path file) throws IOException;

    /** Makes creations, renames and deletions in {@code dir} durable. */
    void fsyncDir(Path dir) throws IOException;

    /** Replaces {@code target} by {@code content}: temp file, fsync, rename, directory fsync. */
    default void writeAtomically(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (Appender a = create(tmp)) {
            a.write(ByteBuffer.wrap(content));
            a.force();
        }
        move(tmp, target);
        fsyncDir(target.toAbsolutePath().getParent());
    }

    TxnFiles REAL =
            new TxnFiles() {
                @Override
                public List<Path> list(Path dir) throws IOException {
                    try (Stream<Path> s = Files.list(dir)) {
                        return new ArrayList<>(s.toList());
                    }
                }

                @Override
                public byte[] read(Path file) throws IOException {
                    return Files.readAllBytes(file);
                }

                @Override
                public Appender create(Path file) throws IOException {
                    FileChannel ch =
                            FileChannel.open(
                                    file,
                                    StandardOpenOption.CREATE,
                                    StandardOpenOption.WRITE,
                                    StandardOpenOption.TRUNCATE_EXISTING);
                    return new Appender() {
                        @Override
                        public void write(ByteBuffer b) throws IOException {
                            while (b.hasRemaining()) {
                                ch.write(b);
                            }
                        }

                        @Override
                        public void force() throws IOException {
                            ch.force(false);
                        }

                        @Override
                        public void close() throws IOException {
                            ch.close();
                        }
                    };
                }

                @Override
                public void move(Path from, Path to) throws IOException {
                    try {
                        Files.move(
                                from,
                                to,
                                StandardCopyOption.ATOMIC_MOVE,
                                StandardCopyOption.REPLACE_EXISTING);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                }

                @Override
                public void deleteIfExists(Path file) throws IOException {
                    Files.deleteIfExists(file);
                }

                @Override
                public void fsyncDir(Path dir) {
                    io.tierlog.common.AtomicFiles.fsyncDir(dir);
                }
            };
}

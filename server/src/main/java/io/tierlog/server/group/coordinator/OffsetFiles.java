package io.tierlog.server.group.coordinator;

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
 * The few file-system steps the offset journal takes, one method per step, so that a test can fail
 * (or tear) exactly the k-th one and prove that a crash there loses no acknowledged commit. {@link
 * #REAL} is the only production implementation. Implementations are thread-safe; one {@link
 * Appender} is used by one writer at a time.
 */
interface OffsetFiles {
    /** An open file written only at its end. */
    interface Appender extends Closeable {
        /** Writes all of {@code b} at the end of the file (into the page cache). */
        void write(ByteBuffer b) throws IOException;

        /** fsync of the file's data. */
        void force() throws IOException;
    }

    /** Entries of {@code dir}, in no particular order. */
    List<Path> list(Path dir) throws IOException;

    byte[] read(Path file) throws IOException;

    /** Creates {@code file} (truncated if it exists) for appending. */
    Appender create(Path file) throws IOException;

    /** Opens an existing {@code file} for appending after its first {@code length} bytes. */
    Appender appendAt(Path file, long length) throws IOException;

    /** Rename, atomic where the file system can. */
    void move(Path from, Path to) throws IOException;

    void deleteIfExists(Path file) throws IOException;

    /** Makes creations, renames and deletions in {@code dir} durable. */
    void fsyncDir(Path dir) throws IOException;

    /**
     * Replaces {@code target} by {@code content}: temp file, write, fsync, rename, directory fsync
     * (each a separate step of this interface, so each can be failed by a test).
     */
    default void writeAtomically(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (Appender a = create(tmp)) {
            a.write(ByteBuffer.wrap(content));
            a.force();
        }
        move(tmp, target);
        fsyncDir(target.toAbsolutePath().getParent());
    }

    OffsetFiles REAL =
            new OffsetFiles() {
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
                    return appender(
                            FileChannel.open(
                                    file,
                                    StandardOpenOption.CREATE,
                                    StandardOpenOption.WRITE,
                                    StandardOpenOption.TRUNCATE_EXISTING));
                }

                @Override
                public Appender appendAt(Path file, long length) throws IOException {
                    FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE);
                    ch.truncate(length);
                    ch.position(length);
                    return appender(ch);
                }

                private Appender appender(FileChannel ch) {
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

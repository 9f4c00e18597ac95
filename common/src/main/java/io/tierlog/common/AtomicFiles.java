package io.tierlog.common;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Small files replaced whole and durably (ids, checkpoints, markers): a reader after a crash sees
 * either the old content or the new one, never a torn mix. The order is the one Kafka's {@code
 * Utils.atomicMoveWithFallback} callers use: write {@code <name>.tmp}, fsync it, rename it over the
 * target, fsync the directory so the rename itself survives a power loss.
 *
 * <p>Stateless and thread-safe; two writers of the same target must be serialized by the caller
 * (they share the temporary file).
 */
public final class AtomicFiles {
    /** Suffix of the temporary file a write leaves behind only if it crashes before its rename. */
    public static final String TMP_SUFFIX = ".tmp";

    private AtomicFiles() {}

    /**
     * Replaces {@code target} with {@code content}. Falls back to a plain replacing rename only on
     * a file system that cannot rename atomically.
     */
    public static void write(Path target, byte[] content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + TMP_SUFFIX);
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        try {
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        fsyncDir(target.toAbsolutePath().getParent());
    }

    /**
     * Makes the entries of {@code dir} (creations, renames, deletions) durable. Some file systems
     * cannot open a directory for this; a rename there is still atomic, so the failure is ignored.
     */
    public static void fsyncDir(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // not supported on this file system: nothing more can be done
        }
    }
}

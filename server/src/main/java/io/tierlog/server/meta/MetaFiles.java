package io.tierlog.server.meta;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;

/**
 * Crash-safe small files: write to a temp file, fsync it, rename it over the target atomically,
 * fsync the directory. A reader sees the old or the new content, never a torn one; a write that
 * returned survives a crash. Used for the server's own small state (producer id blocks, group
 * offsets). Stateless.
 */
public final class MetaFiles {
    private MetaFiles() {}

    /** Replaces {@code target} by {@code props} (with a {@code comment} line), crash-safely. */
    public static void writeAtomically(Path target, Properties props, String comment)
            throws IOException {
        // store(OutputStream) writes ISO-8859-1 with \\uXXXX escapes: any character survives
        ByteArrayOutputStream w = new ByteArrayOutputStream();
        props.store(w, comment);
        byte[] bytes = w.toByteArray();
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(
                tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDir(target.getParent());
    }

    /** The properties of a file written by {@link #writeAtomically}. */
    public static Properties read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            p.load(r);
        }
        return p;
    }

    static void fsyncDir(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems cannot open directories; the rename is still atomic there.
        }
    }
}

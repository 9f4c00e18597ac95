package io.tierlog.server.meta;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        io.tierlog.common.AtomicFiles.write(target, w.toByteArray());
    }

    /** The properties of a file written by {@link #writeAtomically}. */
    public static Properties read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            p.load(r);
        }
        return p;
    }
}

package io.tierlog.engine;

import io.tierlog.common.AtomicFiles;
import io.tierlog.hot.TopicNames;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit points of topic deletions in progress: one file {@code <stem>.properties} per topic
 * being deleted (Java properties {@code topic.name} and {@code topic.id}, a UUID), written through
 * {@code <stem>.properties.tmp}, fsynced and renamed, so a reader sees a whole marker or none. The
 * stem is the topic name when it fits the 255-byte file-name limit with the suffix, else a prefix
 * and a hash ({@link TopicNames#fileStem}). Thread-safe (each call works on its own file; the
 * registry serialises deletions).
 */
final class DeleteMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(DeleteMarkers.class);
    private static final String SUFFIX = ".properties";
    private static final String TMP = AtomicFiles.TMP_SUFFIX;

    /** A deletion in progress. */
    record Marker(String name, UUID id, Path file) {}

    private final Path dir;

    DeleteMarkers(Path dir) {
        this.dir = dir;
    }

    /** Writes the marker of {@code name} durably (the deletion's commit point). */
    Marker write(String name, UUID id) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(TopicNames.fileStem(name, SUFFIX.length() + TMP.length()) + SUFFIX);
        Properties p = new Properties();
        p.setProperty("topic.name", name);
        p.setProperty("topic.id", id.toString());
        writeAtomically(file, p);
        return new Marker(name, id, file);
    }

    /** The markers present; unreadable ones are logged and skipped (kept for an operator). */
    List<Marker> list() throws IOException {
        List<Marker> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String fn = f.getFileName().toString();
                try {
                    if (fn.endsWith(TMP)) {
                        Files.deleteIfExists(f); // a write that never reached its rename
                    } else if (fn.endsWith(SUFFIX)) {
                        Properties p = read(f);
                        String name = p.getProperty("topic.name");
                        TopicNames.validate(name);
                        out.add(new Marker(name, UUID.fromString(p.getProperty("topic.id")), f));
                    } else {
                        LOG.warn("ignoring {}: not a topic deletion marker", f);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.warn("ignoring unreadable topic deletion marker {}: {}", f, e.toString());
                }
            }
        }
        return out;
    }

    void remove(Marker m) throws IOException {
        Files.deleteIfExists(m.file());
        fsyncDir(dir);
    }

    static void writeAtomically(Path target, Properties props) throws IOException {
        // store(OutputStream) writes ISO-8859-1 with \\uXXXX escapes: any character survives
        ByteArrayOutputStream w = new ByteArrayOutputStream();
        props.store(w, null);
        AtomicFiles.write(target, w.toByteArray());
    }

    static Properties read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            p.load(r);
        }
        return p;
    }

    static void fsyncDir(Path dir) {
        AtomicFiles.fsyncDir(dir);
    }
}

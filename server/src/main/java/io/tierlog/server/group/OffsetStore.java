package io.tierlog.server.group;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Committed consumer-group offsets, kept in memory and persisted per group under {@code
 * <data.dir>/meta/groups/}.
 *
 * <p>Format: one file per group, named by the hex of the group id's UTF-8 bytes plus {@code
 * .properties} (any group id is a safe file name that way), rewritten atomically (temp file, fsync,
 * rename) on every commit. Keys {@code <partition>.<topic>}; values {@code
 * <offset>,<leaderEpoch>,<metadata>} (metadata last, may contain commas).
 *
 * <p>Thread-safe: commits to one group are serialised; reads are lock-free.
 */
public final class OffsetStore {
    /** One committed offset. */
    public record Committed(long offset, int leaderEpoch, String metadata) {}

    private final Path dir;
    private final Map<String, Map<TopicPartition, Committed>> groups = new ConcurrentHashMap<>();

    private OffsetStore(Path dir) {
        this.dir = dir;
    }

    static OffsetStore open(Path metaDir) throws IOException {
        Path dir = metaDir.resolve("groups");
        Files.createDirectories(dir);
        OffsetStore s = new OffsetStore(dir);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.properties")) {
            for (Path f : files) {
                String fn = f.getFileName().toString();
                String group =
                        new String(
                                HexFormat.of().parseHex(fn.substring(0, fn.length() - 11)),
                                StandardCharsets.UTF_8);
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(f, StandardCharsets.ISO_8859_1)) {
                    p.load(r);
                }
                Map<TopicPartition, Committed> m = new ConcurrentHashMap<>();
                for (String k : p.stringPropertyNames()) {
                    int dot = k.indexOf('.');
                    String[] v = p.getProperty(k).split(",", 3);
                    m.put(
                            new TopicPartition(
                                    k.substring(dot + 1), Integer.parseInt(k.substring(0, dot))),
                            new Committed(Long.parseLong(v[0]), Integer.parseInt(v[1]), v[2]));
                }
                s.groups.put(group, m);
            }
        } catch (RuntimeException e) {
            throw new IOException("corrupt group offsets in " + dir + ": " + e, e);
        }
        return s;
    }

    Optional<Committed> committed(String group, TopicPartition tp) {
        Map<TopicPartition, Committed> m = groups.get(group);
        return m == null ? Optional.empty() : Optional.ofNullable(m.get(tp));
    }

    Map<TopicPartition, Committed> all(String group) {
        return Map.copyOf(groups.getOrDefault(group, Map.of()));
    }

    void commit(String group, Map<TopicPartition, Committed> offsets) throws IOException {
        Map<TopicPartition, Committed> m =
                groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
        synchronized (m) {
            m.putAll(offsets);
            Properties p = new Properties();
            m.forEach(
                    (tp, c) ->
                            p.setProperty(
                                    tp.partition() + "." + tp.topic(),
                                    c.offset()
                                            + ","
                                            + c.leaderEpoch()
                                            + ","
                                            + (c.metadata() == null ? "" : c.metadata())));
            StringWriter w = new StringWriter();
            p.store(w, "tierlog group offsets");
            Path target =
                    dir.resolve(
                            HexFormat.of().formatHex(group.getBytes(StandardCharsets.UTF_8))
                                    + ".properties");
            Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            try (FileChannel ch =
                    FileChannel.open(
                            tmp,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.WRITE,
                            StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = ByteBuffer.wrap(w.toString().getBytes(StandardCharsets.ISO_8859_1));
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }
}

package io.tierlog.server.group.coordinator;

import io.tierlog.server.meta.MetaFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed consumer-group offsets, kept in memory and persisted per group under {@code
 * <data.dir>/meta/groups/}.
 *
 * <p>Format: one file per group, named by the hex of the group id's UTF-8 bytes plus {@code
 * .properties} (any group id is a safe file name that way), or, when that name and its {@code .tmp}
 * suffix would pass the file system's 255-byte limit (group ids over 119 bytes), {@code g-<SHA-256
 * hex>.properties}; rewritten atomically ({@link MetaFiles}: temp file, fsync, rename, directory
 * fsync) on every commit and offset deletion, removed (then the directory fsynced) when the group's
 * last offset is deleted. Key {@code group.id} = the group id (so a hashed name can be read back);
 * keys {@code <partition>.<topic>} with values {@code <offset>,<leaderEpoch>,<metadata>} (metadata
 * last, may contain commas).
 *
 * <p>A file that cannot be read at startup (damaged by hand or by the disk) is moved aside to
 * {@code <name>.corrupt-<millis>} with an ERROR naming it: that group's committed offsets are lost,
 * but the server starts.
 *
 * <p>Thread-safe: commits to one group are serialised; reads are lock-free.
 */
public final class OffsetStore {
    /** One committed offset. */
    public record Committed(long offset, int leaderEpoch, String metadata) {}

    private static final Logger LOG = LoggerFactory.getLogger(OffsetStore.class);
    private static final String SUFFIX = ".properties";
    private static final String GROUP_KEY = "group.id";
    private static final int MAX_FILE_NAME_BYTES = 255;

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
                try {
                    s.load(f);
                } catch (IOException | RuntimeException e) {
                    Path aside =
                            f.resolveSibling(
                                    f.getFileName() + ".corrupt-" + System.currentTimeMillis());
                    LOG.error(
                            "Cannot read committed group offsets {} ({}): moved aside to {};"
                                    + " that group's committed offsets are lost",
                            f,
                            e.toString(),
                            aside.getFileName());
                    Files.move(f, aside, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        }
        return s;
    }

    private void load(Path f) throws IOException {
        Properties p = MetaFiles.read(f);
        String group = p.getProperty(GROUP_KEY);
        if (group == null) {
            String fn = f.getFileName().toString();
            group =
                    new String(
                            HexFormat.of().parseHex(fn.substring(0, fn.length() - SUFFIX.length())),
                            StandardCharsets.UTF_8);
        }
        Map<TopicPartition, Committed> m = new ConcurrentHashMap<>();
        for (String k : p.stringPropertyNames()) {
            if (k.equals(GROUP_KEY)) {
                continue;
            }
            int dot = k.indexOf('.');
            String[] v = p.getProperty(k).split(",", 3);
            m.put(
                    new TopicPartition(k.substring(dot + 1), Integer.parseInt(k.substring(0, dot))),
                    new Committed(Long.parseLong(v[0]), Integer.parseInt(v[1]), v[2]));
        }
        groups.put(group, m);
    }

    /** The file of a group: hex of its id, or a hash when that name would be too long. */
    static String fileName(String group) {
        String hex = HexFormat.of().formatHex(group.getBytes(StandardCharsets.UTF_8));
        if (hex.length() + SUFFIX.length() + ".tmp".length() <= MAX_FILE_NAME_BYTES) {
            return hex + SUFFIX;
        }
        try {
            byte[] h =
                    MessageDigest.getInstance("SHA-256")
                            .digest(group.getBytes(StandardCharsets.UTF_8));
            return "g-" + HexFormat.of().formatHex(h) + SUFFIX;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every JVM", e);
        }
    }

    Optional<Committed> committed(String group, TopicPartition tp) {
        Map<TopicPartition, Committed> m = groups.get(group);
        return m == null ? Optional.empty() : Optional.ofNullable(m.get(tp));
    }

    Map<TopicPartition, Committed> all(String group) {
        return Map.copyOf(groups.getOrDefault(group, Map.of()));
    }

    /** Ids of every group with committed offsets. */
    java.util.Set<String> groupIds() {
        return java.util.Set.copyOf(groups.keySet());
    }

    void commit(String group, Map<TopicPartition, Committed> offsets) throws IOException {
        while (true) {
            Map<TopicPartition, Committed> m =
                    groups.computeIfAbsent(group, g -> new ConcurrentHashMap<>());
            synchronized (m) {
                if (groups.get(group) != m) {
                    continue; // deleted meanwhile: commit into the group's new map
                }
                m.putAll(offsets);
                persist(group, m);
                return;
            }
        }
    }

    /**
     * Removes the committed offsets of {@code partitions} (those without one are ignored): the
     * group's file is rewritten atomically, or removed (and its directory fsynced) when no offset
     * is left. Idempotent.
     */
    void delete(String group, java.util.Collection<TopicPartition> partitions) throws IOException {
        Map<TopicPartition, Committed> m = groups.get(group);
        if (m == null) {
            return;
        }
        synchronized (m) {
            if (groups.get(group) != m || !m.keySet().removeAll(partitions)) {
                return;
            }
            if (m.isEmpty()) {
                groups.remove(group, m);
                removeFile(group);
            } else {
                persist(group, m);
            }
        }
    }

    /** Removes every committed offset of {@code group}; true if it had any. Idempotent. */
    boolean deleteGroup(String group) throws IOException {
        Map<TopicPartition, Committed> m = groups.get(group);
        if (m == null) {
            return false;
        }
        synchronized (m) {
            if (!groups.remove(group, m)) {
                return false;
            }
            removeFile(group);
            return true;
        }
    }

    private void removeFile(String group) throws IOException {
        Files.deleteIfExists(dir.resolve(fileName(group)));
        io.tierlog.common.AtomicFiles.fsyncDir(dir);
    }

    /** Rewrites the group's file from {@code m}; called under {@code m}'s monitor. */
    private void persist(String group, Map<TopicPartition, Committed> m) throws IOException {
        Properties p = new Properties();
        p.setProperty(GROUP_KEY, group);
        m.forEach(
                (tp, c) ->
                        p.setProperty(
                                tp.partition() + "." + tp.topic(),
                                c.offset()
                                        + ","
                                        + c.leaderEpoch()
                                        + ","
                                        + (c.metadata() == null ? "" : c.metadata())));
        MetaFiles.writeAtomically(dir.resolve(fileName(group)), p, "tierlog group offsets");
    }
}

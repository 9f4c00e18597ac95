package io.tierlog.engine;

import io.tierlog.hot.TopicNames;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A copy of each topic's registry facts (Kafka topic id, partition count, config overrides) kept in
 * the data dir, so that they survive the loss of the catalog: {@code tierlog catalog rebuild}
 * ({@link CatalogRebuild}) gives the rebuilt topics their ids and configs back from them, and the
 * registry adopts partition folders the catalog does not know (a catalog restored from an old
 * backup) under their hint's id and configs. The catalog stays the one registry: a hint is only
 * read where the catalog has nothing to say.
 *
 * <p><b>Format</b>: one Java properties file per topic, {@code
 * <data.dir>/meta/topic-hints/<stem>.properties}, in the layout of the registry files of the
 * releases before the catalog held topics ({@code meta/topics/}, moved to {@code
 * meta/topics.migrated} by {@link LegacyTopicImport}), so one parser reads all three places:
 *
 * <ul>
 *   <li>{@code topic.name}: the name (absent in the oldest files, where the stem is the name);
 *   <li>{@code topic.id}: Kafka's topic id, base64 (the same 128 bits as the catalog's UUID);
 *   <li>{@code partitions}: the partition count;
 *   <li>{@code config.<key>}: one per config override, Kafka's key.
 * </ul>
 *
 * The stem is the topic name when it fits the 255-byte file-name limit with the suffix, else a
 * prefix and a hash ({@link TopicNames#fileStem}). A file is written through {@code
 * <stem>.properties.tmp}, fsynced and renamed, so a reader sees the whole new hint or the whole old
 * one.
 *
 * <p><b>When</b>: written after each catalog commit of a creation, a partition increase and a
 * config change; removed as the last step of a deletion before its marker; and made equal to the
 * catalog at every open (written where missing or different, removed for topics the catalog no
 * longer holds), which also covers topics of upgraded data dirs. A write that fails is logged and
 * retried at the next open: the catalog committed, so the change stands. A damaged file is skipped
 * with a WARN, never fatal.
 *
 * <p>Once the folder exists, it describes every topic: the rebuild then ignores the older files in
 * {@code meta/topics.migrated*} (a topic deleted since the upgrade must not come back), which it
 * reads otherwise (a data dir upgraded by a release that kept no hints).
 *
 * <p>Thread-safe for different topics; the registry serialises the changes of one topic.
 */
final class TopicHints {
    private static final Logger LOG = LoggerFactory.getLogger(TopicHints.class);

    static final String DIR = "topic-hints";
    private static final String SUFFIX = ".properties";
    private static final String TMP = ".tmp";
    private static final String CONFIG_PREFIX = "config.";

    /** What one file says about a topic. */
    record Hint(String name, UUID id, int partitions, Map<String, String> configs) {
        Hint {
            configs = Map.copyOf(configs);
        }

        static Hint of(TopicInfo t) {
            return new Hint(t.name(), t.uuid(), t.partitions(), t.configs());
        }
    }

    /** The hints a rebuild uses, and one line per file it read or skipped. */
    record Found(Map<String, Hint> hints, List<String> notes) {}

    private final Path dir;

    TopicHints(Path dataDir) {
        this.dir = dataDir.resolve("meta").resolve(DIR);
    }

    /** Writes the hint of {@code t} durably. */
    void write(TopicInfo t) throws IOException {
        Files.createDirectories(dir);
        Properties p = new Properties();
        p.setProperty("topic.name", t.name());
        p.setProperty("topic.id", t.id().toString());
        p.setProperty("partitions", Integer.toString(t.partitions()));
        t.configs().forEach((k, v) -> p.setProperty(CONFIG_PREFIX + k, v));
        DeleteMarkers.writeAtomically(file(t.name()), p);
    }

    /** {@link #write}, a failure logged (the next open writes it). */
    void writeQuietly(TopicInfo t) {
        try {
            write(t);
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "cannot write the topic hint of {} (written at the next open): {}",
                    t.name(),
                    e.toString());
        }
    }

    /** Removes the hint of {@code name}; no-op if there is none. */
    void remove(String name) throws IOException {
        if (Files.deleteIfExists(file(name))) {
            DeleteMarkers.fsyncDir(dir);
        }
    }

    /** The readable hints, by topic name; damaged files are logged and skipped. */
    Map<String, Hint> read() throws IOException {
        return readDir(dir, w -> LOG.warn("{}", w));
    }

    /**
     * Makes the hints equal to {@code topics}: writes the missing and different ones, removes the
     * hints of topics not among them unless in {@code keep} (deletions in progress, whose hint goes
     * with their marker). {@code onFile} is what {@link #read} returned. Failures are logged; never
     * throws.
     */
    void sync(Collection<TopicInfo> topics, Set<String> keep, Map<String, Hint> onFile) {
        try {
            Files.createDirectories(dir);
            Map<String, TopicInfo> wanted = new TreeMap<>();
            topics.forEach(t -> wanted.put(t.name(), t));
            for (TopicInfo t : wanted.values()) {
                if (!Hint.of(t).equals(onFile.get(t.name()))) {
                    writeQuietly(t);
                }
            }
            for (String name : onFile.keySet()) {
                if (!wanted.containsKey(name) && !keep.contains(name)) {
                    LOG.info("removing the topic hint of {}: the catalog has no such topic", name);
                    remove(name);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot bring the topic hints in {} up to date: {}", dir, e.toString());
        }
    }

    private Path file(String name) {
        return dir.resolve(TopicNames.fileStem(name, SUFFIX.length() + TMP.length()) + SUFFIX);
    }

    /**
     * What the data dir holds for a rebuild: {@code meta/topic-hints} if it exists, else the files
     * of older releases ({@code meta/topics.migrated}, {@code .1}, ... then {@code meta/topics},
     * later ones winning). Damaged files are skipped, each with a note.
     */
    static Found forRebuild(Path dataDir) throws IOException {
        Path meta = dataDir.resolve("meta");
        List<String> notes = new ArrayList<>();
        Map<String, Hint> hints = new TreeMap<>();
        List<Path> sources = new ArrayList<>();
        if (Files.isDirectory(meta.resolve(DIR))) {
            sources.add(meta.resolve(DIR));
        } else {
            sources.add(meta.resolve("topics.migrated"));
            for (int n = 1; Files.isDirectory(meta.resolve("topics.migrated." + n)); n++) {
                sources.add(meta.resolve("topics.migrated." + n));
            }
            sources.add(meta.resolve("topics"));
        }
        for (Path source : sources) {
            Map<String, Hint> found = readDir(source, w -> notes.add("skipped " + w));
            if (!found.isEmpty()) {
                notes.add("topic ids and configs of " + found.size() + " topics from " + source);
            }
            hints.putAll(found);
        }
        return new Found(hints, notes);
    }

    /** Reads every {@code *.properties} of {@code dir} (none if absent), by topic name. */
    static Map<String, Hint> readDir(Path dir, Consumer<String> warn) throws IOException {
        Map<String, Hint> out = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String fn = f.getFileName().toString();
                if (fn.endsWith(SUFFIX + TMP)) {
                    continue; // a write that never reached its rename: the old file stands
                }
                if (!fn.endsWith(SUFFIX)) {
                    continue; // the older releases' .deleting/.creating: not a live topic
                }
                try {
                    Hint h = parse(f);
                    out.put(h.name(), h);
                } catch (IOException | RuntimeException e) {
                    warn.accept("damaged topic hint " + f + ": " + e);
                }
            }
        }
        return out;
    }

    /**
     * Parses one file (this class's format, or an older release's registry file).
     *
     * @throws RuntimeException naming what is missing or malformed
     */
    static Hint parse(Path f) throws IOException {
        Properties p = DeleteMarkers.read(f);
        String fn = f.getFileName().toString();
        String name = p.getProperty("topic.name", fn.substring(0, fn.lastIndexOf('.')));
        TopicNames.validate(name);
        String id = p.getProperty("topic.id");
        String partitions = p.getProperty("partitions");
        if (id == null || partitions == null) {
            throw new IllegalArgumentException("topic.id or partitions missing");
        }
        int count = Integer.parseInt(partitions.trim());
        if (count < 1) {
            throw new IllegalArgumentException("partitions=" + count);
        }
        Map<String, String> configs = new TreeMap<>();
        for (String k : p.stringPropertyNames()) {
            if (k.startsWith(CONFIG_PREFIX)) {
                configs.put(k.substring(CONFIG_PREFIX.length()), p.getProperty(k));
            }
        }
        return new Hint(name, TopicInfo.uuid(Uuid.fromString(id.trim())), count, configs);
    }
}

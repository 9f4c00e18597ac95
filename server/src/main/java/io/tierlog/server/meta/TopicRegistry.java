package io.tierlog.server.meta;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigException;
import io.tierlog.common.ConfigOption;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.TopicNames;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics of this server: their ids, partition counts and config overrides, persisted under
 * {@code <data.dir>/meta/topics/}, and their partitions in the hot tier's {@link LogManager}.
 *
 * <p>Format: one file {@code <stem>.properties} per topic (Java properties, rewritten atomically
 * through {@code <stem>.properties.tmp}): {@code topic.name}, {@code topic.id} (base64 Kafka UUID),
 * {@code partitions} (int32 >= 1), and one {@code config.<key>} per topic-level override of a
 * hot-tier option. The stem is the topic name when every suffix fits the 255-byte file-name limit,
 * else a prefix of it and a hash ({@link TopicNames#fileStem}); files written before {@code
 * topic.name} existed are named by their topic.
 *
 * <p>Creation is all or nothing: {@code <stem>.creating} (same content) is written first, the
 * partitions are created, and the rename to {@code <stem>.properties} is the commit point; a
 * failure deletes the partitions created so far, and a restart rolls back a creation it finds
 * interrupted. Deletion renames the file to {@code <stem>.deleting} (the commit point), removes the
 * partition folders, then the tombstone; a restart finishes interrupted deletions. Partition
 * folders found without any topic file are adopted (new id, partitions = highest index + 1) rather
 * than deleted, so a lost meta dir never destroys data. Loading never fails on one bad file:
 * unreadable or foreign files are logged and skipped.
 *
 * <p>Thread-safe: reads are lock-free; create and delete are serialised.
 */
public final class TopicRegistry {
    private static final Logger log = LoggerFactory.getLogger(TopicRegistry.class);
    private static final String SUFFIX = ".properties";
    private static final String TOMBSTONE = ".deleting";
    private static final String CREATING = ".creating";
    private static final String TMP = ".tmp";

    /** Longest suffix a topic file stem gets ({@code .properties.tmp}). */
    static final int MAX_SUFFIX = SUFFIX.length() + TMP.length();

    private static final String NAME_KEY = "topic.name";
    private static final String CONFIG_PREFIX = "config.";

    /** Upper bound of partitions per topic: a request cannot make the server open millions. */
    public static final int MAX_PARTITIONS = 10_000;

    private final Path dir;
    private final Config hotDefaults;
    private final Map<String, TopicMeta> byName = new ConcurrentHashMap<>();
    private final Map<Uuid, TopicMeta> byId = new ConcurrentHashMap<>();

    /** Files of topics whose name is not their stem (loaded from old files); by topic. */
    private final Map<String, Path> files = new ConcurrentHashMap<>();

    private final Map<String, Path> creatingFiles = new HashMap<>();

    /**
     * Configs of topics being created: their partitions open before the topic is registered, and
     * must open with the topic's overrides, not the server defaults.
     */
    private final Map<String, LogConfig> creating = new ConcurrentHashMap<>();

    private final List<String> pendingDeletes = new ArrayList<>();
    private final List<String> interruptedCreates = new ArrayList<>();
    private volatile LogManager logs;
    private volatile Consumer<PartitionLog> onOpen = l -> {};

    private TopicRegistry(Path dir, Config hotDefaults) {
        this.dir = dir;
        this.hotDefaults = hotDefaults;
    }

    /**
     * Reads the topic files of {@code metaDir/topics}. {@code hotDefaults} holds the server-wide
     * values of hot-tier options (topic defaults).
     */
    public static TopicRegistry load(Path metaDir, Config hotDefaults) throws IOException {
        Path dir = metaDir.resolve("topics");
        Files.createDirectories(dir);
        TopicRegistry r = new TopicRegistry(dir, hotDefaults.filter(HotTierOptions.all()));
        List<Path> creating = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String fn = f.getFileName().toString();
                try {
                    if (fn.endsWith(SUFFIX)) {
                        r.register(r.parse(stemOf(fn, SUFFIX), f));
                    } else if (fn.endsWith(TOMBSTONE)) {
                        r.pendingDeletes.add(topicNameOf(f, stemOf(fn, TOMBSTONE)));
                    } else if (fn.endsWith(CREATING)) {
                        creating.add(f);
                    } else if (fn.endsWith(TMP)) {
                        Files.deleteIfExists(f); // a write that never reached its rename
                    } else {
                        log.warn("ignoring {} in the topic metadata dir: not a topic file", f);
                    }
                } catch (IOException | RuntimeException e) {
                    // one bad file must not keep the server from starting; its partition
                    // folders, if any, are adopted by attach()
                    log.warn("ignoring unreadable topic metadata {}: {}", f, e.toString());
                }
            }
        }
        for (Path f : creating) {
            try {
                String topic = topicNameOf(f, stemOf(f.getFileName().toString(), CREATING));
                if (r.byName.containsKey(topic)) {
                    Files.deleteIfExists(f); // committed; only the marker's removal was lost
                } else {
                    r.interruptedCreates.add(topic);
                    r.creatingFiles.put(topic, f);
                }
            } catch (IOException | RuntimeException e) {
                log.warn("ignoring unreadable creation marker {}: {}", f, e.toString());
            }
        }
        return r;
    }

    private static String stemOf(String fileName, String suffix) {
        return fileName.substring(0, fileName.length() - suffix.length());
    }

    /** The topic a metadata file is about: its {@code topic.name}, else its stem (old files). */
    private static String topicNameOf(Path f, String stem) throws IOException {
        String name = MetaFiles.read(f).getProperty(NAME_KEY, stem);
        TopicNames.validate(name);
        return name;
    }

    /** The file stem of a topic's metadata files (its name, or a hashed prefix when too long). */
    static String stem(String topic) {
        return TopicNames.fileStem(topic, MAX_SUFFIX);
    }

    /**
     * Connects the registry to the opened hot tier: finishes interrupted deletions, adopts orphan
     * partition folders, opens every partition of every topic, and calls {@code onOpen} for each
     * partition log now and for partitions created later.
     */
    public synchronized void attach(LogManager logs, Consumer<PartitionLog> onOpen)
            throws IOException {
        this.logs = logs;
        this.onOpen = onOpen;
        for (String topic : pendingDeletes) {
            try {
                deletePartitions(topic);
                Files.deleteIfExists(tombstoneOf(topic));
                log.info("finished the interrupted deletion of topic {}", topic);
            } catch (IOException | RuntimeException e) {
                log.warn(
                        "cannot finish the deletion of topic {} (retried at next start): {}",
                        topic,
                        e.toString());
            }
        }
        pendingDeletes.clear();
        for (String topic : interruptedCreates) {
            try {
                deletePartitions(topic);
                Files.deleteIfExists(creatingFiles.get(topic));
                log.warn("rolled back the interrupted creation of topic {}", topic);
            } catch (IOException | RuntimeException e) {
                log.warn(
                        "cannot roll back the creation of topic {} (retried at next start): {}",
                        topic,
                        e.toString());
            }
        }
        interruptedCreates.clear();
        creatingFiles.clear();
        Map<String, Integer> orphans = new HashMap<>();
        for (PartitionLog pl : logs.partitions()) {
            TopicPartition tp = pl.topicPartition();
            if (!byName.containsKey(tp.topic())) {
                orphans.merge(tp.topic(), tp.partition() + 1, Math::max);
            }
        }
        for (Map.Entry<String, Integer> o : orphans.entrySet()) {
            log.warn(
                    "adopting partition folders of topic {} found without metadata ({} partitions)",
                    o.getKey(),
                    o.getValue());
            persistAndRegister(o.getKey(), Uuid.randomUuid(), o.getValue(), Map.of());
        }
        for (TopicMeta t : byName.values()) {
            openPartitions(t);
        }
    }

    /** The hot-tier config of a topic (server defaults when the topic is unknown). */
    public LogConfig logConfig(String topic) {
        TopicMeta t = byName.get(topic);
        if (t != null) {
            return t.logConfig();
        }
        LogConfig pending = creating.get(topic);
        return pending != null ? pending : LogConfig.from(hotDefaults);
    }

    public Optional<TopicMeta> topic(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(byName.get(name));
    }

    public Optional<TopicMeta> topic(Uuid id) {
        return id == null ? Optional.empty() : Optional.ofNullable(byId.get(id));
    }

    public Collection<TopicMeta> topics() {
        return new ArrayList<>(new TreeMap<>(byName).values());
    }

    /** Server-wide hot-tier defaults (the values of topic configs not overridden). */
    public Config hotDefaults() {
        return hotDefaults;
    }

    /**
     * Creates a topic and its partitions.
     *
     * @throws InvalidTopicException bad name
     * @throws TopicExistsException the name is taken
     * @throws InvalidPartitionsException partitions < 1
     * @throws InvalidConfigurationException unknown config key or bad value
     */
    public synchronized TopicMeta create(
            String name, int partitions, Map<String, String> configs, boolean validateOnly)
            throws IOException {
        try {
            TopicNames.validate(name);
        } catch (io.tierlog.hot.InvalidTopicException e) {
            throw new InvalidTopicException(e.getMessage());
        }
        if (byName.containsKey(name)) {
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new InvalidPartitionsException(
                    "Number of partitions must be between 1 and " + MAX_PARTITIONS + ".");
        }
        LogConfig lc = validateConfigs(configs);
        if (validateOnly) {
            return new TopicMeta(name, Uuid.ZERO_UUID, partitions, configs, lc);
        }
        Uuid id = Uuid.randomUuid();
        Path marker = dir.resolve(stem(name) + CREATING);
        List<PartitionLog> created = new ArrayList<>();
        boolean committed = false;
        creating.put(name, lc);
        try {
            MetaFiles.writeAtomically(
                    marker, properties(name, id, partitions, configs), "tierlog topic " + name);
            for (int i = 0; i < partitions; i++) {
                created.add(logs.getOrCreate(new TopicPartition(name, i)));
            }
            Path file = dir.resolve(stem(name) + SUFFIX);
            Files.move(marker, file, StandardCopyOption.ATOMIC_MOVE);
            MetaFiles.fsyncDir(dir);
            committed = true;
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            creating.remove(name);
            rollBackCreate(name, partitions, created.size(), marker, e);
            throw creationFailure(name, partitions, created.size(), e);
        }
        TopicMeta t =
                new TopicMeta(
                        name, id, partitions, configs, LogConfig.from(hotDefaults.with(configs)));
        register(t);
        creating.remove(name);
        for (PartitionLog pl : created) {
            onOpen.accept(pl);
        }
        log.info("created topic {} ({} partitions, id {})", name, partitions, t.id());
        return t;
    }

    /** Deletes what a failed creation made; a failure here is finished at the next start. */
    private void rollBackCreate(
            String name, int partitions, int created, Path marker, Throwable cause) {
        log.warn(
                "creating topic {} failed after {} of {} partitions; deleting them: {}",
                name,
                created,
                partitions,
                cause.toString());
        try {
            for (int i = 0; i < partitions; i++) {
                TopicPartition tp = new TopicPartition(name, i);
                if (logs.partition(tp).isPresent() || Files.isDirectory(partitionDir(tp))) {
                    logs.delete(tp);
                }
            }
            Files.deleteIfExists(marker);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "cannot delete the partitions of the failed topic {} now; the next start"
                            + " rolls the creation back: {}",
                    name,
                    e.toString());
        }
    }

    private Path partitionDir(TopicPartition tp) {
        return logs.logDir().resolve(TopicNames.dirName(tp));
    }

    /**
     * The Kafka error for a creation that failed on a resource: descriptors, memory maps or disk
     * are storage errors (retriable once the operator has freed them), anything else too.
     */
    private static ApiException creationFailure(
            String name, int partitions, int created, Throwable e) {
        String what =
                io.tierlog.hot.OpenFiles.isOutOfDescriptors(e)
                        ? "out of file descriptors"
                        : io.tierlog.hot.OpenFiles.isOutOfMemoryMaps(e)
                                ? "out of memory maps (vm.max_map_count)"
                                : e.toString();
        return new KafkaStorageException(
                "Cannot create topic '"
                        + name
                        + "' with "
                        + partitions
                        + " partitions: "
                        + what
                        + " after "
                        + created
                        + "; nothing was created",
                e);
    }

    /** Deletes a topic and its data. @throws UnknownTopicOrPartitionException if unknown */
    public synchronized void delete(String name) throws IOException {
        TopicMeta t = byName.get(name);
        if (t == null) {
            throw new UnknownTopicOrPartitionException("Topic '" + name + "' does not exist.");
        }
        Path tomb = tombstoneOf(name);
        Files.move(fileOf(name), tomb, StandardCopyOption.ATOMIC_MOVE);
        MetaFiles.fsyncDir(dir);
        byName.remove(name);
        byId.remove(t.id());
        files.remove(name);
        try {
            deletePartitions(name);
            Files.deleteIfExists(tomb);
        } catch (IOException e) {
            // committed: the topic is gone for clients; the next start removes what is left
            log.warn(
                    "topic {} deleted, but removing its files failed (finished at the next start)",
                    name,
                    e);
        }
        log.info("deleted topic {}", name);
    }

    /** Checks per-topic overrides; returns the resulting hot-tier config. */
    public LogConfig validateConfigs(Map<String, String> configs) {
        Map<String, ConfigOption<?>> known = new HashMap<>();
        for (ConfigOption<?> o : HotTierOptions.all()) {
            known.put(o.key(), o);
        }
        for (Map.Entry<String, String> e : configs.entrySet()) {
            ConfigOption<?> o = known.get(e.getKey());
            if (o == null) {
                throw new InvalidConfigurationException("Unknown topic config name: " + e.getKey());
            }
            if (e.getValue() == null) {
                throw new InvalidConfigurationException("Null value for " + e.getKey());
            }
            try {
                o.parse(e.getValue());
            } catch (ConfigException ce) {
                throw new InvalidConfigurationException(ce.getMessage());
            }
        }
        try {
            return LogConfig.from(hotDefaults.with(configs));
        } catch (RuntimeException ce) {
            throw new InvalidConfigurationException(ce.getMessage());
        }
    }

    private Path fileOf(String topic) {
        Path f = files.get(topic);
        return f != null ? f : dir.resolve(stem(topic) + SUFFIX);
    }

    private Path tombstoneOf(String topic) {
        Path f = fileOf(topic);
        String fn = f.getFileName().toString();
        return f.resolveSibling(stemOf(fn, SUFFIX) + TOMBSTONE);
    }

    private static Properties properties(
            String name, Uuid id, int partitions, Map<String, String> configs) {
        Properties p = new Properties();
        p.setProperty(NAME_KEY, name);
        p.setProperty("topic.id", id.toString());
        p.setProperty("partitions", Integer.toString(partitions));
        configs.forEach((k, v) -> p.setProperty(CONFIG_PREFIX + k, v));
        return p;
    }

    private TopicMeta persistAndRegister(
            String name, Uuid id, int partitions, Map<String, String> configs) throws IOException {
        Properties p = properties(name, id, partitions, configs);
        MetaFiles.writeAtomically(fileOf(name), p, "tierlog topic " + name);
        TopicMeta t =
                new TopicMeta(
                        name, id, partitions, configs, LogConfig.from(hotDefaults.with(configs)));
        register(t);
        return t;
    }

    private void register(TopicMeta t) {
        byName.put(t.name(), t);
        byId.put(t.id(), t);
    }

    private TopicMeta parse(String stem, Path f) throws IOException {
        Properties p = MetaFiles.read(f);
        String name = p.getProperty(NAME_KEY, stem);
        TopicNames.validate(name);
        if (!f.getFileName().toString().equals(stem(name) + SUFFIX)) {
            files.put(name, f);
        }
        try {
            Uuid id = Uuid.fromString(p.getProperty("topic.id"));
            int partitions = Integer.parseInt(p.getProperty("partitions").trim());
            Map<String, String> configs = new TreeMap<>();
            for (String k : p.stringPropertyNames()) {
                if (k.startsWith(CONFIG_PREFIX)) {
                    configs.put(k.substring(CONFIG_PREFIX.length()), p.getProperty(k));
                }
            }
            return new TopicMeta(
                    name, id, partitions, configs, LogConfig.from(hotDefaults.with(configs)));
        } catch (RuntimeException e) {
            throw new IOException("corrupt topic metadata " + f + ": " + e.getMessage(), e);
        }
    }

    private void openPartitions(TopicMeta t) throws IOException {
        for (int i = 0; i < t.partitions(); i++) {
            onOpen.accept(logs.getOrCreate(new TopicPartition(t.name(), i)));
        }
    }

    private void deletePartitions(String topic) throws IOException {
        for (PartitionLog pl : logs.partitions()) {
            if (pl.topicPartition().topic().equals(topic)) {
                logs.delete(pl.topicPartition());
            }
        }
    }
}

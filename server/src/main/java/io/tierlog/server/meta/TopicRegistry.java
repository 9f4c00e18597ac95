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
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics of this server: their ids, partition counts and config overrides, persisted under
 * {@code <data.dir>/meta/topics/}, and their partitions in the hot tier's {@link LogManager}.
 *
 * <p>Format: one file {@code <topic>.properties} per topic (Java properties, rewritten atomically):
 * {@code topic.id} (base64 Kafka UUID), {@code partitions} (int32 >= 1), and one {@code
 * config.<key>} per topic-level override of a hot-tier option. Deletion renames the file to {@code
 * <topic>.deleting} (the commit point), removes the partition folders, then the tombstone; a
 * restart finishes interrupted deletions. Partition folders found without any topic file are
 * adopted (new id, partitions = highest index + 1) rather than deleted, so a lost meta dir never
 * destroys data.
 *
 * <p>Thread-safe: reads are lock-free; create and delete are serialised.
 */
public final class TopicRegistry {
    private static final Logger log = LoggerFactory.getLogger(TopicRegistry.class);
    private static final String SUFFIX = ".properties";
    private static final String TOMBSTONE = ".deleting";
    private static final String CONFIG_PREFIX = "config.";

    /** Upper bound of partitions per topic: a request cannot make the server open millions. */
    public static final int MAX_PARTITIONS = 10_000;

    private final Path dir;
    private final Config hotDefaults;
    private final Map<String, TopicMeta> byName = new ConcurrentHashMap<>();
    private final Map<Uuid, TopicMeta> byId = new ConcurrentHashMap<>();
    private final List<String> pendingDeletes = new ArrayList<>();
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
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String fn = f.getFileName().toString();
                if (fn.endsWith(SUFFIX)) {
                    r.register(r.parse(fn.substring(0, fn.length() - SUFFIX.length()), f));
                } else if (fn.endsWith(TOMBSTONE)) {
                    r.pendingDeletes.add(fn.substring(0, fn.length() - TOMBSTONE.length()));
                }
            }
        }
        return r;
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
            deletePartitions(topic);
            Files.deleteIfExists(dir.resolve(topic + TOMBSTONE));
        }
        pendingDeletes.clear();
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
        return t != null ? t.logConfig() : LogConfig.from(hotDefaults);
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
        TopicMeta t = persistAndRegister(name, Uuid.randomUuid(), partitions, configs);
        openPartitions(t);
        log.info("created topic {} ({} partitions, id {})", name, partitions, t.id());
        return t;
    }

    /** Deletes a topic and its data. @throws UnknownTopicOrPartitionException if unknown */
    public synchronized void delete(String name) throws IOException {
        TopicMeta t = byName.get(name);
        if (t == null) {
            throw new UnknownTopicOrPartitionException("Topic '" + name + "' does not exist.");
        }
        Path tomb = dir.resolve(name + TOMBSTONE);
        java.nio.file.Files.move(
                dir.resolve(name + SUFFIX), tomb, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        MetaFiles.fsyncDir(dir);
        byName.remove(name);
        byId.remove(t.id());
        deletePartitions(name);
        Files.deleteIfExists(tomb);
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

    private TopicMeta persistAndRegister(
            String name, Uuid id, int partitions, Map<String, String> configs) throws IOException {
        Properties p = new Properties();
        p.setProperty("topic.id", id.toString());
        p.setProperty("partitions", Integer.toString(partitions));
        configs.forEach((k, v) -> p.setProperty(CONFIG_PREFIX + k, v));
        MetaFiles.writeAtomically(dir.resolve(name + SUFFIX), p, "tierlog topic " + name);
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

    private TopicMeta parse(String name, Path f) throws IOException {
        Properties p = MetaFiles.read(f);
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

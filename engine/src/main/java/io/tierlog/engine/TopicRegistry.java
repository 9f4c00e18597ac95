package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.catalog.TopicRecord;
import io.tierlog.common.Config;
import io.tierlog.common.ConfigOption;
import io.tierlog.hot.HotTierOptions;
import io.tierlog.hot.LogListener;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.OpenFiles;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.TopicNames;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics of a data dir: ids, partition counts and config overrides, kept in the catalog (the
 * one registry of {@code serve} and {@code offload} alike), with their partitions in the hot tier.
 * Lookups answer from memory (no catalog call, so an event loop may ask); changes go to the catalog
 * first and then to memory.
 *
 * <p><b>Create</b>: the catalog row is the commit point; the partitions are created after it, with
 * the topic's configs already in place, so they open with its overrides. A failure creating them
 * (out of descriptors or memory maps, a full disk) deletes the partitions made so far and the row,
 * and is reported as a {@link KafkaStorageException} saying nothing was created; a crash after the
 * commit leaves a topic whose missing partitions the next open creates. A topic the catalog already
 * holds (created by another process, such as {@code tierlog offload}, with or without configs)
 * exists: creating it again is {@link TopicExistsException}, as Kafka.
 *
 * <p><b>Delete</b>: a marker {@code <data.dir>/meta/topics.deleting/<stem>.properties} (the topic's
 * name and id, written atomically) is the commit point; then the hot partitions go, then the
 * catalog row, then the cold objects (any the store refuses are left to the orphan sweeper), then
 * the hint, then the marker. Opening finishes an interrupted deletion; until it is finished the
 * name cannot be created again (Kafka's "marked for deletion"). A marker whose id is not the
 * catalog row's (the name was created again elsewhere) is dropped without deleting anything.
 *
 * <p><b>Open</b>: interrupted deletions are finished; partition folders of a topic the catalog does
 * not know are adopted (partitions = highest index + 1, WARN), never deleted, so a lost catalog
 * never destroys data: with the id and configs of the topic's {@link TopicHints hint} if it has
 * one, else with a new id and no configs; the hints are made equal to the catalog; every partition
 * of every topic is opened. Unreadable markers and hints are logged and skipped.
 *
 * <p><b>Hints</b>: every change above is copied, after its catalog commit, into the topic's hint
 * file ({@link TopicHints}), which {@code tierlog catalog rebuild} reads when the catalog is lost.
 *
 * <p>Thread-safe: reads are lock-free; changes are serialised.
 */
public final class TopicRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(TopicRegistry.class);

    /** Upper bound of partitions per topic: a request cannot make the engine open millions. */
    public static final int MAX_PARTITIONS = 10_000;

    private final Catalog catalog;
    private final LogManager logs;
    private final TopicConfigs configs;
    private final ColdIndex coldIndex;
    private final DeleteMarkers markers;
    private final TopicHints hints;
    private final Map<String, TopicInfo> byName = new ConcurrentHashMap<>();
    private final Map<Uuid, TopicInfo> byId = new ConcurrentHashMap<>();
    private final List<AppendListener> listeners = new CopyOnWriteArrayList<>();
    private final Set<PartitionLog> listened = ConcurrentHashMap.newKeySet();

    /** Topics whose deletion is committed (marker written) but not finished yet. */
    private final Set<String> deleting = ConcurrentHashMap.newKeySet();

    private final LogListener dispatch =
            new LogListener() {
                @Override
                public void onAppend(PartitionLog log, long highWatermark) {
                    for (AppendListener l : listeners) {
                        l.onAppend(log.topicPartition(), highWatermark);
                    }
                }
            };
    private volatile Consumer<List<ColdObject>> deleteObjects = objects -> {};

    /**
     * Removes a deleted topic's Iceberg table before its catalog row goes; returns whether the
     * topic's cold objects may then be deleted from the bucket (false: a kept, renamed table still
     * references them). Throws when the table catalog cannot be reached: the deletion is finished
     * at a later open, as for any other failure.
     */
    @FunctionalInterface
    interface TableDrop {
        TableDrop NONE = (topic, id) -> true;

        boolean drop(String topic, java.util.UUID id);
    }

    private final TableDrop tableDrop;

    private TopicRegistry(
            Catalog catalog,
            LogManager logs,
            TopicConfigs configs,
            ColdIndex coldIndex,
            DeleteMarkers markers,
            TopicHints hints,
            TableDrop tableDrop) {
        this.tableDrop = tableDrop;
        this.catalog = catalog;
        this.logs = logs;
        this.configs = configs;
        this.coldIndex = coldIndex;
        this.markers = markers;
        this.hints = hints;
    }

    /**
     * Loads the topics of {@code catalog}, finishes interrupted deletions, adopts orphan partition
     * folders of {@code logs} and opens every topic's partitions (see the class comment).
     */
    static TopicRegistry open(
            Catalog catalog,
            LogManager logs,
            TopicConfigs configs,
            ColdIndex coldIndex,
            Path dataDir)
            throws IOException {
        return open(catalog, logs, configs, coldIndex, dataDir, TableDrop.NONE);
    }

    /** As {@link #open(Catalog, LogManager, TopicConfigs, ColdIndex, Path)}, dropping tables. */
    static TopicRegistry open(
            Catalog catalog,
            LogManager logs,
            TopicConfigs configs,
            ColdIndex coldIndex,
            Path dataDir,
            TableDrop tableDrop)
            throws IOException {
        TopicRegistry r =
                new TopicRegistry(
                        catalog,
                        logs,
                        configs,
                        coldIndex,
                        new DeleteMarkers(dataDir.resolve("meta").resolve("topics.deleting")),
                        new TopicHints(dataDir),
                        tableDrop);
        for (DeleteMarkers.Marker m : r.markers.list()) {
            try {
                r.finishDelete(m);
                LOG.info("finished the interrupted deletion of topic {}", m.name());
            } catch (IOException | RuntimeException e) {
                r.deleting.add(m.name());
                LOG.warn(
                        "cannot finish the deletion of topic {} (retried at next open): {}",
                        m.name(),
                        e.toString());
            }
        }
        for (TopicRecord t : catalog.topics()) {
            if (!r.deleting.contains(t.name())) {
                r.remember(upgradeConfigs(catalog, t));
            }
        }
        Map<String, TopicHints.Hint> hinted = r.hints.read();
        Map<String, Integer> onDisk = new TreeMap<>();
        for (PartitionLog pl : logs.partitions()) {
            TopicPartition tp = pl.topicPartition();
            onDisk.merge(tp.topic(), tp.partition() + 1, Math::max);
        }
        for (Map.Entry<String, Integer> e : onDisk.entrySet()) {
            TopicInfo known = r.byName.get(e.getKey());
            if (r.deleting.contains(e.getKey())) {
                continue; // the partitions of a topic being deleted are no orphans
            }
            TopicHints.Hint hint = hinted.get(e.getKey());
            if (known == null
                    && hint != null
                    && !r.byId.containsKey(TopicInfo.kafkaId(hint.id()))) {
                // a catalog restored from an old backup: the topic keeps its id and configs
                LOG.warn(
                        "adopting partition folders of topic {} that the catalog does not know"
                                + " ({} partitions) with the id {} and configs {} of its hint",
                        e.getKey(),
                        e.getValue(),
                        TopicInfo.kafkaId(hint.id()),
                        hint.configs());
                r.remember(
                        catalog.importTopic(
                                hint.id(),
                                e.getKey(),
                                Math.max(hint.partitions(), e.getValue()),
                                hint.configs()));
            } else if (known == null || known.partitions() < e.getValue()) {
                LOG.warn(
                        "adopting partition folders of topic {} that the catalog does not know"
                                + " ({} partitions)",
                        e.getKey(),
                        e.getValue());
                r.remember(catalog.ensureTopic(e.getKey(), e.getValue()));
            }
        }
        r.hints.sync(r.byName.values(), r.deleting, hinted);
        for (TopicInfo t : r.byName.values()) {
            r.openPartitions(t.name(), 0, t.partitions());
        }
        return r;
    }

    // ---------------------------------------------------------------- lookups (memory only)

    /** The topic named {@code name}, if it exists. */
    public Optional<TopicInfo> topic(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(byName.get(name));
    }

    /** The topic with Kafka topic id {@code id}, if it exists. */
    public Optional<TopicInfo> topic(Uuid id) {
        return id == null ? Optional.empty() : Optional.ofNullable(byId.get(id));
    }

    /** Every topic, sorted by name. */
    public List<TopicInfo> topics() {
        return new ArrayList<>(new TreeMap<>(byName).values());
    }

    /** Whether {@code name} is a legal topic name (Kafka's rules, and one that fits a folder). */
    public static boolean isValidName(String name) {
        return name != null && TopicNames.isValid(name);
    }

    /** The topic-level options a topic may override (Kafka names). */
    public static List<ConfigOption<?>> topicOptions() {
        List<ConfigOption<?>> out = new ArrayList<>(HotTierOptions.all());
        out.add(io.tierlog.compactor.CompactorOptions.COLD_TYPED_COLUMNS); // read by the offload
        out.add(io.tierlog.compactor.CompactorOptions.COLD_TYPED_ONE_COPY);
        out.add(EngineOptions.RETENTION_MS);
        out.add(EngineOptions.RETENTION_BYTES);
        out.addAll(SchemaRules.OPTIONS);
        out.addAll(io.tierlog.iceberg.IcebergOptions.topicOptions());
        return out;
    }

    /**
     * tierlog's own topic-level options that Kafka does not have ({@code log.durability}, {@code
     * producer.id.expiration.ms}); every other topic config is one of {@link KafkaTopicConfigs}.
     */
    public static List<ConfigOption<?>> tierlogTopicOptions() {
        List<ConfigOption<?>> out = new ArrayList<>();
        for (ConfigOption<?> o : topicOptions()) {
            if (KafkaTopicConfigs.def(o.key()).isEmpty()
                    && !o.key().equals(HotTierOptions.MESSAGE_MAX_BYTES.key())) {
                out.add(o);
            }
        }
        return out;
    }

    /**
     * The server option that sets the default of Kafka topic config {@code name} in the config
     * file, if tierlog has one: the option of the same name, or {@code message.max.bytes} for
     * {@code max.message.bytes}.
     */
    static Optional<ConfigOption<?>> tierlogOption(String name) {
        if (name.equals(KafkaTopicConfigs.MAX_MESSAGE_BYTES)) {
            return Optional.of(HotTierOptions.MESSAGE_MAX_BYTES);
        }
        for (ConfigOption<?> o : topicOptions()) {
            if (o.key().equals(name)) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    /** The engine-wide values of the topic options (what a topic without overrides gets). */
    public Config topicDefaults() {
        return configs.defaults().filter(topicOptions());
    }

    /** Whether {@code topic}'s effective {@code cleanup.policy} holds {@code compact}. */
    boolean isCompacted(String topic) {
        return configs.compacted(topic);
    }

    /** Every config of topic {@code name} with its source, as Kafka's DescribeConfigs shows it. */
    public Optional<List<DescribedConfig>> describeConfigs(String name) {
        TopicInfo t = byName.get(name);
        return t == null ? Optional.empty() : Optional.of(configs.describeTopic(t.configs()));
    }

    /** Every config a topic with {@code overrides} would have (CreateTopics' answer). */
    public List<DescribedConfig> describeConfigs(Map<String, String> overrides) {
        return configs.describeTopic(overrides);
    }

    /**
     * The topic defaults under their Kafka broker names, as DescribeConfigs shows them for this
     * node ({@code clusterDefault} false) or for the cluster default resource.
     */
    public List<DescribedConfig> describeBrokerConfigs(boolean clusterDefault) {
        return configs.describeBroker(scope(clusterDefault));
    }

    /** The dynamic broker configs of this node or of the cluster default, by Kafka broker key. */
    public Map<String, String> brokerConfigs(boolean clusterDefault) {
        return configs.dynamic().get(scope(clusterDefault));
    }

    private static DynamicBrokerConfigs.Scope scope(boolean clusterDefault) {
        return clusterDefault
                ? DynamicBrokerConfigs.Scope.DEFAULT
                : DynamicBrokerConfigs.Scope.NODE;
    }

    /** Whether an append to {@code topic} waits for fsync ({@code log.durability=fsync}). */
    public boolean appendWaitsForFsync(String topic) {
        return configs.logConfig(topic).durability() == io.tierlog.hot.Durability.FSYNC;
    }

    // ---------------------------------------------------------------- changes

    /**
     * Creates a topic with partitions {@code 0..partitions-1} (see the class comment). With {@code
     * validateOnly}, only checks (the answer's id is zero).
     *
     * @throws InvalidTopicException bad name
     * @throws TopicExistsException the topic exists (whatever its settings)
     * @throws InvalidPartitionsException partitions out of {@code 1..MAX_PARTITIONS}
     * @throws InvalidConfigurationException unknown config key or bad value
     * @throws KafkaStorageException the partitions could not be created (nothing was)
     */
    public synchronized TopicInfo create(
            String name, int partitions, Map<String, String> overrides, boolean validateOnly)
            throws IOException {
        try {
            TopicNames.validate(name);
        } catch (RuntimeException e) {
            throw new InvalidTopicException(e.getMessage());
        }
        if (deleting.contains(name)) {
            throw new TopicExistsException("Topic '" + name + "' is marked for deletion.");
        }
        if (!byName.containsKey(name)) {
            // another process sharing the catalog may have created it since we loaded
            catalog.topic(name).ifPresent(this::rememberAndOpen);
        }
        if (byName.containsKey(name)) {
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new InvalidPartitionsException(
                    "Number of partitions must be between 1 and " + MAX_PARTITIONS + ".");
        }
        validateConfigs(overrides);
        if (validateOnly) {
            return new TopicInfo(name, new UUID(0, 0), partitions, overrides);
        }
        TopicRecord t;
        try {
            t = catalog.createTopic(name, partitions, overrides);
        } catch (io.tierlog.catalog.TopicConflictException e) {
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        configs.put(name, t.configs());
        hints.writeQuietly(new TopicInfo(t.name(), t.id(), t.partitions(), t.configs()));
        int created = 0;
        try {
            for (; created < partitions; created++) {
                logs.getOrCreate(new TopicPartition(name, created));
            }
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            rollBackCreate(name, partitions, created, e);
            throw creationFailure(name, partitions, created, e);
        }
        TopicInfo info = remember(t);
        openPartitions(name, 0, partitions);
        LOG.info("created topic {} ({} partitions, id {})", name, partitions, info.id());
        return info;
    }

    /** Deletes what a failed creation made (all of it new and empty). */
    private void rollBackCreate(String name, int partitions, int created, Throwable cause) {
        LOG.warn(
                "creating topic {} failed after {} of {} partitions; deleting them: {}",
                name,
                created,
                partitions,
                cause.toString());
        try {
            deletePartitions(name);
            catalog.deleteTopic(name);
            configs.remove(name);
            hints.remove(name);
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "cannot delete the partitions of the failed topic {} now; it exists, and the"
                            + " next open creates what is missing: {}",
                    name,
                    e.toString());
        }
    }

    /**
     * The Kafka error for a creation that failed on a resource: descriptors, memory maps or disk
     * are storage errors (retriable once the operator has freed them).
     */
    private static ApiException creationFailure(
            String name, int partitions, int created, Throwable e) {
        String what =
                OpenFiles.isOutOfDescriptors(e)
                        ? "out of file descriptors"
                        : OpenFiles.isOutOfMemoryMaps(e)
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

    /**
     * Deletes a topic from both tiers (see the class comment).
     *
     * @throws UnknownTopicOrPartitionException if it does not exist
     */
    public synchronized void delete(String name) throws IOException {
        TopicInfo t = byName.get(name);
        if (t == null) {
            throw new UnknownTopicOrPartitionException("Topic '" + name + "' does not exist.");
        }
        DeleteMarkers.Marker m = markers.write(name, t.uuid());
        deleting.add(name);
        byName.remove(name);
        byId.remove(t.id());
        try {
            finishDelete(m);
        } catch (IOException | RuntimeException e) {
            // committed: the topic is gone for clients; the next open removes what is left
            LOG.warn(
                    "topic {} deleted, but removing its data failed (finished at the next open)",
                    name,
                    e);
            return;
        }
        LOG.info("deleted topic {}", name);
    }

    private void finishDelete(DeleteMarkers.Marker m) throws IOException {
        String name = m.name();
        Optional<TopicRecord> row = catalog.topic(name);
        if (row.isPresent() && !row.get().id().equals(m.id())) {
            // a topic of that name created since (by another process sharing the catalog): the
            // marker is about data no longer there, and must not delete the new topic's
            LOG.warn(
                    "topic {} exists with another id than the deletion marker's; keeping it", name);
            markers.remove(m);
            deleting.remove(name);
            return;
        }
        deletePartitions(name);
        List<ColdObject> objects = new ArrayList<>();
        if (row.isPresent() && row.get().id().equals(m.id())) {
            // the table before the catalog row: a crash between them finds the row again
            boolean deleteObjects = tableDrop.drop(name, m.id());
            if (deleteObjects) {
                for (int p = 0; p < row.get().partitions(); p++) {
                    objects.addAll(catalog.objects(name, p));
                }
            }
            catalog.deleteTopic(name);
        }
        configs.remove(name);
        coldIndex.invalidateTopic(name);
        deleteObjects.accept(objects);
        hints.remove(name); // last: a rebuild before it restores the id the marker names
        markers.remove(m);
        deleting.remove(name);
    }

    /**
     * Raises a topic's partition count (Kafka's CreatePartitions).
     *
     * @throws UnknownTopicOrPartitionException if it does not exist
     * @throws InvalidPartitionsException if {@code total} is not above the current count or too big
     */
    public synchronized TopicInfo addPartitions(String name, int total) throws IOException {
        TopicInfo t = byName.get(name);
        if (t == null) {
            throw new UnknownTopicOrPartitionException("Topic '" + name + "' does not exist.");
        }
        if (total <= t.partitions() || total > MAX_PARTITIONS) {
            throw new InvalidPartitionsException(
                    "Topic '"
                            + name
                            + "' has "
                            + t.partitions()
                            + " partitions; the new count must be above that and at most "
                            + MAX_PARTITIONS);
        }
        TopicInfo info = remember(catalog.ensurePartitions(name, total));
        hints.writeQuietly(info);
        openPartitions(name, t.partitions(), total);
        return info;
    }

    /**
     * Replaces a topic's config overrides (Kafka's IncrementalAlterConfigs computes the full set).
     * New segments and retention passes use them; open segments keep the settings they have. With
     * {@code validateOnly}, only checks.
     *
     * @throws UnknownTopicOrPartitionException if it does not exist
     * @throws InvalidConfigurationException unknown config key or bad value
     */
    public synchronized TopicInfo alterConfigs(
            String name, Map<String, String> overrides, boolean validateOnly) {
        TopicInfo current = byName.get(name);
        if (current == null) {
            throw new UnknownTopicOrPartitionException("Topic '" + name + "' does not exist.");
        }
        validateConfigs(overrides);
        if (validateOnly) {
            return new TopicInfo(name, current.uuid(), current.partitions(), overrides);
        }
        TopicRecord t = catalog.updateTopicConfigs(name, overrides);
        configs.put(name, t.configs());
        TopicInfo info = remember(t);
        hints.writeQuietly(info);
        logs.reconfigure(name);
        LOG.info("topic {} configs are now {}", name, t.configs());
        return info;
    }

    /** {@link #alterConfigs(String, Map, boolean)} without {@code validateOnly}. */
    public TopicInfo alterConfigs(String name, Map<String, String> overrides) {
        return alterConfigs(name, overrides, false);
    }

    /**
     * Replaces the dynamic broker configs of this node or of the cluster default (Kafka's broker
     * names, {@code log.retention.ms}, {@code message.max.bytes}, ...): durable when this returns,
     * and in effect at once for every topic without its own override (new segments and the next
     * retention pass). With {@code validateOnly}, only checks.
     *
     * @throws InvalidRequestException a key Kafka does not let change dynamically (or tierlog
     *     cannot apply), or a bad value (Kafka answers INVALID_REQUEST for both)
     */
    public synchronized void alterBrokerConfigs(
            boolean clusterDefault, Map<String, String> configsByBrokerKey, boolean validateOnly) {
        DynamicBrokerConfigs.Scope scope = scope(clusterDefault);
        TopicConfigChecks.checkBroker(configs, scope, configsByBrokerKey);
        if (validateOnly) {
            return;
        }
        configs.dynamic().replace(scope, configsByBrokerKey);
        logs.reconfigure(null);
        LOG.info(
                "dynamic broker configs of {} are now {}",
                clusterDefault ? "the cluster default" : "this node",
                configsByBrokerKey);
    }

    /**
     * Checks topic overrides: every key a Kafka topic config ({@link KafkaTopicConfigs}, validated
     * as Kafka validates it) or one of {@link #tierlogTopicOptions}, then a valid effective config.
     * An empty {@code cleanup.policy} (no cleanup) is refused.
     *
     * @throws InvalidConfigurationException naming the first problem
     */
    public void validateConfigs(Map<String, String> overrides) {
        TopicConfigChecks.checkTopic(configs, overrides);
    }

    /**
     * Renames the topic configs an older release stored under tierlog's own names to Kafka's
     * ({@code message.max.bytes} to {@code max.message.bytes}), in the catalog, once.
     */
    private static TopicRecord upgradeConfigs(Catalog catalog, TopicRecord t) {
        Map<String, String> upgraded = KafkaTopicConfigs.upgrade(t.configs());
        if (upgraded == t.configs()) {
            return t;
        }
        try {
            TopicRecord u = catalog.updateTopicConfigs(t.name(), upgraded);
            LOG.info(
                    "topic {}: config {} renamed to Kafka's {}",
                    t.name(),
                    KafkaTopicConfigs.LEGACY_MESSAGE_MAX_BYTES,
                    KafkaTopicConfigs.MAX_MESSAGE_BYTES);
            return u;
        } catch (RuntimeException e) {
            // the old key still acts (TopicConfigs maps it on read); retried at the next open
            LOG.warn("cannot rename the configs of topic {} now: {}", t.name(), e.toString());
            return t;
        }
    }

    // ---------------------------------------------------------------- wiring

    /** Registers a listener of appends to every partition, present and future. */
    void addAppendListener(AppendListener l) {
        listeners.add(l);
    }

    /** Where deleted topics' cold objects go (total retention's deleter). */
    void onDeletedObjects(Consumer<List<ColdObject>> deleter) {
        this.deleteObjects = deleter;
    }

    private TopicInfo remember(TopicRecord t) {
        TopicInfo info = new TopicInfo(t.name(), t.id(), t.partitions(), t.configs());
        TopicInfo old = byName.put(t.name(), info);
        if (old != null && !old.uuid().equals(info.uuid())) {
            byId.remove(old.id());
        }
        byId.put(info.id(), info);
        configs.put(t.name(), t.configs());
        return info;
    }

    private void rememberAndOpen(TopicRecord t) {
        hints.writeQuietly(remember(t));
        try {
            openPartitions(t.name(), 0, t.partitions());
        } catch (IOException e) {
            LOG.warn("cannot open the partitions of topic {} now: {}", t.name(), e.toString());
        }
    }

    private void openPartitions(String name, int from, int to) throws IOException {
        for (int i = from; i < to; i++) {
            PartitionLog pl = logs.getOrCreate(new TopicPartition(name, i));
            if (listened.add(pl)) {
                pl.addListener(dispatch);
            }
        }
    }

    private void deletePartitions(String topic) throws IOException {
        for (PartitionLog pl : logs.partitions()) {
            if (pl.topicPartition().topic().equals(topic)) {
                listened.remove(pl);
                logs.delete(pl.topicPartition());
            }
        }
    }
}

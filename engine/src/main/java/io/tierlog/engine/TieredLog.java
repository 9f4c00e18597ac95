package io.tierlog.engine;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tierlog.catalog.Catalog;
import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.PassResult;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.ReadOnlyLogDir;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One log per partition across two tiers: the embeddable tierlog library.
 *
 * <p><b>Tiers.</b> Appends go to the hot tier (Kafka segment files under {@code data.dir/log}).
 * Closed segments are offloaded by the compactor to Parquet objects in an S3-compatible store,
 * committed in the catalog (embedded default: SQLite {@code data.dir/catalog.db}, s3proxy under
 * {@code data.dir/s3}, offload on). A hot segment is deleted by {@code local.retention.ms/bytes}
 * only once the catalog holds every offset in it; {@code retention.ms/bytes} bound the whole log
 * and delete the oldest cold objects (catalog first, then the object; the orphan sweeper deletes
 * what a crash left behind).
 *
 * <p><b>Reads.</b> {@link #read} serves an offset at or above the hot log start from the hot tier
 * (a zero-copy {@link FileSlice}, completed immediately on the caller's thread, never blocking);
 * below it, from the cold tier through the catalog: completed at once from the decoded-batch cache
 * when it holds the offset, else on the engine's own cold-read executor (the caller's thread, for
 * example a Netty event loop, never waits for S3 or JDBC). Where both tiers hold an offset, the hot
 * tier answers. A cold read stops at the end of its object and before the hot log start, so a
 * reader that continues at {@link TierRead#nextOffset()} crosses into the hot tier with no gap and
 * no duplicate. An offset below the log start (the one {@link #deleteRecords} moved, else the cold
 * log start, or the hot log start when the cold tier is empty) or above the high watermark fails
 * with Kafka's {@link OffsetOutOfRangeException}; an unknown partition with {@link
 * UnknownTopicOrPartitionException}; a cold read while the object store or catalog is unavailable
 * with the retriable {@link ColdReadException}, and succeeds again once it is back. Hot appends and
 * reads never depend on S3. A {@link Isolation#READ_COMMITTED} read ends at the last stable offset
 * and names the aborted transactions of its batches (hot: the {@code .txnindex}; cold: the objects'
 * {@code batch_txn_state}; nothing at or above the LSO is ever offloaded).
 *
 * <p><b>Offsets.</b> {@link #earliestOffset} is the first offset of either tier, {@link
 * #latestOffset} the hot high watermark; {@link #offsetForTimestamp} searches the cold tier's time
 * ranges (catalog) and the object's records, then the hot time index, and returns the first offset
 * whose record timestamp is at or after the target.
 *
 * <p><b>Hot tier only.</b> With {@code tiered.enabled=false} the engine opens the hot tier and the
 * catalog (which holds the topics, {@link TopicRegistry}) but no object store, offloader or cold
 * reader: reads below the hot log start fail with {@link OffsetOutOfRangeException}, and retention
 * deletes hot segments unbounded by any cold copy.
 *
 * <p>The caller closes the log. Thread-safe: every method may be called from any thread. The work
 * is done by package-private parts: {@link TieredLogBuilder} and {@link EngineResources} (opening
 * and wiring), {@link TierReads} (the read path), {@link LogStart} (log start offset,
 * DeleteRecords), {@link TimestampQueries} (timestamp and max-timestamp queries across tiers).
 */
public final class TieredLog implements Closeable {
    private final EngineResources res;
    private final Catalog catalog;
    private final LogManager logs;
    private final ColdIndex coldIndex;
    private final ColdReader coldReader;
    private final Optional<Compactor> compactor;
    private final ColdRetention retention;
    private final TopicRegistry topics;
    private final MeterRegistry registry;
    private final Counter hotBytesIn;
    private final LogStart logStart;
    private final TierReads reads;
    private final TierAppends appends;
    private final Transactions transactions;
    private final TimestampQueries timestamps;

    TieredLog(EngineResources res) {
        this.res = res;
        this.catalog = res.catalog();
        this.logs = res.logs();
        this.coldIndex = res.coldIndex();
        this.coldReader = res.coldReader();
        this.compactor = res.compactor();
        this.retention = res.retention();
        this.topics = res.topics();
        this.registry = res.registry();
        this.hotBytesIn = registry.counter(MetricNames.BYTES_IN, "tier", "hot");
        this.logStart = new LogStart(res);
        this.reads = new TierReads(res, logStart);
        this.appends =
                new TierAppends(
                        reads::hot,
                        hotBytesIn,
                        new SchemaGuard(res.topicConfigs(), this::schemaRegistry, registry));
        this.transactions = new Transactions(reads::hot);
        this.timestamps = new TimestampQueries(res, reads, logStart);
    }

    /**
     * Opens (creating if needed) the log described by {@code config} with a private meter registry.
     * See {@link EngineOptions}, {@code HotTierOptions}, {@code ColdTierOptions} and {@code
     * CompactorOptions} for the keys; with an empty config everything lives under {@code ./data}.
     *
     * @throws io.tierlog.common.ConfigException for an invalid setting (nothing is started)
     */
    public static TieredLog open(Config config) throws IOException {
        return builder(config).open();
    }

    /**
     * As {@link #open(Config)}, registering the engine's metrics ({@link MetricNames}) in {@code
     * registry}.
     */
    public static TieredLog open(Config config, MeterRegistry registry) throws IOException {
        return builder(config).meterRegistry(registry).open();
    }

    /**
     * As {@link #open(Config, MeterRegistry)}, with the clock of retention, rolls and expiry, and
     * with the lock of the hot log dir ({@code <data.dir>/log}, from {@link #lock}) already taken
     * by the caller, who took it before starting anything of its own: see {@link
     * TieredLogBuilder#time} and {@link TieredLogBuilder#lock}.
     *
     * @throws IllegalArgumentException if {@code lock} is not on {@code <data.dir>/log}
     */
    public static TieredLog open(
            Config config, MeterRegistry registry, Time time, io.tierlog.common.DirLock lock)
            throws IOException {
        return builder(config)
                .meterRegistry(registry)
                .time(time)
                .lock(java.util.Objects.requireNonNull(lock))
                .open();
    }

    /**
     * A builder of a log opened with {@code config}: the clock, the threads and the rest of what it
     * runs on, each with a default (see {@link TieredLogBuilder}).
     */
    public static TieredLogBuilder builder(Config config) {
        return new TieredLogBuilder(config);
    }

    /**
     * Takes the lock of the hot log dir {@code logDir} ({@code <data.dir>/log}, created if needed)
     * for {@link TieredLogBuilder#lock}.
     *
     * @throws IOException if another process holds it
     */
    public static io.tierlog.common.DirLock lock(java.nio.file.Path logDir) throws IOException {
        java.nio.file.Files.createDirectories(logDir);
        return LogManager.lock(logDir);
    }

    // ---------------------------------------------------------------- topics

    /**
     * Creates a topic in both tiers, with topic-level overrides of any hot-tier or retention key
     * (see {@link TopicRegistry#create}). Idempotent when the topic exists with the same partition
     * count and configs.
     *
     * @throws org.apache.kafka.common.errors.InvalidTopicException for a bad name
     * @throws org.apache.kafka.common.errors.InvalidConfigurationException for an invalid config
     * @throws io.tierlog.catalog.TopicConflictException if it exists with other settings
     */
    public void createTopic(String name, int partitions, Map<String, String> configs)
            throws IOException {
        Optional<TopicInfo> t = topics.topic(name);
        if (t.isEmpty()) {
            try {
                topics.create(name, partitions, configs, false);
                return;
            } catch (org.apache.kafka.common.errors.TopicExistsException e) {
                t = topics.topic(name); // created meanwhile, or found in a shared catalog
            }
        }
        if (t.isPresent()
                && (t.get().partitions() != partitions
                        || !t.get().configs().equals(new java.util.TreeMap<>(configs)))) {
            throw new io.tierlog.catalog.TopicConflictException(
                    "topic '"
                            + name
                            + "' already exists with "
                            + t.get().partitions()
                            + " partitions and configs "
                            + t.get().configs(),
                    null);
        }
    }

    /** Names of all topics, sorted (from memory). */
    public List<String> topics() {
        return topics.topics().stream().map(TopicInfo::name).toList();
    }

    /** The topic's id, partition count and configs, if it exists (from memory). */
    public Optional<TopicInfo> topic(String name) {
        return topics.topic(name);
    }

    /** The registry of topics: lookups, create, delete, partitions and configs. */
    public TopicRegistry topicRegistry() {
        return topics;
    }

    /**
     * Deletes a topic from both tiers: the hot partitions (folders removed), the catalog rows, then
     * the cold objects (any the store refuses now are orphans the sweeper removes later). No-op for
     * an unknown topic.
     */
    public void deleteTopic(String name) throws IOException {
        if (topics.topic(name).isPresent()) {
            try {
                topics.delete(name);
                if (res.freshness() != null) {
                    res.freshness().forget(name); // its lag gauges go with it
                }
                return;
            } catch (UnknownTopicOrPartitionException e) {
                // deleted meanwhile: remove what may be left below
            }
        }
        // partitions made behind the registry's back (a test's or tool's getOrCreate)
        for (PartitionLog l : logs.partitions()) {
            if (l.topicPartition().topic().equals(name)) {
                logs.delete(l.topicPartition());
            }
        }
    }

    /** Registers a listener told of every append to any partition, present or future. */
    public void addAppendListener(AppendListener listener) {
        topics.addAppendListener(listener);
    }

    // ---------------------------------------------------------------- append

    /**
     * Appends record batches (magic v2, as a producer sends them) to the hot tier: validated,
     * offsets assigned, idempotent producers' sequences checked (a retried batch is answered with
     * its original offsets, {@link Appended#duplicate()}). Failures are Kafka's exceptions, so a
     * server answers with {@code Errors.forException}: {@code CorruptRecordException}, {@code
     * RecordTooLargeException}, {@code InvalidTimestampException}, {@code InvalidRecordException},
     * {@code UnsupportedForMessageFormatException} for a bad batch (nothing written); {@code
     * OutOfOrderSequenceException}, {@code InvalidProducerEpochException} (fenced), {@code
     * UnknownProducerIdException} for producer state; {@code KafkaStorageException} when the
     * partition is offline after a storage fault (retriable). A topic with {@code
     * confluent.value.schema.validation} or {@code confluent.key.schema.validation} on refuses a
     * batch holding a record without a schema id registered under the topic's subject with {@link
     * RecordValidationException} (nothing written; its record errors give each refused record's
     * index), and with {@code KafkaStorageException} while the schema registry cannot answer.
     * Counts the bytes in {@code tierlog_bytes_in_total{tier="hot"}}.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     * @throws IOException if the write failed (rolled back; the producer may retry)
     */
    public Appended append(TopicPartition tp, ByteBuffer batches) throws IOException {
        return append(tp, batches, true).orElseThrow();
    }

    /**
     * As {@link #append(TopicPartition, ByteBuffer)} when that needs no blocking call, for a caller
     * on a thread that must never block (a Netty event loop): the batches are validated and written
     * into the active segment's page cache (write, no fsync), or, when the append would roll a
     * segment (creating files, writing a producer snapshot), allocate index pages, reopen a file,
     * fsync, or wait for the partition's lock, nothing is written and the result is empty: the
     * caller then calls {@link #append(TopicPartition, ByteBuffer)} from a thread that may block.
     * Failures as there.
     *
     * @return the append, or empty when it must be done where blocking is allowed
     */
    public Optional<Appended> appendWithoutBlocking(TopicPartition tp, ByteBuffer batches)
            throws IOException {
        return append(tp, batches, false);
    }

    private Optional<Appended> append(TopicPartition tp, ByteBuffer batches, boolean mayBlock)
            throws IOException {
        return appends.append(tp, batches, mayBlock, TxnVerification.NONE);
    }

    /** As {@link #append(TopicPartition, ByteBuffer)}, with the records' buffer (not consumed). */
    public Appended append(TopicPartition tp, MemoryRecords records) throws IOException {
        return append(tp, records.buffer().duplicate());
    }

    // ---------------------------------------------------------------- read

    /**
     * Reads whole batches from the one holding {@code offset}: at most {@code maxBytes} unless the
     * first batch alone is larger (then exactly it), never past the high watermark; empty at the
     * high watermark. Hot reads and cold reads served from the cache complete before this returns;
     * other cold reads complete on the cold-read executor. Failures (see the class comment)
     * complete the future exceptionally, except an unknown partition, which throws.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     */
    public CompletableFuture<TierRead> read(TopicPartition tp, long offset, int maxBytes) {
        return reads.read(tp, offset, maxBytes);
    }

    /**
     * As {@link #read(TopicPartition, long, int)} with an isolation level: {@link
     * Isolation#READ_COMMITTED} ends at the last stable offset and carries the aborted transactions
     * of the range ({@link TierRead#abortedTransactions()}).
     */
    public CompletableFuture<TierRead> read(
            TopicPartition tp, long offset, int maxBytes, Isolation isolation) {
        return reads.read(tp, offset, maxBytes, isolation);
    }

    /**
     * The schema registry over this engine's catalog (shared by every server and offload daemon of
     * the catalog); the server serves its REST API. Open as long as the log; closed with it.
     */
    public io.tierlog.registry.CatalogSchemaRegistry schemaRegistry() {
        return res.schemaRegistry();
    }

    /** The partition side of transactions: markers, verification, last stable offset. */
    public Transactions transactions() {
        return transactions;
    }

    /**
     * As {@link #append(TopicPartition, ByteBuffer)} for transactional batches, with the token of a
     * KIP-890 verification ({@link TxnVerification#NONE} when none was needed). A transactional
     * batch starting a transaction in the partition without the token the partition handed out
     * ({@link Transactions#startVerification}), or a non-transactional batch of a producer whose
     * transaction is open there, fails with {@code InvalidTxnStateException}.
     */
    public Appended append(TopicPartition tp, ByteBuffer batches, TxnVerification verification)
            throws IOException {
        return appends.append(tp, batches, true, verification).orElseThrow();
    }

    /** As {@link #appendWithoutBlocking(TopicPartition, ByteBuffer)} with a verification token. */
    public Optional<Appended> appendWithoutBlocking(
            TopicPartition tp, ByteBuffer batches, TxnVerification verification)
            throws IOException {
        return appends.append(tp, batches, false, verification);
    }

    // ---------------------------------------------------------------- offsets

    /**
     * The first offset either tier holds: the cold log start when the cold tier holds data and
     * starts lower, else the hot log start. From memory (never calls the catalog).
     */
    public long earliestOffset(TopicPartition tp) {
        PartitionLog log = hot(tp);
        return logStart.earliest(tp, log);
    }

    /**
     * Moves the partition's log start offset to {@code offset} (Kafka's DeleteRecords; {@code -1}
     * means the high watermark) in both tiers, never back: the catalog records it first (the commit
     * point: one transaction that also drops the cold objects lying wholly below it), then the hot
     * tier deletes its segments wholly below it, then the dropped objects are deleted from the
     * store (any left by a failure or a crash are orphans the sweeper deletes). From then on reads
     * below it fail with {@link OffsetOutOfRangeException} and {@link #earliestOffset} answers it;
     * records below it in a batch or object that straddles it are still in the bytes a read
     * returns, as Kafka returns the whole first batch. Survives restarts: the engine gives the
     * catalog's log start to the hot tier at every open. Blocks (JDBC, disk): never call it on an
     * event loop.
     *
     * @return the log start offset now (Kafka's low watermark); the current one, unchanged, when
     *     {@code offset} is below it
     * @throws OffsetOutOfRangeException if {@code offset} is above the high watermark or negative
     *     (other than -1)
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     * @throws org.apache.kafka.common.errors.KafkaStorageException if the catalog cannot be written
     *     or is not this data dir's own (retriable: nothing was deleted)
     */
    public long deleteRecords(TopicPartition tp, long offset) throws IOException {
        return logStart.deleteRecords(tp, hot(tp), offset);
    }

    /** The high watermark: the next offset to be written and read (hot tier end). */
    public long latestOffset(TopicPartition tp) {
        return hot(tp).highWatermark();
    }

    /**
     * Both tiers' offsets of a partition, from memory: the hot tier's, and the cold tier's as this
     * engine last loaded them (after each of its commits and retention passes, and at least every
     * housekeeping interval while the cold tier is served). Never calls the catalog or blocks, so
     * an event loop may ask.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     */
    public LogOffsets offsets(TopicPartition tp) {
        return logStart.offsets(tp, hot(tp));
    }

    /**
     * True when this engine has a cold tier (an object store to offload to and read from); false
     * with {@code tiered.enabled=false}. Kafka's "remote log enabled" for ListOffsets -5 and -6.
     */
    public boolean tiered() {
        return coldReader != null;
    }

    /**
     * The idempotent and transactional producers the partition's hot tier remembers (from appends,
     * markers and producer snapshots, until {@code producer.id.expiration.ms}; never while a
     * transaction of theirs is open), with their coordinator epoch and open transaction's first
     * offset (DescribeProducers). From memory, never blocks.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     */
    public List<ActiveProducer> activeProducers(TopicPartition tp) {
        List<ActiveProducer> out = new ArrayList<>();
        for (io.tierlog.hot.ProducerEntry e : hot(tp).producerStates()) {
            out.add(
                    new ActiveProducer(
                            e.producerId(),
                            e.producerEpoch(),
                            e.lastSequence(),
                            e.lastTimestamp(),
                            e.coordinatorEpoch(),
                            e.currentTxnFirstOffset()));
        }
        return out;
    }

    /** As {@link #offsets}, as a completed future (kept for callers written when it could load). */
    public CompletableFuture<LogOffsets> offsetsAsync(TopicPartition tp) {
        return CompletableFuture.completedFuture(offsets(tp));
    }

    /**
     * The first record whose timestamp is at or after {@code timestampMs}, searching the cold tier
     * first (catalog time ranges, then the object's records, on the cold-read executor), then the
     * hot time index. Empty when no record is that recent.
     */
    public CompletableFuture<Optional<TimestampOffset>> offsetForTimestamp(
            TopicPartition tp, long timestampMs) {
        return timestamps.offsetForTimestamp(tp, timestampMs);
    }

    /**
     * The largest record timestamp and the offset of the first record carrying it (Kafka's
     * ListOffsets -3), over both tiers. When the cold tier holds the largest timestamp, its object
     * is read to find that record (the catalog knows only the object's range). May query the
     * catalog and read a cold object: call it off an event loop.
     */
    public Optional<TimestampOffset> maxTimestamp(TopicPartition tp) {
        return timestamps.maxTimestamp(tp);
    }

    // ---------------------------------------------------------------- maintenance

    /**
     * Runs the background work once, now, in this thread: hot housekeeping (rolls, flushes), one
     * offload pass (if offload is enabled), total retention on the cold tier, then local retention
     * again (segments just offloaded may go). For tests, CLIs and {@code
     * engine.background.enabled=false}.
     */
    public MaintenanceResult maintain() throws IOException, InterruptedException {
        logs.runHousekeeping();
        PassResult pass = null;
        if (compactor.isPresent()) {
            pass = compactor.get().runOnce();
            for (PartitionLog l : logs.partitions()) {
                coldIndex.refreshQuietly(l.topicPartition());
            }
        }
        int deleted =
                retention != null && res.guard().allows("total retention pass")
                        ? retention.apply()
                        : 0;
        logs.runHousekeeping();
        return new MaintenanceResult(Optional.ofNullable(pass), deleted);
    }

    /** Sweeps orphaned objects now (normally done by the offload loop every sweep interval). */
    public int sweepOrphans() throws IOException {
        return compactor.isPresent() ? compactor.get().sweepOrphans().deleted() : 0;
    }

    /** Each Iceberg table's state (topics that are tables only), for {@code tierlog inspect}. */
    public List<io.tierlog.iceberg.TableState> tableStates(Optional<String> topic) {
        return TableStates.of(res.tables(), catalog, topic);
    }

    /** Per-partition state of both tiers, for {@code tierlog inspect}. */
    public List<PartitionReport> inspect(Optional<String> topic) {
        try (ReadOnlyLogDir hot = ReadOnlyLogDir.open(logs.logDir())) {
            return new Inspector(catalog, coldIndex, hot, topics::isCompacted).inspect(topic);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks the invariants of both tiers (see {@link Verifier}); an empty list means all hold.
     *
     * @param deep also read every cold object in full and compare it with the hot tier where both
     *     hold offsets (otherwise only the footer and first batch of each object are read)
     */
    public List<Violation> verify(boolean deep) {
        if (res.store() == null) {
            throw new IllegalStateException(
                    "tiered.enabled=false: there is no cold tier to verify");
        }
        try (ReadOnlyLogDir hot = ReadOnlyLogDir.open(logs.logDir())) {
            // what a deep check finds corrupt in the hot tier is read from the cold tier from now
            List<Violation> out =
                    new ArrayList<>(
                            new Verifier(catalog, res.store(), hot)
                                    .rebuilder(res.rebuilder())
                                    .compactedTopics(topics::isCompacted)
                                    .onHotDamage(
                                            (tp, d) ->
                                                    logs.partition(tp)
                                                            .ifPresent(
                                                                    l ->
                                                                            l.markDamaged(
                                                                                    d.from(),
                                                                                    d.to(),
                                                                                    d
                                                                                            .description())))
                                    .verify(deep));
            TableChecks.check(
                    res.tables(),
                    catalog,
                    t ->
                            res.topicConfigs()
                                    .config(t)
                                    .get(io.tierlog.iceberg.IcebergOptions.FRESHNESS_TARGET_MS)
                                    .toMillis(),
                    res.time().milliseconds(),
                    out,
                    new ArrayList<>());
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---------------------------------------------------------------- accessors

    /** The hot tier (for tests and tools that inspect it; a server goes through this API). */
    public LogManager logManager() {
        return logs;
    }

    /** The hot tier's log dir ({@code <data.dir>/log}), absolute. */
    public java.nio.file.Path hotLogDir() {
        return logs.logDir().toAbsolutePath();
    }

    /**
     * The bytes of a partition's hot segments (Kafka's partition size in DescribeLogDirs), from
     * memory.
     *
     * @throws UnknownTopicOrPartitionException if the partition does not exist
     */
    public long hotSizeInBytes(TopicPartition tp) {
        long n = 0;
        for (io.tierlog.hot.SegmentInfo s : hot(tp).segments()) {
            n += s.sizeInBytes();
        }
        return n;
    }

    /**
     * The topics' Iceberg tables (every topic with {@code iceberg.enabled} is one): state, sync,
     * audit. {@link TopicTables#disabled()} without a cold tier.
     */
    public io.tierlog.iceberg.TopicTables topicTables() {
        return res.tables();
    }

    /** The freshness of each partition of {@code topic}'s table (empty when it is not a table). */
    public List<TableFreshness> tableFreshness(String topic) {
        return res.freshness() == null
                ? List.of()
                : res.freshness().freshness(topic).stream()
                        .map(
                                f ->
                                        new TableFreshness(
                                                f.tp().partition(),
                                                f.lagMs(),
                                                f.targetMs(),
                                                f.breaches(),
                                                f.breached()))
                        .toList();
    }

    /** What the log runs on (package tests reach the parts through it). */
    EngineResources resources() {
        return res;
    }

    /** The catalog this log commits to. */
    public Catalog catalog() {
        return catalog;
    }

    /** The registry holding the engine's metrics. */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    /** The port of the Prometheus endpoint, if {@code metrics.listen} is set. */
    public Optional<Integer> metricsPort() {
        return res.metricsEndpoint().map(MetricsEndpoint::port);
    }

    /** The hot log of a partition, if it exists. */
    public Optional<PartitionLog> hotLog(TopicPartition tp) {
        return logs.partition(tp);
    }

    /** The endpoint of the object store (the embedded server's when embedded). */
    public Config objectStoreConfig() {
        return res.storeConfig();
    }

    /** Stops background work, then closes the hot tier (clean shutdown), catalog and store. */
    @Override
    public void close() throws IOException {
        reads.markClosed();
        try {
            res.close();
        } finally {
            reads.failInFlight();
        }
    }

    private PartitionLog hot(TopicPartition tp) {
        return reads.hot(tp);
    }
}

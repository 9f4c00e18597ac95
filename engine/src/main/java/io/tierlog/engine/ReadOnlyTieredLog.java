package io.tierlog.engine;

import io.tierlog.catalog.Catalog;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.common.Config;
import io.tierlog.common.EmbeddedObjectStore;
import io.tierlog.hot.ReadOnlyLogDir;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * A read-only view of a tiered log's data dir, for {@code tierlog inspect} and {@code tierlog
 * verify}: safe to open while a server runs on the same data dir. Unlike {@link TieredLog} it never
 * writes into the hot log dir (no lock, no recovery, no recovery-point checkpoint, no
 * clean-shutdown marker): the hot tier is read through {@link ReadOnlyLogDir}. The catalog is
 * opened {@link Catalog.OpenMode#READ_ONLY} (a SQLite file with read-only flags, never created, no
 * side files; a missing or empty catalog fails with {@link
 * io.tierlog.catalog.CatalogUnavailableException}) and only queried; objects are only read (LIST,
 * HEAD, ranged GET). No file or directory under the data dir is created or changed. With the
 * embedded object store ({@code s3.mode}, as for {@code serve}) a second embedded S3 server is
 * started on {@code <data.dir>/s3} for reading, and only when its bucket exists, so that nothing is
 * created there.
 *
 * <p>Thread-safe; the caller closes it.
 */
public final class ReadOnlyTieredLog implements Closeable {
    private final Deque<AutoCloseable> closeables;
    private final Catalog catalog;
    private final ObjectStore store;
    private final ReadOnlyLogDir hot;
    private final ColdIndex coldIndex;
    private final Config config;
    private final Path dataDir;
    private volatile List<String> notes = List.of();
    private final Config storeConfig;
    private io.tierlog.iceberg.TopicTables tables;

    private ReadOnlyTieredLog(
            Deque<AutoCloseable> closeables,
            Catalog catalog,
            ObjectStore store,
            ReadOnlyLogDir hot,
            Config config,
            Config storeConfig,
            Path dataDir) {
        this.storeConfig = storeConfig;
        this.config = config;
        this.dataDir = dataDir;
        this.closeables = closeables;
        this.catalog = catalog;
        this.store = store;
        this.hot = hot;
        this.coldIndex = new ColdIndex(catalog);
    }

    /**
     * Opens the data dir of {@code config} (the settings of {@code serve}) for reading.
     *
     * @throws NoSuchFileException if the data dir has no {@code log} folder, or the embedded
     *     store's bucket does not exist
     * @throws io.tierlog.common.ConfigException for an invalid setting
     */
    public static ReadOnlyTieredLog open(Config config) throws IOException {
        config.validate(EngineOptions.ALL);
        config.validate(io.tierlog.iceberg.IcebergOptions.all());
        Path dataDir = Path.of(config.get(EngineOptions.DATA_DIR)).toAbsolutePath().normalize();
        Path logDir = dataDir.resolve("log");
        if (!Files.isDirectory(logDir)) {
            throw new NoSuchFileException(
                    logDir.toString(), null, "not a tierlog data dir (no log folder)");
        }
        Deque<AutoCloseable> closeables = new ArrayDeque<>();
        try {
            Catalog catalog =
                    Catalog.open(
                            EngineResources.catalogUrl(config, dataDir),
                            java.util.Map.of(),
                            Catalog.OpenMode.READ_ONLY);
            closeables.push(catalog);
            Config storeConfig = config;
            if (EngineResources.embeddedS3(config)) {
                Path s3Dir = dataDir.resolve("s3");
                Path bucket = s3Dir.resolve(EmbeddedObjectStore.DEFAULT_BUCKET);
                if (!Files.isDirectory(bucket)) {
                    throw new NoSuchFileException(
                            bucket.toString(), null, "the embedded object store has no bucket");
                }
                EmbeddedObjectStore s3 = EmbeddedObjectStore.start(s3Dir);
                closeables.push(s3);
                storeConfig = config.with(s3.clientConfig().asMap());
            }
            ObjectStore store = S3ObjectStore.create(storeConfig);
            closeables.push(store);
            ReadOnlyLogDir hot = ReadOnlyLogDir.open(logDir);
            closeables.push(hot);
            return new ReadOnlyTieredLog(
                    closeables, catalog, store, hot, config, storeConfig, dataDir);
        } catch (IOException | RuntimeException | Error e) {
            closeAll(closeables, e);
            throw e;
        }
    }

    /** Per-partition state of both tiers (see {@link TieredLog#inspect}). */
    public List<PartitionReport> inspect(Optional<String> topic) {
        TopicConfigs configs;
        try {
            configs = new TopicConfigs(config, catalog, DynamicBrokerConfigs.open(dataDir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Inspector(catalog, coldIndex, hot, configs::compacted).inspect(topic);
    }

    /**
     * The invariant violations of both tiers (see {@link TieredLog#verify}), and what a lost or
     * rolled-back catalog leaves behind (see {@link CatalogAudit}: objects in the bucket the
     * catalog lacks, holes below the hot log start, a catalog that is not the data dir's).
     * Informational findings are in {@link #notes()} afterwards.
     */
    public List<Violation> verify(boolean deep) {
        TopicConfigs configs;
        try {
            configs = new TopicConfigs(config, catalog, DynamicBrokerConfigs.open(dataDir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Violation> out;
        try (io.tierlog.registry.CatalogSchemaRegistry schemas =
                io.tierlog.registry.CatalogSchemaRegistry.open(catalog)) {
            out =
                    new java.util.ArrayList<>(
                            new Verifier(catalog, store, hot)
                                    .rebuilder(
                                            io.tierlog.registry.typed.RegistryValueTyper.rebuilder(
                                                    schemas))
                                    .compactedTopics(configs::compacted)
                                    .verify(deep));
        }
        List<String> found = new java.util.ArrayList<>();
        Optional<java.util.UUID> bound;
        try {
            bound = io.tierlog.catalog.CatalogBinding.read(dataDir);
        } catch (IOException e) {
            bound = Optional.empty();
            out.add(new Violation(null, Violation.Kind.CATALOG_NOT_OWN, e.getMessage()));
        }
        new CatalogAudit(
                        catalog,
                        store,
                        hot,
                        io.tierlog.cold.ColdTierOptions.from(config).prefix(),
                        io.tierlog.compactor.CompactorOptions.from(config).orphanGrace(),
                        bound,
                        System.currentTimeMillis())
                .audit(out, found);
        TableChecks.check(
                tables(configs),
                catalog,
                t ->
                        configs.config(t)
                                .get(io.tierlog.iceberg.IcebergOptions.FRESHNESS_TARGET_MS)
                                .toMillis(),
                System.currentTimeMillis(),
                out,
                found);
        notes = List.copyOf(found);
        return out;
    }

    /**
     * The topics' tables, opened read-only on first use ({@link
     * io.tierlog.iceberg.TopicTables#openReadOnly}: nothing is created or written).
     */
    synchronized io.tierlog.iceberg.TopicTables tables(TopicConfigs configs) {
        if (tables == null) {
            tables =
                    EngineResources.openTables(
                            storeConfig,
                            catalog,
                            store,
                            dataDir,
                            configs,
                            io.tierlog.common.Time.SYSTEM,
                            true);
            closeables.push(tables);
        }
        return tables;
    }

    /** Each Iceberg table for {@code inspect} (topics that have a table only). */
    public List<TableReport> tables(Optional<String> topic) {
        TopicConfigs configs;
        try {
            configs = new TopicConfigs(config, catalog, DynamicBrokerConfigs.open(dataDir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long now = System.currentTimeMillis();
        return TableStates.of(tables(configs), catalog, topic).stream()
                .map(
                        s ->
                                TableReport.of(
                                        s,
                                        catalog,
                                        configs.config(s.topic())
                                                .get(
                                                        io.tierlog.iceberg.IcebergOptions
                                                                .FRESHNESS_TARGET_MS)
                                                .toMillis(),
                                        now))
                .toList();
    }

    /** The informational findings of the last {@link #verify}, one line each. */
    public List<String> notes() {
        return notes;
    }

    @Override
    public synchronized void close() throws IOException {
        IOException failure = new IOException("could not close every resource");
        closeAll(closeables, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private static void closeAll(Deque<AutoCloseable> closeables, Throwable failure) {
        while (!closeables.isEmpty()) {
            try {
                closeables.pop().close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}

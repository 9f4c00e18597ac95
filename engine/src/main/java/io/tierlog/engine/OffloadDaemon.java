package io.tierlog.engine;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.compactor.Compactor;
import io.tierlog.compactor.CompactorOptions;
import io.tierlog.compactor.LogDirSource;
import io.tierlog.compactor.ObjectReport;
import io.tierlog.compactor.OffloadEnvironment;
import io.tierlog.compactor.OffloadListener;
import io.tierlog.compactor.PassResult;
import io.tierlog.registry.CatalogSchemaRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;

/**
 * The offload daemon over a log dir that no tierlog engine owns (tierlog's own data dir of a
 * stopped server, or an Apache Kafka broker's log dir): it offloads closed segments of every
 * partition folder into the cold tier named by the settings ({@code catalog.url}, {@code
 * s3.endpoint}, or the embedded defaults in {@code data.dir}) and never writes into the log dir.
 * This is the engine-level face of the compactor's loop, so that a front end (the {@code tierlog
 * offload} command) needs neither the compactor's nor the catalog's types.
 *
 * <p>Thread-safe: {@link #runOnce()}, {@link #start()} and {@link #close()} may be called from any
 * thread; listeners are called from the offload threads, concurrently.
 */
public final class OffloadDaemon implements Closeable {

    /** Whether the last (active) segment of each partition may be offloaded. */
    public enum ActiveSegments {
        /** Never: only rolled segments (the directory's writer may still append). */
        EXCLUDE,
        /** Always: the writer is known to be stopped. */
        INCLUDE,
        /** When the directory holds the clean-shutdown marker of a stopped writer. */
        AUTO
    }

    /** What a daemon reports while it works; every method has a no-op default. */
    public interface Listener {
        /** A pass starts with {@code backlogBytes} of closed segments not yet in the cold tier. */
        default void onPassStarted(long backlogBytes) {}

        /** An object was committed (or found already committed). */
        default void onObjectCommitted(Committed object) {}

        /** Offloading a partition failed for this pass; it is retried on the next one. */
        default void onPartitionFailed(TopicPartition tp, Exception error) {}

        /** A pass ended. */
        default void onPassFinished(Pass pass) {}
    }

    /**
     * One object committed to the cold tier.
     *
     * @param sourceBytes bytes of the segment batches it holds
     * @param objectBytes bytes of the object in the store
     * @param key the object's key in the bucket
     */
    public record Committed(
            TopicPartition tp,
            long firstOffset,
            long lastOffset,
            long recordCount,
            long sourceBytes,
            long objectBytes,
            String key) {}

    /**
     * The totals of one pass.
     *
     * @param failedPartitions partitions whose offload failed in this pass (retried on the next)
     * @param backlogBytes bytes of closed segments still not in the cold tier after the pass
     */
    public record Pass(
            long objects,
            long records,
            long sourceBytes,
            long objectBytes,
            int failedPartitions,
            long backlogBytes) {}

    private final OffloadEnvironment env;
    private final LogDirSource source;
    private final Compactor compactor;
    private final CatalogSchemaRegistry schemaRegistry;
    private final RegistryExporter registryCopy;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final io.tierlog.iceberg.TopicTables tables;

    private OffloadDaemon(
            OffloadEnvironment env,
            LogDirSource source,
            Compactor compactor,
            CatalogSchemaRegistry schemaRegistry,
            io.tierlog.iceberg.TopicTables tables) {
        this.tables = tables;
        this.env = env;
        this.source = source;
        this.compactor = compactor;
        this.schemaRegistry = schemaRegistry;
        // the daemon registers nothing, but repairs the bucket's copy of the registry (changes a
        // crash cut short before their copy was put) on each pass of its own
        this.registryCopy =
                new RegistryExporter(
                        env.catalog().schemas(),
                        env.store(),
                        io.tierlog.cold.ColdTierOptions.from(env.config()).prefix());
    }

    /**
     * Opens the catalog and object store {@code config} names (starting the embedded S3 server when
     * {@code s3.endpoint} is empty) and a daemon over {@code logDir}. Nothing runs until {@link
     * #runOnce()} or {@link #start()}.
     *
     * @throws io.tierlog.common.ConfigException for invalid settings, or a data dir, temp dir or
     *     catalog file inside {@code logDir}
     * @throws IOException when the log dir cannot be read or the catalog is unavailable (see {@link
     *     Tools#catalogUnavailable(Throwable)})
     */
    public static OffloadDaemon open(Config config, Path logDir, ActiveSegments active)
            throws IOException {
        Time time = Time.SYSTEM; // the one clock of this run: guard checks and the loop
        OffloadEnvironment env = OffloadEnvironment.open(config, Optional.of(logDir), time);
        LogDirSource source = null;
        io.tierlog.iceberg.TopicTables tables = null;
        try {
            source = LogDirSource.open(logDir, LogDirSource.ActiveSegments.valueOf(active.name()));
            Compactor compactor =
                    Compactor.create(
                            source,
                            Optional.of(logDir),
                            env.catalog(),
                            env.store(),
                            env.config(),
                            time);
            compactor.setGuard(env.guard());
            // the log dir's topics become Iceberg tables too (a Kafka broker's history included)
            TopicConfigs topicConfigs = new TopicConfigs(env.config(), env.catalog());
            tables =
                    EngineResources.openTables(
                            env.config(),
                            env.catalog(),
                            env.store(),
                            Path.of(env.config().get(EngineOptions.DATA_DIR))
                                    .toAbsolutePath()
                                    .normalize(),
                            topicConfigs,
                            time,
                            false);
            io.tierlog.iceberg.TopicTables t = tables;
            compactor.setPins(t::pinned);
            compactor.addListener(
                    new OffloadListener() {
                        @Override
                        public void onObjectCommitted(ObjectReport r) {
                            t.onCommitted(r.tp().topic(), r.tp().partition());
                        }

                        @Override
                        public void onPassFinished(PassResult result) {
                            t.syncAll(); // the tables complete after each pass of the loop
                        }
                    });
            CatalogSchemaRegistry registry = CatalogSchemaRegistry.open(env.catalog());
            compactor.setTypedColumns(
                    new io.tierlog.compactor.RegistryTypedColumns(
                            registry, env.catalog(), CompactorOptions.from(env.config())));
            return new OffloadDaemon(env, source, compactor, registry, tables);
        } catch (IOException | RuntimeException e) {
            if (tables != null) {
                tables.close();
            }
            if (source != null) {
                source.close();
            }
            env.close();
            throw e;
        }
    }

    /** Adds a listener; add listeners before the first pass. */
    public void addListener(Listener listener) {
        compactor.addListener(
                new OffloadListener() {
                    @Override
                    public void onPassStarted(long backlogBytes) {
                        listener.onPassStarted(backlogBytes);
                    }

                    @Override
                    public void onObjectCommitted(ObjectReport r) {
                        listener.onObjectCommitted(
                                new Committed(
                                        r.tp(),
                                        r.firstOffset(),
                                        r.lastOffset(),
                                        r.recordCount(),
                                        r.sourceBytes(),
                                        r.objectBytes(),
                                        r.key()));
                    }

                    @Override
                    public void onPartitionFailed(TopicPartition tp, Exception error) {
                        listener.onPartitionFailed(tp, error);
                    }

                    @Override
                    public void onPassFinished(PassResult result) {
                        listener.onPassFinished(pass(result));
                    }
                });
    }

    /**
     * The schema registry of the daemon's catalog (the one {@code serve} on that catalog serves),
     * for typed columns at offload. Closed with the daemon.
     */
    public CatalogSchemaRegistry schemaRegistry() {
        return schemaRegistry;
    }

    /**
     * Runs one pass over every partition, then brings every topic's Iceberg table in line with the
     * catalog ({@code syncAll}: a table is complete when this returns, unless its catalog is down,
     * which is logged); returns when it is done (or the daemon closed).
     */
    public Pass runOnce() throws InterruptedException {
        registryCopy.passQuietly();
        // the pass listener syncs the tables too (the loop's path); for one pass it is done
        // before returning either way
        return pass(compactor.runOnce());
    }

    /** The tables of the daemon's topics (state, sync). */
    public io.tierlog.iceberg.TopicTables topicTables() {
        return tables;
    }

    /**
     * Starts the background loop: a pass every {@code offload.interval.ms}, with backoff while the
     * store or catalog is down. The first orphan sweep runs in the loop, so S3 or the catalog being
     * down at start does not end the daemon.
     */
    public void start() {
        registryCopy.passQuietly();
        compactor.start(true);
    }

    /**
     * Stops the loop (waiting for the running pass) and closes everything this daemon opened. Only
     * the first call does anything (a shutdown hook and the main thread may both close).
     */
    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            compactor.close();
            schemaRegistry.close();
            tables.close(); // before the catalog
        } finally {
            try {
                source.close();
            } finally {
                env.close();
            }
        }
    }

    private static Pass pass(PassResult r) {
        return new Pass(
                r.objects(),
                r.records(),
                r.sourceBytes(),
                r.objectBytes(),
                r.failedPartitions(),
                r.backlogBytes());
    }
}

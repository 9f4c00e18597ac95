package io.tierlog.server;

import io.tierlog.common.Config;
import io.tierlog.common.DirLock;
import io.tierlog.common.Time;
import io.tierlog.engine.TieredLog;
import io.tierlog.registry.http.RegistryHttpServer;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.fetch.FetchSource;
import io.tierlog.server.fetch.FetchWaiters;
import io.tierlog.server.fetch.TieredFetchSource;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.meta.MetadataService;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.net.NettyServer;
import io.tierlog.server.txn.EngineMarkerWriter;
import io.tierlog.server.txn.TxnApis;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running tierlog server: storage, metadata and the Kafka listeners, started in dependency order
 * and stopped in reverse.
 *
 * <p>Startup: validate every option; take the data dir's lock ({@code <data.dir>/log/.lock}) before
 * anything else, then check that the listener ports are free; open the engine ({@link TieredLog}:
 * the hot tier in {@code <data.dir>/log}, recovering after an unclean stop, the catalog with the
 * topics, and with {@code tiered.enabled} the object store, offloader and cold reader); open {@code
 * <data.dir>/meta} (producer ids, committed offsets, and with {@code
 * transaction.coordinator.enable} the transaction coordinator's state, replayed and its pending
 * markers re-queued); start extra services ({@link Builder#service}); build the fetch source over
 * the engine (optionally wrapped, {@link Builder#fetchSource}); bind the listeners last, so no
 * client is served before storage is ready.
 *
 * <p>Shutdown ({@link #close()}, also on SIGTERM through the CLI): stop accepting, close
 * connections and event loops, stop services, then close the engine (offload and cold reads
 * stopped, then the hot tier: flush, recovery-point checkpoint, clean-shutdown marker).
 * Thread-safe; close is idempotent.
 */
public final class TierlogServer implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(TierlogServer.class);

    private final Listener advertised;
    private final NettyServer net;
    private final TieredLog engine;
    private final GroupCoordinator groups;
    private final ScheduledExecutorService scheduler;
    private final boolean ownScheduler;
    private final Deque<AutoCloseable> services;
    private final Optional<RegistryHttpServer> registryHttp;
    private boolean closed;

    private TierlogServer(
            Listener advertised,
            NettyServer net,
            TieredLog engine,
            GroupCoordinator groups,
            ScheduledExecutorService scheduler,
            boolean ownScheduler,
            Deque<AutoCloseable> services,
            Optional<RegistryHttpServer> registryHttp) {
        this.registryHttp = registryHttp;
        this.advertised = advertised;
        this.net = net;
        this.engine = engine;
        this.groups = groups;
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
        this.services = services;
    }

    public static Builder builder(Config config) {
        return new Builder(config);
    }

    /** Starts a server with default wiring. */
    public static TierlogServer start(Config config) throws IOException {
        return builder(config).start();
    }

    /** Builder of a server; not thread-safe. */
    public static final class Builder {
        private final Config config;
        private Time time = Time.SYSTEM;
        private ScheduledExecutorService scheduler;
        private final List<Function<Path, AutoCloseable>> services = new ArrayList<>();
        private Function<FetchSource, FetchSource> fetchSource = Function.identity();

        private Builder(Config config) {
            this.config = config;
        }

        /**
         * The clock of every decision of the server and its storage: rolls, retention, offload
         * retries, producer expiry, group session and rebalance deadlines. Default: the system
         * clock.
         */
        public Builder time(Time time) {
            this.time = java.util.Objects.requireNonNull(time);
            return this;
        }

        /**
         * The timer of the server and its storage: hot-tier housekeeping, total retention, group
         * session expiry and rebalance deadlines. Owned by the caller (not shut down on close).
         * Default: the server's own two threads. Tests pass one driven by a manual clock.
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = java.util.Objects.requireNonNull(scheduler);
            return this;
        }

        /** A service started after storage and before the listeners, given the data dir. */
        public Builder service(Function<Path, AutoCloseable> starter) {
            services.add(starter);
            return this;
        }

        /** Wraps the engine's fetch source (e.g. to inject faults in a test). */
        public Builder fetchSource(Function<FetchSource, FetchSource> wrapper) {
            this.fetchSource = wrapper;
            return this;
        }

        public TierlogServer start() throws IOException {
            return TierlogServer.start(this);
        }
    }

    private static TierlogServer start(Builder b) throws IOException {
        Config config = b.config;
        config.validate(ServerOptions.all());
        Path dataDir = Paths.get(config.get(ServerOptions.DATA_DIR)).toAbsolutePath().normalize();
        Path metaDir = dataDir.resolve("meta");
        Path logDir = dataDir.resolve("log");
        List<Listener> listeners = Listener.parseList(config.get(ServerOptions.LISTENERS));
        // The data dir's lock before anything starts or is written: a second server on the same
        // data dir fails here, having started no S3 server, metrics endpoint or catalog.
        DirLock lock = TieredLog.lock(logDir);
        List<InetSocketAddress> addresses = new ArrayList<>();
        try {
            for (Listener l : listeners) {
                addresses.add(
                        l.wildcard()
                                ? new InetSocketAddress(l.port())
                                : new InetSocketAddress(l.host(), l.port()));
            }
            probeListeners(addresses);
            Optional<InetSocketAddress> registry = registryAddress(config);
            if (registry.isPresent()) {
                probeRegistry(registry.get());
            }
            Files.createDirectories(metaDir);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }

        Deque<AutoCloseable> opened = new ArrayDeque<>();
        // The server's threads, made here and handed down: the timer to the storage and the
        // group coordinator, the blocking pool to the handlers. Two timer threads, so that a long
        // housekeeping pass does not hold up a session expiry.
        boolean ownScheduler = b.scheduler == null;
        ScheduledExecutorService scheduler =
                ownScheduler
                        ? Executors.newScheduledThreadPool(2, threads("tierlog-scheduler"))
                        : b.scheduler;
        java.util.concurrent.ExecutorService blocking =
                Executors.newFixedThreadPool(16, threads("tierlog-blocking-append"));
        opened.push(
                () -> {
                    blocking.shutdown();
                    blocking.awaitTermination(30, TimeUnit.SECONDS);
                });
        TieredLog engine = null;
        DirLock unowned = lock; // until the engine owns it
        try {
            // The engine owns the hot tier (<data.dir>/log), the catalog with the topics and, with
            // tiered.enabled, the object store and the offload loop; it runs on the server's clock
            // and timer.
            unowned = null; // owned by the engine even if open fails
            engine =
                    TieredLog.builder(config.with(ServerOptions.DATA_DIR.key(), dataDir.toString()))
                            .meterRegistry(
                                    new io.micrometer.core.instrument.simple.SimpleMeterRegistry())
                            .time(b.time)
                            .scheduler(scheduler)
                            .lock(lock)
                            .open();
            FetchWaiters waiters = new FetchWaiters();
            engine.addAppendListener(waiters);
            ProducerIdManager producerIds =
                    ProducerIdManager.open(
                            metaDir, config.get(ServerOptions.PRODUCER_ID_BLOCK_SIZE));
            GroupCoordinator groups =
                    GroupCoordinator.open(
                            metaDir, scheduler, b.time, ServerOptions.offsetsDurability(config));
            opened.push(groups);
            for (Function<Path, AutoCloseable> s : b.services) {
                opened.push(s.apply(dataDir));
            }
            // The registry's endpoint before the Kafka listeners: a producer that registers its
            // schema first finds it up when the Kafka port answers.
            Optional<RegistryHttpServer> registryHttp = startRegistry(config, engine);
            registryHttp.ifPresent(opened::push);
            FetchSource source = b.fetchSource.apply(new TieredFetchSource(engine));
            NettyServer[] net = new NettyServer[1];
            MetadataService metadata =
                    new MetadataService(
                            config.get(ServerOptions.NODE_ID),
                            config.get(ServerOptions.CLUSTER_ID),
                            memoize(() -> advertised(config, listeners, net[0])),
                            engine.topicRegistry());
            io.tierlog.server.group.consumer.ConsumerGroupCoordinator consumerGroups =
                    io.tierlog.server.group.GroupApis.consumerGroups(
                            metaDir, config, groups, metadata, scheduler, b.time);
            opened.push(consumerGroups);
            // The transaction coordinator replays its journal and re-queues the markers of
            // transactions caught mid-commit before any client is served; its markers go through
            // the engine, its group completions through the group coordinator.
            TransactionCoordinator transactions = null;
            if (config.get(ServerOptions.TRANSACTION_COORDINATOR_ENABLE)) {
                transactions =
                        TransactionCoordinator.open(
                                metaDir,
                                TxnApis.coordinatorConfig(config),
                                producerIds::nextProducerId,
                                new EngineMarkerWriter(engine, blocking),
                                ApiHandlers.groupCompleter(groups, blocking),
                                blocking,
                                scheduler,
                                b.time);
                opened.push(transactions);
            }
            ApiHandlers.Parts parts =
                    new ApiHandlers.Parts(
                            config,
                            metadata,
                            engine,
                            source,
                            waiters,
                            producerIds,
                            groups,
                            consumerGroups,
                            transactions,
                            blocking);
            ApiRegistry[] registry = new ApiRegistry[1];
            registry[0] =
                    new ApiRegistry(
                            ApiHandlers.all(parts, () -> registry[0]),
                            new io.tierlog.server.dispatch.ResponseErrorLog(Time.SYSTEM),
                            ApiHandlers.features(
                                    config, transactions != null, System.currentTimeMillis()));
            net[0] =
                    NettyServer.start(
                            new NettyServer.Settings(
                                    config.get(ServerOptions.NUM_NETWORK_THREADS),
                                    config.get(ServerOptions.EPOLL_ENABLE),
                                    config.get(ServerOptions.SOCKET_REQUEST_MAX_BYTES).toIntExact(),
                                    config.get(ServerOptions.MAX_CONNECTIONS),
                                    config.get(ServerOptions.CONNECTIONS_MAX_IDLE_MS),
                                    config.get(ServerOptions.QUEUED_MAX_REQUEST_BYTES).bytes(),
                                    config.get(ServerOptions.REQUEST_RECEIVE_TIMEOUT_MS)),
                            registry[0],
                            addresses);
            log.info(
                    "tierlog serving {} from {} (advertised {})",
                    net[0].boundAddresses(),
                    dataDir,
                    metadata.advertised());
            var pool = net[0].requestMemory();
            engine.meterRegistry()
                    .gauge(
                            io.tierlog.engine.MetricNames.REQUEST_MEMORY_RESERVED_BYTES,
                            pool,
                            p -> p.reservedBytes());
            engine.meterRegistry()
                    .gauge(
                            io.tierlog.engine.MetricNames.REQUEST_MEMORY_WAITING_CONNECTIONS,
                            pool,
                            p -> p.waitingConnections());
            return new TierlogServer(
                    metadata.advertised(),
                    net[0],
                    engine,
                    groups,
                    scheduler,
                    ownScheduler,
                    opened,
                    registryHttp);
        } catch (IOException | RuntimeException e) {
            closeQuietly(opened);
            if (unowned != null) {
                unowned.close();
            }
            if (engine != null) {
                engine.close();
            }
            if (ownScheduler) {
                scheduler.shutdownNow();
            }
            throw e;
        }
    }

    /**
     * Fails with a {@link java.net.BindException} if a listener's fixed port is taken, before
     * storage is opened (recovery, the embedded S3 server and the catalog can take a while, and a
     * port that is in use is the commonest reason a first start fails). A probe, not a reservation:
     * the port is bound again, for real, last of all, and a port taken in between fails there.
     */
    private static void probeListeners(List<InetSocketAddress> addresses) throws IOException {
        for (InetSocketAddress a : addresses) {
            if (a.getPort() == 0) {
                continue;
            }
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.setReuseAddress(true); // as the real listener; no TIME_WAIT is left behind
                probe.bind(a, 1);
            } catch (IOException e) { // in use, or an address that is not this host's
                java.net.BindException be =
                        new java.net.BindException("cannot bind " + a + ": " + e.getMessage());
                be.initCause(e);
                throw be;
            }
        }
    }

    /** The address {@code schema.registry.listen} names, empty when the endpoint is off. */
    private static Optional<InetSocketAddress> registryAddress(Config config) {
        String listen = config.get(ServerOptions.SCHEMA_REGISTRY_LISTEN);
        if (listen.isEmpty()) {
            return Optional.empty();
        }
        int colon = listen.lastIndexOf(':');
        String host = listen.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(listen.substring(colon + 1));
        return Optional.of(
                host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port));
    }

    /** As {@link #probeListeners} for the registry's endpoint, naming its option. */
    private static void probeRegistry(InetSocketAddress a) throws IOException {
        try {
            probeListeners(List.of(a));
        } catch (java.net.BindException e) {
            java.net.BindException be =
                    new java.net.BindException(
                            "schema.registry.listen: "
                                    + e.getMessage()
                                    + " (set it to another host:port, or empty for no registry"
                                    + " endpoint)");
            be.initCause(e);
            throw be;
        }
    }

    /** Serves the engine's schema registry on {@code schema.registry.listen}, unless empty. */
    private static Optional<RegistryHttpServer> startRegistry(Config config, TieredLog engine)
            throws IOException {
        Optional<InetSocketAddress> a = registryAddress(config);
        if (a.isEmpty()) {
            return Optional.empty();
        }
        String listen = config.get(ServerOptions.SCHEMA_REGISTRY_LISTEN);
        String bind = listen.startsWith(":") ? "0.0.0.0" + listen : listen;
        RegistryHttpServer http = RegistryHttpServer.start(engine.schemaRegistry(), bind);
        log.info("schema registry on {}", http.uri());
        return Optional.of(http);
    }

    /** Resolves once (host name lookups can be slow), after the listeners are bound. */
    private static java.util.function.Supplier<Listener> memoize(
            java.util.function.Supplier<Listener> s) {
        java.util.concurrent.atomic.AtomicReference<Listener> cached =
                new java.util.concurrent.atomic.AtomicReference<>();
        return () -> {
            Listener l = cached.get();
            if (l == null) {
                l = s.get();
                if (l.port() != 0) {
                    cached.set(l);
                }
            }
            return l;
        };
    }

    private static Listener advertised(Config config, List<Listener> listeners, NettyServer net) {
        String adv = config.get(ServerOptions.ADVERTISED_LISTENERS);
        if (!adv.isBlank()) {
            return Listener.parseList(adv).get(0);
        }
        Listener l = listeners.get(0);
        int port = net == null ? l.port() : net.boundAddresses().get(0).getPort();
        String host = l.host();
        if (l.wildcard()) {
            try {
                host = InetAddress.getLocalHost().getCanonicalHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        return new Listener(l.name(), host, port);
    }

    /** The consumer-group coordinator (for tools and tests). */
    public GroupCoordinator groups() {
        return groups;
    }

    /** The endpoint clients are told to connect to. */
    public Listener advertised() {
        return advertised;
    }

    /** The engine this server serves (storage and topics). */
    public TieredLog engine() {
        return engine;
    }

    /**
     * The schema registry's endpoint ({@code http://host:port}), empty when {@code
     * schema.registry.listen} is empty.
     */
    public Optional<java.net.URI> schemaRegistryUri() {
        return registryHttp.map(RegistryHttpServer::uri);
    }

    /** The bound port of the first listener. */
    public int port() {
        return net.boundAddresses().get(0).getPort();
    }

    public List<InetSocketAddress> boundAddresses() {
        return net.boundAddresses();
    }

    /** The pool bounding the memory of requests being received (for metrics and tests). */
    public io.tierlog.server.net.RequestMemoryPool requestMemory() {
        return net.requestMemory();
    }

    public boolean usingEpoll() {
        return net.usingEpoll();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.info("tierlog shutting down");
        net.close();
        closeQuietly(services);
        try {
            engine.close(); // stops offload and cold reads, then closes the hot tier
        } catch (IOException e) {
            log.warn("error closing the engine", e);
        }
        if (ownScheduler) {
            scheduler.shutdownNow();
            try {
                scheduler.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        log.info("tierlog stopped");
    }

    private static java.util.concurrent.ThreadFactory threads(String name) {
        java.util.concurrent.atomic.AtomicInteger n =
                new java.util.concurrent.atomic.AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static void closeQuietly(Deque<AutoCloseable> services) {
        AutoCloseable s;
        while ((s = services.poll()) != null) {
            try {
                s.close();
            } catch (Exception e) {
                log.warn("error stopping {}", s, e);
            }
        }
    }
}

package io.tierlog.server;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;
import io.tierlog.common.Config;
import io.tierlog.common.MockTime;
import io.tierlog.engine.EngineOptions;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.fetch.FetchWaiters;
import io.tierlog.server.fetch.TieredFetchSource;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.meta.MetadataService;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.net.ZeroCopyRecords;
import io.tierlog.server.txn.EngineMarkerWriter;
import io.tierlog.server.txn.TxnApis;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * The handlers of every API area, wired as {@link TierlogServer} wires them (the engine on its hot
 * tier alone, no network) on a temporary data dir: {@link #call} hands a request body to the
 * handler of its API and returns the response body. The one place where handler tests build the
 * server's parts, so a change of those parts is made here once.
 *
 * <p>The group coordinator runs on a {@link MockTime} that tests advance by hand; request contexts
 * share one event executor, as the connections of one event loop would. Not thread-safe; close it
 * after the test.
 */
public final class ServerTestKit implements AutoCloseable {
    /** How long a test waits for a response that should come (a rebalance, a long poll). */
    public static final long TIMEOUT_SECONDS = 30;

    /** The finalized features epoch the kit's ApiVersions answers with (a fixed start time). */
    public static final long FEATURES_EPOCH = 1_700_000_000_000L;

    private final Config config;
    private final MockTime time = new MockTime();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService blocking = Executors.newFixedThreadPool(2);
    private final EventExecutor eventLoop = new DefaultEventExecutor();
    private final Promise<Void> connectionClosed;
    private final TieredLog engine;
    private final TopicRegistry topics;
    private final GroupCoordinator groups;
    private final TransactionCoordinator transactions;
    private final MetadataService metadata;
    private final ApiRegistry registry;
    private int correlationId;

    private ServerTestKit(Path dataDir, Map<String, String> settings) throws IOException {
        Map<String, String> all = new HashMap<>();
        all.put(ServerOptions.DATA_DIR.key(), dataDir.toString());
        all.put(ServerOptions.ADVERTISED_LISTENERS.key(), "PLAINTEXT://kit.example:9092");
        all.put(EngineOptions.TIERED_ENABLED.key(), "false"); // the engine on its hot tier alone
        all.putAll(settings);
        this.config = Config.of(all);
        Path metaDir = Files.createDirectories(dataDir.resolve("meta"));
        this.connectionClosed = eventLoop.newPromise();
        this.engine = TieredLog.builder(config).time(time).scheduler(scheduler).open();
        this.topics = engine.topicRegistry();
        FetchWaiters waiters = new FetchWaiters();
        engine.addAppendListener(waiters);
        ProducerIdManager producerIds =
                ProducerIdManager.open(metaDir, config.get(ServerOptions.PRODUCER_ID_BLOCK_SIZE));
        this.groups = GroupCoordinator.open(metaDir, scheduler, time);
        this.metadata =
                new MetadataService(
                        config.get(ServerOptions.NODE_ID),
                        config.get(ServerOptions.CLUSTER_ID),
                        () ->
                                Listener.parseList(config.get(ServerOptions.ADVERTISED_LISTENERS))
                                        .get(0),
                        topics);
        // With transaction.coordinator.enable, the coordinator as the server wires it, on the
        // kit's clock and timer.
        this.transactions =
                config.get(ServerOptions.TRANSACTION_COORDINATOR_ENABLE)
                        ? TransactionCoordinator.open(
                                metaDir,
                                TxnApis.coordinatorConfig(config),
                                producerIds::nextProducerId,
                                new EngineMarkerWriter(engine, blocking),
                                ApiHandlers.groupCompleter(groups, blocking),
                                blocking,
                                scheduler,
                                time)
                        : null;
        ApiHandlers.Parts parts =
                new ApiHandlers.Parts(
                        config,
                        metadata,
                        engine,
                        new TieredFetchSource(engine),
                        waiters,
                        producerIds,
                        groups,
                        io.tierlog.server.group.GroupApis.consumerGroups(
                                metaDir, config, groups, metadata, scheduler, time),
                        transactions,
                        blocking);
        ApiRegistry[] ref = new ApiRegistry[1];
        ref[0] =
                new ApiRegistry(
                        ApiHandlers.all(parts, () -> ref[0]),
                        new io.tierlog.server.dispatch.ResponseErrorLog(time),
                        ApiHandlers.features(config, transactions != null, FEATURES_EPOCH));
        this.registry = ref[0];
    }

    /** A kit with default settings on {@code dataDir}. */
    public static ServerTestKit open(Path dataDir) throws IOException {
        return open(dataDir, Map.of());
    }

    /** A kit with server settings (e.g. {@code auto.create.topics.enable}) on {@code dataDir}. */
    public static ServerTestKit open(Path dataDir, Map<String, String> settings)
            throws IOException {
        return new ServerTestKit(dataDir, settings);
    }

    /** The handler that serves {@code key}, as routed in a real server. */
    public ApiHandler handler(ApiKeys key) {
        return registry.handler(key.id).orElseThrow(() -> new AssertionError(key + " not served"));
    }

    public ApiRegistry registry() {
        return registry;
    }

    /** Sends {@code request} to its handler at {@code version}, without waiting. */
    public CompletableFuture<ApiMessage> send(ApiKeys key, short version, ApiMessage request) {
        return handler(key).handle(context(key, version), request).toCompletableFuture();
    }

    /** Sends {@code request} and waits for the response body ({@code null}: no response). */
    @SuppressWarnings("unchecked")
    public <R extends ApiMessage> R call(ApiKeys key, short version, ApiMessage request) {
        try {
            return (R) send(key, version, request).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(key + " v" + version + " failed", e);
        }
    }

    /** The context of a request from client {@code kit-client} on the kit's event loop. */
    public RequestContext context(ApiKeys key, short version) {
        return new RequestContext(
                new RequestHeader(key, version, "kit-client", ++correlationId),
                new InetSocketAddress("127.0.0.1", 40000),
                eventLoop,
                connectionClosed);
    }

    /** Creates a topic as CreateTopics would, with topic configs. */
    public TopicInfo createTopic(String name, int partitions, Map<String, String> configs) {
        try {
            return topics.create(name, partitions, configs, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public TopicInfo createTopic(String name, int partitions) {
        return createTopic(name, partitions, Map.of());
    }

    /**
     * Appends one {@link #batch} of {@code values} to a partition's hot log, as a produce would.
     */
    public void append(String topic, int partition, String... values) {
        try {
            engine.hotLog(new TopicPartition(topic, partition))
                    .orElseThrow(() -> new AssertionError(topic + "-" + partition + " has no log"))
                    .append(batch(values).buffer());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The coordinator of classic groups and of every group's offsets. */
    public GroupCoordinator groups() {
        return groups;
    }

    public MetadataService metadata() {
        return metadata;
    }

    public TopicRegistry topics() {
        return topics;
    }

    /** The engine the handlers serve from (hot tier only). */
    public TieredLog engine() {
        return engine;
    }

    public Config config() {
        return config;
    }

    /** The transaction coordinator, or null without {@code transaction.coordinator.enable}. */
    public TransactionCoordinator transactions() {
        return transactions;
    }

    /** The group coordinator's clock. */
    public MockTime time() {
        return time;
    }

    /** One uncompressed batch of {@code values} (no keys), as a non-idempotent producer sends. */
    public static MemoryRecords batch(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1_000L + i, null, values[i].getBytes());
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /**
     * The bytes of fetched records, in memory: file-backed (zero-copy) records are read from their
     * file, as the socket would receive them.
     */
    public static MemoryRecords inMemory(BaseRecords records) {
        if (records instanceof MemoryRecords m) {
            return m;
        }
        ZeroCopyRecords z = (ZeroCopyRecords) records;
        ByteBuffer buf = ByteBuffer.allocate(z.sizeInBytes());
        try (ZeroCopyRecords.Pin pin = z.pin()) {
            while (buf.hasRemaining()) {
                if (pin.channel().read(buf, z.position() + buf.position()) < 0) {
                    throw new AssertionError("records end before their size");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return MemoryRecords.readableRecords(buf.flip());
    }

    @Override
    public void close() {
        if (transactions != null) {
            try {
                transactions.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        groups.close();
        try {
            engine.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        blocking.shutdownNow();
        scheduler.shutdownNow();
        eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}

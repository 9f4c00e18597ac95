package io.tierlog.server;

import io.tierlog.common.ByteSize;
import io.tierlog.common.ConfigOption;
import io.tierlog.engine.EngineOptions;
import java.time.Duration;
import java.util.List;

/**
 * Typed options of the Kafka protocol server, with Kafka's names and meanings where Kafka has the
 * concept. Topic-level defaults of the hot tier ({@code segment.bytes}, ...) are declared by {@code
 * HotTierOptions}; {@code message.max.bytes} is one of them. Immutable constants; thread-safe.
 */
public final class ServerOptions {
    private ServerOptions() {}

    public static final ConfigOption<Integer> NODE_ID =
            ConfigOption.intOption("node.id")
                    .defaultValue(0)
                    .validator(v -> v < 0 ? "must be >= 0" : null)
                    .doc(
                            "Id of this server in Metadata responses (the only broker of its cluster).")
                    .build();

    public static final ConfigOption<String> CLUSTER_ID =
            ConfigOption.stringOption("cluster.id")
                    .defaultValue("tierlog-cluster")
                    .doc("Cluster id reported in Metadata responses.")
                    .build();

    public static final ConfigOption<String> LISTENERS =
            ConfigOption.stringOption("listeners")
                    .defaultValue("PLAINTEXT://127.0.0.1:9092")
                    .validator(Listener::validateList)
                    .doc(
                            "Comma-separated listeners to bind, NAME://host:port (PLAINTEXT only);"
                                    + " empty host = all interfaces, port 0 = any free port.")
                    .build();

    public static final ConfigOption<String> ADVERTISED_LISTENERS =
            ConfigOption.stringOption("advertised.listeners")
                    .defaultValue("")
                    .validator(v -> v.isBlank() ? null : Listener.validateList(v))
                    .doc(
                            "Listeners given to clients in Metadata responses, by listener name;"
                                    + " empty = the bound listeners (a wildcard host becomes the"
                                    + " canonical host name).")
                    .build();

    /**
     * The engine's {@code data.dir} (declared once, by the compactor, the lowest module using it).
     */
    public static final ConfigOption<String> DATA_DIR = EngineOptions.DATA_DIR;

    public static final ConfigOption<Integer> NUM_PARTITIONS =
            ConfigOption.intOption("num.partitions")
                    .defaultValue(1)
                    .validator(v -> v < 1 ? "must be >= 1" : null)
                    .doc("Partitions of an auto-created topic or of CreateTopics with -1.")
                    .build();

    public static final ConfigOption<Boolean> AUTO_CREATE_TOPICS_ENABLE =
            ConfigOption.booleanOption("auto.create.topics.enable")
                    .defaultValue(true)
                    .doc("Create a topic when a Metadata request names an unknown one.")
                    .build();

    public static final ConfigOption<Boolean> DELETE_TOPIC_ENABLE =
            ConfigOption.booleanOption("delete.topic.enable")
                    .defaultValue(true)
                    .doc("Allow DeleteTopics; when false it answers TOPIC_DELETION_DISABLED.")
                    .build();

    public static final ConfigOption<ByteSize> SOCKET_REQUEST_MAX_BYTES =
            ConfigOption.bytesOption("socket.request.max.bytes")
                    .defaultValue(ByteSize.ofBytes(104857600))
                    .validator(
                            v ->
                                    v.bytes() < 1024 || v.bytes() > Integer.MAX_VALUE - 4
                                            ? "must be between 1KiB and 2GiB"
                                            : null)
                    .doc(
                            "Largest request frame accepted; a larger (or negative) size prefix"
                                    + " closes the connection before anything is allocated.")
                    .build();

    public static final ConfigOption<ByteSize> QUEUED_MAX_REQUEST_BYTES =
            ConfigOption.bytesOption("queued.max.request.bytes")
                    .defaultValue(ByteSize.ofMiB(256))
                    .validator(
                            v ->
                                    v.bytes() < 1024 || v.bytes() > (1L << 40)
                                            ? "must be between 1KiB and 1TiB"
                                            : null)
                    .doc(
                            "Memory for requests being received and not yet processed, all"
                                    + " connections together (Kafka's key, bounded here by"
                                    + " default). A request reserves its whole size when its size"
                                    + " prefix arrives; while the pool cannot hold it the"
                                    + " connection stops being read (backpressure) until memory is"
                                    + " released. A request larger than the pool is admitted when"
                                    + " nothing else holds memory.")
                    .build();

    public static final ConfigOption<Duration> REQUEST_RECEIVE_TIMEOUT_MS =
            ConfigOption.durationOption("request.receive.timeout.ms")
                    .defaultValue(Duration.ofSeconds(30))
                    .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                    .doc(
                            "A request must arrive whole within this long of its first byte"
                                    + " (waiting for queued.max.request.bytes included); a"
                                    + " connection whose partial request is older is closed, so"
                                    + " a peer trickling bytes cannot hold memory for ever.")
                    .build();

    public static final ConfigOption<Integer> MAX_CONNECTIONS =
            ConfigOption.intOption("max.connections")
                    .defaultValue(10_000)
                    .validator(v -> v < 1 ? "must be >= 1" : null)
                    .doc("Connections accepted at once; further ones are closed at accept.")
                    .build();

    public static final ConfigOption<Duration> CONNECTIONS_MAX_IDLE_MS =
            ConfigOption.durationOption("connections.max.idle.ms")
                    .defaultValue(Duration.ofMinutes(10))
                    .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                    .doc("Close a connection that sent and received nothing for this long.")
                    .build();

    public static final ConfigOption<Integer> NUM_NETWORK_THREADS =
            ConfigOption.intOption("num.network.threads")
                    .defaultValue(0)
                    .validator(v -> v < 0 ? "must be >= 0" : null)
                    .doc(
                            "Event-loop threads serving connections (they also run requests);"
                                    + " 0 = number of CPUs.")
                    .build();

    public static final ConfigOption<Integer> PRODUCER_ID_BLOCK_SIZE =
            ConfigOption.intOption("producer.id.block.size")
                    .defaultValue(1000)
                    .validator(v -> v < 1 ? "must be >= 1" : null)
                    .doc(
                            "Producer ids reserved on disk at a time; ids of a reserved block are"
                                    + " never handed out again, even after a crash.")
                    .build();

    public static final ConfigOption<Boolean> EPOLL_ENABLE =
            ConfigOption.booleanOption("epoll.enable")
                    .defaultValue(true)
                    .doc(
                            "Use Linux epoll (native sendfile for zero-copy fetch) when available;"
                                    + " false = Java NIO.")
                    .build();

    public static final ConfigOption<String> OFFSETS_DURABILITY =
            ConfigOption.stringOption("offsets.durability")
                    .defaultValue("")
                    .validator(
                            v ->
                                    v.isEmpty() || v.equals("page_cache") || v.equals("fsync")
                                            ? null
                                            : "must be empty, page_cache or fsync")
                    .doc(
                            "When an OffsetCommit is acknowledged: page_cache = once its journal"
                                    + " record is in the page cache (survives kill -9, as Kafka),"
                                    + " fsync = after an fsync shared by concurrent commits; empty"
                                    + " = as log.durability.")
                    .build();

    /** {@link #OFFSETS_DURABILITY}, or {@code log.durability} when that is empty. */
    public static io.tierlog.server.group.coordinator.OffsetStore.Durability offsetsDurability(
            io.tierlog.common.Config config) {
        String v = config.get(OFFSETS_DURABILITY);
        if (v.isEmpty()) {
            String log = config.raw("log.durability");
            v = log == null ? "page_cache" : log.trim().toLowerCase(java.util.Locale.ROOT);
        }
        return v.equals("fsync")
                ? io.tierlog.server.group.coordinator.OffsetStore.Durability.FSYNC
                : io.tierlog.server.group.coordinator.OffsetStore.Durability.PAGE_CACHE;
    }

    public static final ConfigOption<Boolean> TRANSACTION_COORDINATOR_ENABLE =
            ConfigOption.booleanOption("transaction.coordinator.enable")
                    .defaultValue(true)
                    .doc(
                            "Serve transactions: the transaction coordinator answers"
                                    + " FindCoordinator for transactional ids and ApiVersions"
                                    + " finalizes transaction.version; false = transactional"
                                    + " producers get COORDINATOR_NOT_AVAILABLE.")
                    .build();

    public static final ConfigOption<Integer> TRANSACTION_VERSION =
            ConfigOption.intOption("transaction.version")
                    .defaultValue(2)
                    .validator(v -> v < 0 || v > 2 ? "must be 0, 1 or 2" : null)
                    .doc(
                            "The finalized level of Kafka's transaction.version feature that"
                                    + " ApiVersions advertises: 2 = KIP-890 transactions (epoch"
                                    + " bump per transaction, implicit partition add), 0 or 1 ="
                                    + " clients use the older protocol. Takes effect at restart.")
                    .build();

    public static final ConfigOption<Duration> TRANSACTION_MAX_TIMEOUT_MS =
            ConfigOption.durationOption("transaction.max.timeout.ms")
                    .defaultValue(Duration.ofMillis(900_000))
                    .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                    .doc(
                            "The largest transaction.timeout.ms a producer may ask for;"
                                    + " InitProducerId above it fails with"
                                    + " INVALID_TRANSACTION_TIMEOUT.")
                    .build();

    public static final ConfigOption<Duration>
            TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS =
                    ConfigOption.durationOption(
                                    "transaction.abort.timed.out.transaction.cleanup.interval.ms")
                            .defaultValue(Duration.ofMillis(10_000))
                            .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                            .doc(
                                    "How often the coordinator looks for transactions open"
                                            + " longer than their timeout, and aborts them.")
                            .build();

    public static final ConfigOption<Duration> TRANSACTIONAL_ID_EXPIRATION_MS =
            ConfigOption.durationOption("transactional.id.expiration.ms")
                    .defaultValue(Duration.ofMillis(604_800_000))
                    .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                    .doc(
                            "A transactional id with no transaction in progress and no request"
                                    + " for this long is forgotten.")
                    .build();

    public static final ConfigOption<Duration>
            TRANSACTION_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS =
                    ConfigOption.durationOption(
                                    "transaction.remove.expired.transaction.cleanup.interval.ms")
                            .defaultValue(Duration.ofMillis(3_600_000))
                            .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                            .doc("How often expired transactional ids are removed.")
                            .build();

    public static final ConfigOption<String> TRANSACTION_STATE_DURABILITY =
            ConfigOption.stringOption("transaction.state.durability")
                    .defaultValue("")
                    .validator(
                            v ->
                                    v.isEmpty() || v.equals("page_cache") || v.equals("fsync")
                                            ? null
                                            : "must be empty, page_cache or fsync")
                    .doc(
                            "When a transaction state change (partition added, prepare, complete)"
                                    + " counts as written: page_cache = its journal record is in"
                                    + " the page cache (survives kill -9), fsync = after an fsync"
                                    + " shared by concurrent changes; empty = as log.durability.")
                    .build();

    /** {@link #TRANSACTION_STATE_DURABILITY}, or {@code log.durability} when that is empty. */
    public static boolean transactionStateFsync(io.tierlog.common.Config config) {
        String v = config.get(TRANSACTION_STATE_DURABILITY);
        if (v.isEmpty()) {
            String log = config.raw("log.durability");
            v = log == null ? "page_cache" : log.trim().toLowerCase(java.util.Locale.ROOT);
        }
        return v.equals("fsync");
    }

    public static final ConfigOption<String> SCHEMA_REGISTRY_LISTEN =
            ConfigOption.stringOption("schema.registry.listen")
                    .defaultValue("127.0.0.1:8081")
                    .validator(ServerOptions::validListen)
                    .doc(
                            "host:port of the built-in schema registry (Confluent's Schema Registry"
                                    + " REST API over the catalog, shared by every server and"
                                    + " offload daemon of it); port 0 = any free port; empty ="
                                    + " no registry endpoint.")
                    .build();

    private static String validListen(String v) {
        if (v.isEmpty()) {
            return null;
        }
        int colon = v.lastIndexOf(':');
        if (colon <= 0) {
            return "expected host:port or empty";
        }
        try {
            int port = Integer.parseInt(v.substring(colon + 1));
            return port < 0 || port > 65535 ? "port must be 0..65535" : null;
        } catch (NumberFormatException e) {
            return "expected host:port or empty";
        }
    }

    /** The engine's option (hot tier only when false), read by the server too. */
    public static final ConfigOption<Boolean> TIERED_ENABLED =
            io.tierlog.engine.EngineOptions.TIERED_ENABLED;

    public static final ConfigOption<Duration> GROUP_CONSUMER_SESSION_TIMEOUT_MS =
            ConfigOption.durationOption("group.consumer.session.timeout.ms")
                    .defaultValue(Duration.ofSeconds(45))
                    .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                    .doc(
                            "A member of a consumer group (group.protocol=consumer) that sends no"
                                    + " heartbeat for this long is removed and its partitions"
                                    + " are reassigned.")
                    .build();

    public static final ConfigOption<Duration> GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS =
            ConfigOption.durationOption("group.consumer.heartbeat.interval.ms")
                    .defaultValue(Duration.ofSeconds(5))
                    .validator(v -> v.toMillis() < 1 ? "must be positive" : null)
                    .doc("The heartbeat interval the coordinator asks consumer-group members for.")
                    .build();

    public static final ConfigOption<String> GROUP_CONSUMER_ASSIGNORS =
            ConfigOption.stringOption("group.consumer.assignors")
                    .defaultValue("uniform,range")
                    .validator(ServerOptions::validAssignors)
                    .doc(
                            "Server-side assignors of consumer groups, comma-separated, from"
                                    + " uniform and range; the first is used unless the members"
                                    + " ask for another (group.remote.assignor).")
                    .build();

    public static final ConfigOption<Integer> GROUP_CONSUMER_MAX_SIZE =
            ConfigOption.intOption("group.consumer.max.size")
                    .defaultValue(Integer.MAX_VALUE)
                    .validator(v -> v < 1 ? "must be >= 1" : null)
                    .doc("Members a consumer group may have; a further join is refused.")
                    .build();

    private static String validAssignors(String v) {
        java.util.List<String> names = assignorNames(v);
        if (names.isEmpty()) {
            return "must name at least one assignor";
        }
        for (String n : names) {
            if (!io.tierlog.server.group.consumer.ConsumerGroupCoordinator.knownAssignors()
                    .containsKey(n)) {
                return "unknown assignor " + n + " (known: uniform, range)";
            }
        }
        return null;
    }

    /** The assignor names of a {@link #GROUP_CONSUMER_ASSIGNORS} value, in order. */
    public static java.util.List<String> assignorNames(String v) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String n : v.split(",")) {
            if (!n.isBlank()) {
                out.add(n.trim());
            }
        }
        return out;
    }

    /** Every server option, in documentation order. */
    public static List<ConfigOption<?>> all() {
        return List.of(
                NODE_ID,
                CLUSTER_ID,
                LISTENERS,
                ADVERTISED_LISTENERS,
                DATA_DIR,
                NUM_PARTITIONS,
                AUTO_CREATE_TOPICS_ENABLE,
                DELETE_TOPIC_ENABLE,
                SOCKET_REQUEST_MAX_BYTES,
                QUEUED_MAX_REQUEST_BYTES,
                REQUEST_RECEIVE_TIMEOUT_MS,
                MAX_CONNECTIONS,
                CONNECTIONS_MAX_IDLE_MS,
                NUM_NETWORK_THREADS,
                PRODUCER_ID_BLOCK_SIZE,
                OFFSETS_DURABILITY,
                TRANSACTION_COORDINATOR_ENABLE,
                TRANSACTION_VERSION,
                TRANSACTION_MAX_TIMEOUT_MS,
                TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS,
                TRANSACTIONAL_ID_EXPIRATION_MS,
                TRANSACTION_REMOVE_EXPIRED_TRANSACTION_CLEANUP_INTERVAL_MS,
                TRANSACTION_STATE_DURABILITY,
                SCHEMA_REGISTRY_LISTEN,
                EPOLL_ENABLE,
                GROUP_CONSUMER_SESSION_TIMEOUT_MS,
                GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS,
                GROUP_CONSUMER_ASSIGNORS,
                GROUP_CONSUMER_MAX_SIZE);
    }
}

package io.tierlog.server;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.hot.LogManager;
import io.tierlog.server.fetch.FetchSource;
import io.tierlog.server.fetch.FetchWaiters;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.meta.TopicRegistry;
import java.util.function.Supplier;

/**
 * Everything a request handler needs: settings, topics, the hot tier, the fetch source, producer
 * ids, long-poll waiters, and the advertised endpoint. Built once at startup by {@link
 * TierlogServer}; immutable references to thread-safe parts, so thread-safe.
 */
public final class Broker {
    private final Config config;
    private final int nodeId;
    private final String clusterId;
    private final TopicRegistry topics;
    private final LogManager logs;
    private final FetchSource fetchSource;
    private final ProducerIdManager producerIds;
    private final FetchWaiters waiters;
    private final Supplier<Listener> advertised;
    private final Time time;
    private final java.util.concurrent.Executor blockingExecutor;
    private final io.tierlog.server.group.coordinator.GroupCoordinator groups;
    private final java.util.Optional<io.tierlog.engine.TieredLog> tiered;

    public Broker(
            Config config,
            TopicRegistry topics,
            LogManager logs,
            FetchSource fetchSource,
            ProducerIdManager producerIds,
            FetchWaiters waiters,
            Supplier<Listener> advertised,
            Time time,
            java.util.concurrent.Executor blockingExecutor,
            io.tierlog.server.group.coordinator.GroupCoordinator groups) {
        this(
                config,
                topics,
                logs,
                fetchSource,
                producerIds,
                waiters,
                advertised,
                time,
                blockingExecutor,
                groups,
                java.util.Optional.empty());
    }

    /** As above, with the engine serving both tiers (cold reads, ListOffsets, topic deletion). */
    public Broker(
            Config config,
            TopicRegistry topics,
            LogManager logs,
            FetchSource fetchSource,
            ProducerIdManager producerIds,
            FetchWaiters waiters,
            Supplier<Listener> advertised,
            Time time,
            java.util.concurrent.Executor blockingExecutor,
            io.tierlog.server.group.coordinator.GroupCoordinator groups,
            java.util.Optional<io.tierlog.engine.TieredLog> tiered) {
        this.tiered = tiered;
        this.config = config;
        this.nodeId = config.get(ServerOptions.NODE_ID);
        this.clusterId = config.get(ServerOptions.CLUSTER_ID);
        this.topics = topics;
        this.logs = logs;
        this.fetchSource = fetchSource;
        this.producerIds = producerIds;
        this.waiters = waiters;
        this.advertised = advertised;
        this.time = time;
        this.blockingExecutor = blockingExecutor;
        this.groups = groups;
    }

    /** The engine serving both tiers, when {@code tiered.enabled}. */
    public java.util.Optional<io.tierlog.engine.TieredLog> tiered() {
        return tiered;
    }

    public Config config() {
        return config;
    }

    public int nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return clusterId;
    }

    public TopicRegistry topics() {
        return topics;
    }

    public LogManager logs() {
        return logs;
    }

    public FetchSource fetchSource() {
        return fetchSource;
    }

    public ProducerIdManager producerIds() {
        return producerIds;
    }

    public FetchWaiters waiters() {
        return waiters;
    }

    /** The endpoint clients are told to connect to. */
    public Listener advertised() {
        return advertised.get();
    }

    public Time time() {
        return time;
    }

    /** Runs request work that may block (fsync-durable appends), off the event loops. */
    public java.util.concurrent.Executor blockingExecutor() {
        return blockingExecutor;
    }

    /** The consumer-group coordinator (classic protocol). */
    public io.tierlog.server.group.coordinator.GroupCoordinator groups() {
        return groups;
    }
}

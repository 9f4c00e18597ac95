package io.tierlog.server;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.fetch.FetchSource;
import io.tierlog.server.fetch.FetchWaiters;
import io.tierlog.server.meta.ProducerIdManager;
import java.util.function.Supplier;

/**
 * Everything a request handler needs: settings, the engine (storage and topics, the handlers' only
 * door to both), the fetch source, producer ids, long-poll waiters, and the advertised endpoint.
 * Built once at startup by {@link TierlogServer}; immutable references to thread-safe parts, so
 * thread-safe.
 */
public final class Broker {
    private final Config config;
    private final int nodeId;
    private final String clusterId;
    private final TieredLog engine;
    private final FetchSource fetchSource;
    private final ProducerIdManager producerIds;
    private final FetchWaiters waiters;
    private final Supplier<Listener> advertised;
    private final Time time;
    private final java.util.concurrent.Executor blockingExecutor;
    private final io.tierlog.server.group.GroupCoordinator groups;

    public Broker(
            Config config,
            TieredLog engine,
            FetchSource fetchSource,
            ProducerIdManager producerIds,
            FetchWaiters waiters,
            Supplier<Listener> advertised,
            Time time,
            java.util.concurrent.Executor blockingExecutor,
            io.tierlog.server.group.GroupCoordinator groups) {
        this.config = config;
        this.nodeId = config.get(ServerOptions.NODE_ID);
        this.clusterId = config.get(ServerOptions.CLUSTER_ID);
        this.engine = engine;
        this.fetchSource = fetchSource;
        this.producerIds = producerIds;
        this.waiters = waiters;
        this.advertised = advertised;
        this.time = time;
        this.blockingExecutor = blockingExecutor;
        this.groups = groups;
    }

    /** The engine: appends, reads, offsets and topics of both tiers (or of the hot tier only). */
    public TieredLog engine() {
        return engine;
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

    /** The engine's topic registry (lookups from memory). */
    public TopicRegistry topics() {
        return engine.topicRegistry();
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
    public io.tierlog.server.group.GroupCoordinator groups() {
        return groups;
    }
}

package io.tierlog.server.fetch;

import io.tierlog.engine.Isolation;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TimestampOffset;
import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets v1-v11 with Kafka's special timestamps: -2 earliest (either tier), -1 latest (the
 * high watermark; the last stable offset for {@code isolation_level} 1, read_committed), -3 the
 * record with the largest timestamp (v7+), -4 earliest local, the hot tier's first offset (v8+), -5
 * latest tiered, the last offset offloaded to the cold tier or -1 (v9+), -6 earliest pending
 * upload, the first offset not offloaded yet (v11+); any timestamp >= 0 gives the first offset
 * whose timestamp is at least that, or offset -1 when there is none; a search by time or -3 whose
 * record a reader of the request's isolation cannot fetch yet (at or above the high watermark, or
 * the last stable offset for read_committed) answers offset -1, as Kafka's {@code
 * lastFetchableOffset} rule. A special timestamp sent with a version older than the one introducing
 * it is answered {@code UNSUPPORTED_VERSION} for that partition, as Kafka's ReplicaManager does.
 * The {@code TimeoutMs} of v10+ is not needed: searches by time finish within the handler's own
 * bound. Thread-safe.
 */
final class ListOffsetsHandler extends SyncApiHandler<ListOffsetsRequestData> {
    static final long LATEST = -1L;
    static final long EARLIEST = -2L;
    static final long MAX_TIMESTAMP = -3L;
    static final long EARLIEST_LOCAL = -4L;
    static final long LATEST_TIERED = -5L;
    static final long EARLIEST_PENDING_UPLOAD = -6L;

    private final MetadataService metadata;
    private final TieredLog engine;

    ListOffsetsHandler(MetadataService metadata, TieredLog engine, Executor blockingExecutor) {
        super(ApiKeys.LIST_OFFSETS, 11, ListOffsetsRequestData.class, blockingExecutor);
        this.metadata = metadata;
        this.engine = engine;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, ListOffsetsRequestData request, short version) {
        ListOffsetsResponseData r = new ListOffsetsResponseData();
        Isolation isolation =
                request.isolationLevel() == 1
                        ? Isolation.READ_COMMITTED
                        : Isolation.READ_UNCOMMITTED;
        for (ListOffsetsTopic t : request.topics()) {
            ListOffsetsTopicResponse tr = new ListOffsetsTopicResponse().setName(t.name());
            Optional<TopicInfo> meta = metadata.topic(t.name());
            for (ListOffsetsPartition p : t.partitions()) {
                ListOffsetsPartitionResponse pr =
                        new ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setTimestamp(-1)
                                .setOffset(-1)
                                .setLeaderEpoch(-1);
                if (meta.isEmpty()
                        || p.partitionIndex() < 0
                        || p.partitionIndex() >= meta.get().partitions()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (version < minVersion(p.timestamp())) {
                    pr.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
                } else {
                    lookup(
                            engine,
                            new TopicPartition(t.name(), p.partitionIndex()),
                            p.timestamp(),
                            isolation,
                            pr);
                }
                tr.partitions().add(pr);
            }
            r.topics().add(tr);
        }
        return r;
    }

    /** True for the special timestamps answered from the engine's memory. */
    private static boolean fromMemory(long ts) {
        return ts == LATEST
                || ts == EARLIEST
                || ts == EARLIEST_LOCAL
                || ts == LATEST_TIERED
                || ts == EARLIEST_PENDING_UPLOAD;
    }

    /** The first version that may carry a special timestamp (Kafka's per-sentinel minimum). */
    private static short minVersion(long timestamp) {
        if (timestamp == MAX_TIMESTAMP) {
            return 7;
        } else if (timestamp == EARLIEST_LOCAL) {
            return 8;
        } else if (timestamp == LATEST_TIERED) {
            return 9;
        } else if (timestamp == EARLIEST_PENDING_UPLOAD) {
            return 11;
        }
        return 0;
    }

    /**
     * Only a search by time (any timestamp but -1, -2, -4, -5 and -6) may read the catalog and cold
     * objects: such a request runs off the event loop. The others come from the engine's memory.
     */
    @Override
    protected boolean mayBlock(ListOffsetsRequestData request) {
        for (ListOffsetsTopic t : request.topics()) {
            for (ListOffsetsPartition p : t.partitions()) {
                if (!fromMemory(p.timestamp())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Across tiers: earliest is the cold log start when the cold tier holds older data, -4 the hot
     * (local) start, timestamps search the cold tier's time ranges and then the hot time index (on
     * the blocking executor, see {@link #mayBlock}).
     */
    private static void lookup(
            TieredLog engine,
            TopicPartition tp,
            long ts,
            Isolation isolation,
            ListOffsetsPartitionResponse pr) {
        try {
            if (fromMemory(ts)) {
                pr.setOffset(special(engine, engine.offsets(tp), ts, isolation));
                return;
            }
            Optional<TimestampOffset> found;
            if (ts == MAX_TIMESTAMP) {
                found = engine.maxTimestamp(tp);
            } else {
                // any other timestamp, a negative one too, is a search by time, as in Kafka:
                // below every record's timestamp it finds the first record
                found =
                        engine.offsetForTimestamp(tp, ts)
                                .get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            // Kafka's lastFetchableOffset: a record a reader of this isolation cannot fetch yet
            // (at or above the LSO for read_committed) is not an answer; offset -1
            long lastFetchable = engine.offsets(tp).lastFetchableOffset(isolation);
            found.filter(to -> to.offset() < lastFetchable).ifPresent(to -> set(pr, to));
        } catch (java.util.concurrent.ExecutionException e) {
            pr.setErrorCode(Errors.forException(e.getCause()).code());
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            pr.setErrorCode(Errors.forException(e).code());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pr.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
        }
    }

    /**
     * The offsets known from memory. Without a cold tier, -5 and -6 are -1, as Kafka answers for a
     * topic without remote storage.
     */
    private static long special(TieredLog engine, LogOffsets o, long ts, Isolation isolation) {
        if (ts == LATEST) {
            return o.lastFetchableOffset(isolation);
        } else if (ts == EARLIEST) {
            return o.logStartOffset();
        } else if (ts == EARLIEST_LOCAL) {
            return o.hotLogStartOffset();
        } else if (!engine.tiered()) {
            return -1;
        }
        return ts == LATEST_TIERED ? o.latestTieredOffset() : o.earliestPendingUploadOffset();
    }

    private static void set(ListOffsetsPartitionResponse pr, TimestampOffset to) {
        pr.setTimestamp(to.timestamp()).setOffset(to.offset());
    }
}

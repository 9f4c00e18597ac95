package io.tierlog.server.fetch;

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
 * ListOffsets with Kafka's special timestamps: -2 earliest, -1 latest (the high watermark, which is
 * also the last stable offset), -3 the record with the largest timestamp (v7+), -4 earliest local
 * (v8+); any timestamp >= 0 gives the first offset whose timestamp is at least that, or offset -1
 * when there is none. Thread-safe.
 */
final class ListOffsetsHandler extends SyncApiHandler<ListOffsetsRequestData> {
    static final long LATEST = -1L;
    static final long EARLIEST = -2L;
    static final long MAX_TIMESTAMP = -3L;
    static final long EARLIEST_LOCAL = -4L;

    private final MetadataService metadata;
    private final TieredLog engine;

    ListOffsetsHandler(MetadataService metadata, TieredLog engine, Executor blockingExecutor) {
        super(ApiKeys.LIST_OFFSETS, 8, ListOffsetsRequestData.class, blockingExecutor);
        this.metadata = metadata;
        this.engine = engine;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, ListOffsetsRequestData request, short version) {
        ListOffsetsResponseData r = new ListOffsetsResponseData();
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
                } else {
                    lookup(
                            engine,
                            new TopicPartition(t.name(), p.partitionIndex()),
                            p.timestamp(),
                            pr);
                }
                tr.partitions().add(pr);
            }
            r.topics().add(tr);
        }
        return r;
    }

    /**
     * Only a search by time (a timestamp >= 0, or -3) may read the catalog and cold objects: such a
     * request runs off the event loop. Earliest, latest and earliest-local come from the engine's
     * memory.
     */
    @Override
    protected boolean mayBlock(ListOffsetsRequestData request) {
        for (ListOffsetsTopic t : request.topics()) {
            for (ListOffsetsPartition p : t.partitions()) {
                if (p.timestamp() >= 0 || p.timestamp() == MAX_TIMESTAMP) {
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
            TieredLog engine, TopicPartition tp, long ts, ListOffsetsPartitionResponse pr) {
        try {
            if (ts == LATEST || ts == EARLIEST || ts == EARLIEST_LOCAL) {
                LogOffsets o = engine.offsets(tp);
                pr.setOffset(
                        ts == LATEST
                                ? o.highWatermark()
                                : ts == EARLIEST ? o.logStartOffset() : o.hotLogStartOffset());
            } else if (ts == MAX_TIMESTAMP) {
                engine.maxTimestamp(tp).ifPresent(to -> set(pr, to));
            } else if (ts < 0) {
                pr.setErrorCode(Errors.INVALID_REQUEST.code());
            } else {
                engine.offsetForTimestamp(tp, ts)
                        .get(60, java.util.concurrent.TimeUnit.SECONDS)
                        .ifPresent(to -> set(pr, to));
            }
        } catch (java.util.concurrent.ExecutionException e) {
            pr.setErrorCode(Errors.forException(e.getCause()).code());
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            pr.setErrorCode(Errors.forException(e).code());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            pr.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
        }
    }

    private static void set(ListOffsetsPartitionResponse pr, TimestampOffset to) {
        pr.setTimestamp(to.timestamp()).setOffset(to.offset());
    }
}

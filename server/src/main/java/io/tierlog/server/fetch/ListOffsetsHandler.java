package io.tierlog.server.fetch;

import io.tierlog.engine.TieredLog;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.TimestampOffset;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import io.tierlog.server.meta.TopicMeta;
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
    private final LogManager logs;
    private final Optional<TieredLog> tiered;

    ListOffsetsHandler(
            MetadataService metadata,
            LogManager logs,
            Optional<TieredLog> tiered,
            Executor blockingExecutor) {
        super(ListOffsetsRequestData.class, blockingExecutor);
        this.metadata = metadata;
        this.logs = logs;
        this.tiered = tiered;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_OFFSETS;
    }

    @Override
    public short maxVersion() {
        return 8;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, ListOffsetsRequestData request, short version) {
        ListOffsetsResponseData r = new ListOffsetsResponseData();
        for (ListOffsetsTopic t : request.topics()) {
            ListOffsetsTopicResponse tr = new ListOffsetsTopicResponse().setName(t.name());
            Optional<TopicMeta> meta = metadata.topic(t.name());
            for (ListOffsetsPartition p : t.partitions()) {
                ListOffsetsPartitionResponse pr =
                        new ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setTimestamp(-1)
                                .setOffset(-1)
                                .setLeaderEpoch(-1);
                Optional<PartitionLog> log =
                        meta.isEmpty()
                                ? Optional.empty()
                                : logs.partition(new TopicPartition(t.name(), p.partitionIndex()));
                if (log.isEmpty()) {
                    pr.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (tiered.isPresent()) {
                    lookupTiered(
                            tiered.get(),
                            log.get(),
                            new TopicPartition(t.name(), p.partitionIndex()),
                            p.timestamp(),
                            pr);
                } else {
                    lookup(log.get(), p.timestamp(), pr);
                }
                tr.partitions().add(pr);
            }
            r.topics().add(tr);
        }
        return r;
    }

    private static void lookup(PartitionLog log, long ts, ListOffsetsPartitionResponse pr) {
        if (ts == LATEST) {
            pr.setOffset(log.highWatermark());
        } else if (ts == EARLIEST || ts == EARLIEST_LOCAL) {
            pr.setOffset(log.logStartOffset());
        } else if (ts == MAX_TIMESTAMP) {
            log.maxTimestamp().ifPresent(to -> set(pr, to));
        } else if (ts < 0) {
            pr.setErrorCode(Errors.INVALID_REQUEST.code());
        } else {
            log.offsetForTimestamp(ts).ifPresent(to -> set(pr, to));
        }
    }

    /** Tiered ListOffsets may read the catalog and cold objects: off the event loop. */
    @Override
    protected boolean mayBlock(ListOffsetsRequestData request) {
        return tiered.isPresent();
    }

    /**
     * Across tiers: earliest is the cold log start when the cold tier holds older data, -4 the hot
     * (local) start, timestamps search the cold tier's time ranges and then the hot time index.
     * Runs on the blocking executor (see {@link #mayBlock}).
     */
    private static void lookupTiered(
            io.tierlog.engine.TieredLog tiered,
            PartitionLog log,
            TopicPartition tp,
            long ts,
            ListOffsetsPartitionResponse pr) {
        try {
            if (ts == LATEST) {
                pr.setOffset(log.highWatermark());
            } else if (ts == EARLIEST) {
                pr.setOffset(tiered.earliestOffset(tp));
            } else if (ts == EARLIEST_LOCAL) {
                pr.setOffset(log.logStartOffset());
            } else if (ts == MAX_TIMESTAMP) {
                tiered.maxTimestamp(tp).ifPresent(to -> set(pr, to));
            } else if (ts < 0) {
                pr.setErrorCode(Errors.INVALID_REQUEST.code());
            } else {
                tiered.offsetForTimestamp(tp, ts)
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

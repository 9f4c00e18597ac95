package io.tierlog.server.storage;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteRecords v0-v2: moves each partition's log start offset to the given offset ({@code -1}: the
 * high watermark) in both tiers ({@link TieredLog#deleteRecords}), answering the new low watermark.
 * As Kafka answers: {@code OFFSET_OUT_OF_RANGE} above the high watermark or for another negative
 * offset, {@code UNKNOWN_TOPIC_OR_PARTITION} for a partition that does not exist, and the current
 * low watermark without error for an offset below it. A single node is the only replica, so the
 * timeout never expires. Thread-safe.
 */
final class DeleteRecordsHandler extends SyncApiHandler<DeleteRecordsRequestData> {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(DeleteRecordsHandler.class);

    private final TieredLog engine;

    DeleteRecordsHandler(TieredLog engine, Executor blockingExecutor) {
        super(ApiKeys.DELETE_RECORDS, 2, DeleteRecordsRequestData.class, blockingExecutor);
        this.engine = engine;
    }

    /** A catalog transaction, then segment files and objects deleted: off the event loop. */
    @Override
    protected boolean mayBlock(DeleteRecordsRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, DeleteRecordsRequestData request, short version) {
        DeleteRecordsResponseData r = new DeleteRecordsResponseData();
        for (DeleteRecordsTopic t : request.topics()) {
            DeleteRecordsTopicResult tr = r.topics().find(t.name());
            if (tr == null) {
                tr = new DeleteRecordsTopicResult().setName(t.name());
                r.topics().add(tr);
            }
            for (DeleteRecordsPartition p : t.partitions()) {
                if (tr.partitions().find(p.partitionIndex()) != null) {
                    continue; // a repeated partition is answered once, as Kafka's map does
                }
                tr.partitions().add(delete(new TopicPartition(t.name(), p.partitionIndex()), p));
            }
        }
        return r;
    }

    private DeleteRecordsPartitionResult delete(TopicPartition tp, DeleteRecordsPartition p) {
        DeleteRecordsPartitionResult res =
                new DeleteRecordsPartitionResult().setPartitionIndex(p.partitionIndex());
        try {
            long low = engine.deleteRecords(tp, p.offset());
            return res.setLowWatermark(low).setErrorCode(Errors.NONE.code());
        } catch (ApiException e) {
            return res.setLowWatermark(-1).setErrorCode(Errors.forException(e).code());
        } catch (Exception e) {
            LOG.warn("DeleteRecords of {} below offset {} failed", tp, p.offset(), e);
            return res.setLowWatermark(-1).setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
        }
    }
}

package io.tierlog.server.fetch;

import io.tierlog.engine.TieredLog;
import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetForLeaderEpoch v2-v4 for a log with a single leader epoch, 0 (one node, never a leader
 * change): epoch 0 ends at the log end offset; any other epoch is unknown, answered as Kafka's
 * leader answers an epoch missing from its epoch cache ({@code UNDEFINED_EPOCH} -1 and {@code
 * UNDEFINED_EPOCH_OFFSET} -1, no error). A current leader epoch other than -1 (not checked) or 0 is
 * fenced as Kafka fences it: {@code FENCED_LEADER_EPOCH} below, {@code UNKNOWN_LEADER_EPOCH} above.
 *
 * <p>Metadata reports leader epoch -1 (unknown) and stored batches keep the producer's epoch (-1
 * for kafka-clients), so Java consumers never validate their positions with this API; it answers
 * consistently for clients that send it anyway. From memory, on the event loop. Thread-safe.
 */
final class OffsetForLeaderEpochHandler extends SyncApiHandler<OffsetForLeaderEpochRequestData> {
    static final int LEADER_EPOCH = 0;
    static final int UNDEFINED_EPOCH = -1;
    static final long UNDEFINED_EPOCH_OFFSET = -1L;

    private final MetadataService metadata;
    private final TieredLog engine;

    OffsetForLeaderEpochHandler(MetadataService metadata, TieredLog engine) {
        super(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 4, OffsetForLeaderEpochRequestData.class);
        this.metadata = metadata;
        this.engine = engine;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, OffsetForLeaderEpochRequestData request, short version) {
        OffsetForLeaderEpochResponseData r = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderTopic t : request.topics()) {
            OffsetForLeaderTopicResult tr = new OffsetForLeaderTopicResult().setTopic(t.topic());
            Optional<TopicInfo> meta = metadata.topic(t.topic());
            for (OffsetForLeaderPartition p : t.partitions()) {
                EpochEndOffset e =
                        new EpochEndOffset()
                                .setPartition(p.partition())
                                .setLeaderEpoch(UNDEFINED_EPOCH)
                                .setEndOffset(UNDEFINED_EPOCH_OFFSET);
                if (meta.isEmpty()
                        || p.partition() < 0
                        || p.partition() >= meta.get().partitions()) {
                    e.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (p.currentLeaderEpoch() >= 0 && p.currentLeaderEpoch() < LEADER_EPOCH) {
                    e.setErrorCode(Errors.FENCED_LEADER_EPOCH.code());
                } else if (p.currentLeaderEpoch() > LEADER_EPOCH) {
                    e.setErrorCode(Errors.UNKNOWN_LEADER_EPOCH.code());
                } else if (p.leaderEpoch() == LEADER_EPOCH) {
                    try {
                        long end =
                                engine.offsets(new TopicPartition(t.topic(), p.partition()))
                                        .highWatermark();
                        e.setLeaderEpoch(LEADER_EPOCH).setEndOffset(end);
                    } catch (ApiException ex) {
                        e.setErrorCode(Errors.forException(ex).code());
                    }
                }
                tr.partitions().add(e);
            }
            r.topics().add(tr);
        }
        return r;
    }
}

package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.meta.MetadataService;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetDelete (v0): removes committed offsets of a group (durably, off the event loop). As in
 * Kafka, partitions of an unknown topic answer {@code UNKNOWN_TOPIC_OR_PARTITION}, those of a topic
 * an active member subscribes to {@code GROUP_SUBSCRIBED_TO_TOPIC}; group-level errors ({@code
 * GROUP_ID_NOT_FOUND}, {@code NON_EMPTY_GROUP}) are answered without topics. Thread-safe.
 */
final class OffsetDeleteHandler extends SyncApiHandler<OffsetDeleteRequestData> {
    private final GroupCoordinator groups;
    private final MetadataService metadata;

    OffsetDeleteHandler(
            GroupCoordinator groups, MetadataService metadata, Executor blockingExecutor) {
        super(ApiKeys.OFFSET_DELETE, 0, OffsetDeleteRequestData.class, blockingExecutor);
        this.groups = groups;
        this.metadata = metadata;
    }

    @Override
    protected boolean mayBlock(OffsetDeleteRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(RequestContext context, OffsetDeleteRequestData r, short version)
            throws IOException {
        List<TopicPartition> known = new ArrayList<>();
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : r.topics()) {
            if (metadata.topic(t.name()).isPresent()) {
                for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                    known.add(new TopicPartition(t.name(), p.partitionIndex()));
                }
            }
        }
        GroupCoordinator.OffsetDeleteResult result = groups.deleteOffsets(r.groupId(), known);
        OffsetDeleteResponseData out = new OffsetDeleteResponseData();
        if (result.error() != Errors.NONE) {
            return out.setErrorCode(result.error().code());
        }
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : r.topics()) {
            OffsetDeleteResponseData.OffsetDeleteResponseTopic rt = out.topics().find(t.name());
            if (rt == null) {
                rt = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
                out.topics().add(rt);
            }
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                Errors e =
                        result.partitions()
                                .getOrDefault(
                                        new TopicPartition(t.name(), p.partitionIndex()),
                                        Errors.UNKNOWN_TOPIC_OR_PARTITION);
                if (rt.partitions().find(p.partitionIndex()) == null) {
                    rt.partitions()
                            .add(
                                    new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                                            .setPartitionIndex(p.partitionIndex())
                                            .setErrorCode(e.code()));
                }
            }
        }
        return out;
    }
}

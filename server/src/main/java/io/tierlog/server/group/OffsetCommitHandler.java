package io.tierlog.server.group;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.group.coordinator.OffsetStore;
import io.tierlog.server.meta.MetadataService;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit (v2-v9): checks the member, its group.instance.id (v7+) and generation (or accepts a
 * generation-less commit of an empty group), then persists the offsets durably (fsync, off the
 * event loop). Unknown partitions answer {@code UNKNOWN_TOPIC_OR_PARTITION}. Thread-safe.
 */
final class OffsetCommitHandler extends SyncApiHandler<OffsetCommitRequestData> {
    private final GroupCoordinator groups;
    private final ConsumerGroupCoordinator consumerGroups;
    private final MetadataService metadata;

    OffsetCommitHandler(
            GroupCoordinator groups,
            ConsumerGroupCoordinator consumerGroups,
            MetadataService metadata,
            Executor blockingExecutor) {
        super(ApiKeys.OFFSET_COMMIT, 9, OffsetCommitRequestData.class, blockingExecutor);
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.metadata = metadata;
    }

    @Override
    protected boolean mayBlock(OffsetCommitRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(RequestContext context, OffsetCommitRequestData r, short version)
            throws IOException {
        // A consumer group checks the member epoch (STALE_MEMBER_EPOCH), a classic one the
        // generation.
        Errors groupError =
                consumerGroups
                        .checkOffsetAccess(
                                r.groupId(), r.memberId(), r.generationIdOrMemberEpoch(), true)
                        .orElseGet(
                                () ->
                                        groups.checkCommit(
                                                r.groupId(),
                                                r.generationIdOrMemberEpoch(),
                                                r.memberId(),
                                                version >= 7 ? r.groupInstanceId() : null));
        if (groupError == Errors.GROUP_ID_NOT_FOUND && version < 9) {
            groupError = Errors.ILLEGAL_GENERATION; // what Kafka answers before v9
        }
        Map<TopicPartition, OffsetStore.Committed> ok = new HashMap<>();
        OffsetCommitResponseData out = new OffsetCommitResponseData();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : r.topics()) {
            OffsetCommitResponseData.OffsetCommitResponseTopic rt =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
            Optional<TopicInfo> meta = metadata.topic(t.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                Errors e = groupError;
                if (e == Errors.NONE
                        && (meta.isEmpty()
                                || p.partitionIndex() < 0
                                || p.partitionIndex() >= meta.get().partitions())) {
                    e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                }
                if (e == Errors.NONE) {
                    ok.put(
                            new TopicPartition(t.name(), p.partitionIndex()),
                            new OffsetStore.Committed(
                                    p.committedOffset(),
                                    p.committedLeaderEpoch(),
                                    p.committedMetadata()));
                }
                rt.partitions()
                        .add(
                                new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                        .setPartitionIndex(p.partitionIndex())
                                        .setErrorCode(e.code()));
            }
            out.topics().add(rt);
        }
        if (!ok.isEmpty()) {
            groups.commit(r.groupId(), ok);
        }
        return out;
    }
}

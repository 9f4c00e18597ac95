package io.tierlog.server.api;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.Broker;
import io.tierlog.server.group.OffsetStore;
import io.tierlog.server.net.RequestContext;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit (v2-v9): checks the member and generation (or accepts a generation-less commit of an
 * empty group), then persists the offsets durably (fsync, off the event loop). Unknown partitions
 * answer {@code UNKNOWN_TOPIC_OR_PARTITION}. Thread-safe.
 */
public final class OffsetCommitHandler extends SyncApiHandler<OffsetCommitRequestData> {
    public OffsetCommitHandler(Broker broker) {
        super(broker, OffsetCommitRequestData.class);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_COMMIT;
    }

    @Override
    public short maxVersion() {
        return 9;
    }

    @Override
    boolean mayBlock(OffsetCommitRequestData request) {
        return true;
    }

    @Override
    ApiMessage handle(RequestContext context, OffsetCommitRequestData r, short version)
            throws IOException {
        Errors groupError =
                broker.groups()
                        .checkCommit(r.groupId(), r.generationIdOrMemberEpoch(), r.memberId());
        Map<TopicPartition, OffsetStore.Committed> ok = new HashMap<>();
        OffsetCommitResponseData out = new OffsetCommitResponseData();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : r.topics()) {
            OffsetCommitResponseData.OffsetCommitResponseTopic rt =
                    new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.name());
            Optional<TopicInfo> meta = broker.topics().topic(t.name());
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
            broker.groups().commit(r.groupId(), ok);
        }
        return out;
    }
}

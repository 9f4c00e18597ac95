package io.tierlog.server.group;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.group.consumer.ConsumerGroupCoordinator;
import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.group.coordinator.OffsetStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetFetch (v1-v9; one group before v8, a batch of groups from v8): committed offsets, or -1
 * with no error when nothing was committed. A null topic list means every committed partition. With
 * {@code require_stable} (v7+, set by read_committed consumers) a partition whose offsets an open
 * transaction has committed answers {@code UNSTABLE_OFFSET_COMMIT} (and -1) until that transaction
 * ends, as Kafka does: the consumer retries. Thread-safe.
 */
final class OffsetFetchHandler extends SyncApiHandler<OffsetFetchRequestData> {
    private final GroupCoordinator groups;
    private final ConsumerGroupCoordinator consumerGroups;

    OffsetFetchHandler(GroupCoordinator groups, ConsumerGroupCoordinator consumerGroups) {
        super(ApiKeys.OFFSET_FETCH, 9, OffsetFetchRequestData.class);
        this.groups = groups;
        this.consumerGroups = consumerGroups;
    }

    private static short unstableError(boolean unstable) {
        return (unstable ? Errors.UNSTABLE_OFFSET_COMMIT : Errors.NONE).code();
    }

    /** (topic, partitions) asked for, or all committed ones when {@code topics} is null. */
    private Map<String, List<Integer>> wanted(String group, Map<String, List<Integer>> topics) {
        if (topics != null) {
            return topics;
        }
        Map<String, List<Integer>> all = new TreeMap<>();
        for (TopicPartition tp : groups.committed(group).keySet()) {
            all.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition());
        }
        return all;
    }

    @Override
    protected ApiMessage handle(RequestContext context, OffsetFetchRequestData r, short version) {
        OffsetFetchResponseData out = new OffsetFetchResponseData();
        boolean stable = version >= 7 && r.requireStable();
        if (version < 8) {
            Map<String, List<Integer>> asked = null;
            if (r.topics() != null) {
                asked = new TreeMap<>();
                for (OffsetFetchRequestData.OffsetFetchRequestTopic t : r.topics()) {
                    asked.put(t.name(), t.partitionIndexes());
                }
            }
            for (Map.Entry<String, List<Integer>> t : wanted(r.groupId(), asked).entrySet()) {
                OffsetFetchResponseData.OffsetFetchResponseTopic rt =
                        new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(t.getKey());
                for (int p : t.getValue()) {
                    TopicPartition tp = new TopicPartition(t.getKey(), p);
                    boolean unstable = stable && groups.hasPendingTxnOffsets(r.groupId(), tp);
                    Optional<OffsetStore.Committed> c =
                            unstable ? Optional.empty() : groups.committed(r.groupId(), tp);
                    rt.partitions()
                            .add(
                                    new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                            .setPartitionIndex(p)
                                            .setErrorCode(unstableError(unstable))
                                            .setCommittedOffset(
                                                    c.map(OffsetStore.Committed::offset)
                                                            .orElse(-1L))
                                            .setCommittedLeaderEpoch(
                                                    c.map(OffsetStore.Committed::leaderEpoch)
                                                            .orElse(-1))
                                            .setMetadata(
                                                    c.map(OffsetStore.Committed::metadata)
                                                            .orElse("")));
                }
                out.topics().add(rt);
            }
            return out;
        }
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : r.groups()) {
            Map<String, List<Integer>> asked = null;
            if (g.topics() != null) {
                asked = new TreeMap<>();
                for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                    asked.put(t.name(), t.partitionIndexes());
                }
            }
            OffsetFetchResponseData.OffsetFetchResponseGroup rg =
                    new OffsetFetchResponseData.OffsetFetchResponseGroup().setGroupId(g.groupId());
            // A member of a consumer group must fetch at its member epoch (v9+), as in Kafka.
            Errors access =
                    version >= 9
                            ? consumerGroups
                                    .checkOffsetAccess(
                                            g.groupId(), g.memberId(), g.memberEpoch(), false)
                                    .orElse(Errors.NONE)
                            : Errors.NONE;
            if (access != Errors.NONE) {
                out.groups().add(rg.setErrorCode(access.code()));
                continue;
            }
            for (Map.Entry<String, List<Integer>> t : wanted(g.groupId(), asked).entrySet()) {
                OffsetFetchResponseData.OffsetFetchResponseTopics rt =
                        new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(t.getKey());
                for (int p : t.getValue()) {
                    TopicPartition tp = new TopicPartition(t.getKey(), p);
                    boolean unstable = stable && groups.hasPendingTxnOffsets(g.groupId(), tp);
                    Optional<OffsetStore.Committed> c =
                            unstable ? Optional.empty() : groups.committed(g.groupId(), tp);
                    rt.partitions()
                            .add(
                                    new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                            .setPartitionIndex(p)
                                            .setErrorCode(unstableError(unstable))
                                            .setCommittedOffset(
                                                    c.map(OffsetStore.Committed::offset)
                                                            .orElse(-1L))
                                            .setCommittedLeaderEpoch(
                                                    c.map(OffsetStore.Committed::leaderEpoch)
                                                            .orElse(-1))
                                            .setMetadata(
                                                    c.map(OffsetStore.Committed::metadata)
                                                            .orElse("")));
                }
                rg.topics().add(rt);
            }
            out.groups().add(rg);
        }
        return out;
    }
}

package io.tierlog.server.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OffsetCommit and OffsetFetch: committed offsets come back with their epoch and metadata, by topic
 * or all at once, per group from v8; what cannot be committed is an error of its partition.
 */
class OffsetCommitAndFetchHandlersTest extends HandlerTestBase {
    private static final short COMMIT_V8 = 8;
    private static final short FETCH_V7 = 7;
    private static final short FETCH_V8 = 8;

    @BeforeEach
    void setUp() throws Exception {
        kit.createTopic("orders", 2);
    }

    private List<OffsetCommitResponsePartition> commit(
            String group, int generation, String member, String topic, int partition, long offset) {
        OffsetCommitResponseData r =
                kit.call(
                        ApiKeys.OFFSET_COMMIT,
                        COMMIT_V8,
                        new OffsetCommitRequestData()
                                .setGroupId(group)
                                .setGenerationIdOrMemberEpoch(generation)
                                .setMemberId(member)
                                .setTopics(
                                        List.of(
                                                new OffsetCommitRequestTopic()
                                                        .setName(topic)
                                                        .setPartitions(
                                                                List.of(
                                                                        new OffsetCommitRequestPartition()
                                                                                .setPartitionIndex(
                                                                                        partition)
                                                                                .setCommittedOffset(
                                                                                        offset)
                                                                                .setCommittedLeaderEpoch(
                                                                                        3)
                                                                                .setCommittedMetadata(
                                                                                        "m"
                                                                                                + offset))))));
        assertThat(r.topics()).hasSize(1);
        return r.topics().get(0).partitions();
    }

    private OffsetFetchResponseData fetchV7(String group, List<OffsetFetchRequestTopic> topics) {
        return kit.call(
                ApiKeys.OFFSET_FETCH,
                FETCH_V7,
                new OffsetFetchRequestData().setGroupId(group).setTopics(topics));
    }

    @Test
    void aGenerationlessCommitOfAnEmptyGroupIsFetchedBackWithEpochAndMetadata() {
        assertThat(commit("g", -1, "", "orders", 1, 42).get(0).errorCode())
                .isEqualTo(Errors.NONE.code());

        OffsetFetchResponseData r =
                fetchV7(
                        "g",
                        List.of(
                                new OffsetFetchRequestTopic()
                                        .setName("orders")
                                        .setPartitionIndexes(List.of(0, 1))));

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        List<OffsetFetchResponsePartition> ps = r.topics().get(0).partitions();
        assertThat(ps).hasSize(2);
        assertThat(ps.get(0).committedOffset()).as("nothing committed").isEqualTo(-1);
        assertThat(ps.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ps.get(1).committedOffset()).isEqualTo(42);
        assertThat(ps.get(1).committedLeaderEpoch()).isEqualTo(3);
        assertThat(ps.get(1).metadata()).isEqualTo("m42");
    }

    @Test
    void aNullTopicListFetchesEveryCommittedPartitionAndALaterCommitWins() {
        commit("g", -1, "", "orders", 0, 10);
        commit("g", -1, "", "orders", 0, 11);
        commit("g", -1, "", "orders", 1, 20);

        OffsetFetchResponseData r = fetchV7("g", null);

        assertThat(r.topics()).hasSize(1);
        assertThat(r.topics().get(0).partitions())
                .as("partitions in any order")
                .extracting(p -> p.partitionIndex() + "=" + p.committedOffset())
                .containsExactlyInAnyOrder("0=11", "1=20");
    }

    @Test
    void unknownPartitionsAndStaleMembersCannotCommit() {
        assertThat(commit("g", -1, "", "missing", 0, 1).get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(commit("g", -1, "", "orders", 9, 1).get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(commit("g", 1, "nobody", "orders", 0, 1).get(0).errorCode())
                .as("an unknown group before v9, as Kafka answers it")
                .isEqualTo(Errors.ILLEGAL_GENERATION.code());
        commit("g", -1, "", "orders", 1, 1);
        assertThat(commit("g", 1, "nobody", "orders", 0, 1).get(0).errorCode())
                .as("a known (Empty) group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());
        assertThat(fetchV7("g", null).topics().get(0).partitions())
                .as("only the generation-less commit was stored")
                .extracting(p -> p.partitionIndex())
                .containsExactly(1);
    }

    @Test
    void version8FetchesSeveralGroupsAtOnce() {
        commit("g1", -1, "", "orders", 0, 5);
        commit("g2", -1, "", "orders", 0, 7);

        OffsetFetchResponseData r =
                kit.call(
                        ApiKeys.OFFSET_FETCH,
                        FETCH_V8,
                        new OffsetFetchRequestData()
                                .setGroups(
                                        List.of(
                                                new OffsetFetchRequestGroup()
                                                        .setGroupId("g1")
                                                        .setTopics(
                                                                List.of(
                                                                        new OffsetFetchRequestTopics()
                                                                                .setName("orders")
                                                                                .setPartitionIndexes(
                                                                                        List.of(
                                                                                                0)))),
                                                new OffsetFetchRequestGroup()
                                                        .setGroupId("g2")
                                                        .setTopics(null))));

        assertThat(r.groups())
                .extracting(OffsetFetchResponseGroup::groupId)
                .containsExactly("g1", "g2");
        assertThat(r.groups().get(0).topics().get(0).partitions())
                .extracting(OffsetFetchResponsePartitions::committedOffset)
                .containsExactly(5L);
        assertThat(r.groups().get(1).topics().get(0).partitions())
                .extracting(OffsetFetchResponsePartitions::committedOffset)
                .containsExactly(7L);
    }
}

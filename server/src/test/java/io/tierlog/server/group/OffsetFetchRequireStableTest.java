package io.tierlog.server.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.group.coordinator.OffsetStore;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OffsetFetch with {@code require_stable} (what a read_committed consumer sends): a partition with
 * offsets pending in an open transaction answers {@code UNSTABLE_OFFSET_COMMIT} and no offset until
 * the transaction ends; other partitions, and fetches without the flag, answer as usual.
 */
class OffsetFetchRequireStableTest extends HandlerTestBase {
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);

    @BeforeEach
    void pendingOnP0() throws Exception {
        kit.createTopic("orders", 2);
        kit.groups()
                .commit(
                        "g",
                        Map.of(
                                P0, new OffsetStore.Committed(3, 0, "plain"),
                                P1, new OffsetStore.Committed(4, 0, "plain")));
        kit.groups()
                .txnCommitOffsets(
                        "g",
                        77,
                        (short) 0,
                        "",
                        -1,
                        null,
                        Map.of(P0, new OffsetStore.Committed(9, 0, "txn")));
    }

    private List<OffsetFetchResponsePartition> v7(boolean requireStable) {
        OffsetFetchResponseData r =
                kit.call(
                        ApiKeys.OFFSET_FETCH,
                        (short) 7,
                        new OffsetFetchRequestData()
                                .setGroupId("g")
                                .setRequireStable(requireStable)
                                .setTopics(
                                        List.of(
                                                new OffsetFetchRequestTopic()
                                                        .setName("orders")
                                                        .setPartitionIndexes(List.of(0, 1)))));
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        return r.topics().get(0).partitions();
    }

    private List<OffsetFetchResponsePartitions> v8AllTopics(boolean requireStable) {
        OffsetFetchResponseData r =
                kit.call(
                        ApiKeys.OFFSET_FETCH,
                        (short) 8,
                        new OffsetFetchRequestData()
                                .setRequireStable(requireStable)
                                .setGroups(
                                        List.of(
                                                new OffsetFetchRequestGroup()
                                                        .setGroupId("g")
                                                        .setTopics(
                                                                (List<OffsetFetchRequestTopics>)
                                                                        null))));
        return r.groups().get(0).topics().get(0).partitions();
    }

    @Test
    void aPartitionWithPendingTransactionalOffsetsIsUnstableUntilTheMarker() throws Exception {
        List<OffsetFetchResponsePartition> ps = v7(true);
        assertThat(ps.get(0).errorCode()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT.code());
        assertThat(ps.get(0).committedOffset()).isEqualTo(-1);
        assertThat(ps.get(1).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ps.get(1).committedOffset()).isEqualTo(4);

        List<OffsetFetchResponsePartitions> all = v8AllTopics(true);
        assertThat(all)
                .extracting(OffsetFetchResponsePartitions::partitionIndex, p -> p.errorCode())
                .containsExactlyInAnyOrder(
                        org.assertj.core.api.Assertions.tuple(
                                0, Errors.UNSTABLE_OFFSET_COMMIT.code()),
                        org.assertj.core.api.Assertions.tuple(1, Errors.NONE.code()));

        kit.groups().completeTransaction("g", 77, (short) 1, true).get();
        ps = v7(true);
        assertThat(ps.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ps.get(0).committedOffset()).isEqualTo(9);
        assertThat(ps.get(0).metadata()).isEqualTo("txn");
    }

    @Test
    void withoutRequireStableTheLastCommittedOffsetIsAnswered() {
        List<OffsetFetchResponsePartition> ps = v7(false);
        assertThat(ps.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ps.get(0).committedOffset()).isEqualTo(3);
        assertThat(v8AllTopics(false))
                .allSatisfy(p -> assertThat(p.errorCode()).isEqualTo(Errors.NONE.code()));
    }
}

package io.tierlog.server.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** OffsetForLeaderEpoch over a log with the single leader epoch 0. */
class OffsetForLeaderEpochHandlerTest extends HandlerTestBase {
    private static final short V4 = 4;

    @BeforeEach
    void setUp() {
        kit.createTopic("orders", 1);
        kit.append("orders", 0, "a", "b", "c");
    }

    private EpochEndOffset ask(String topic, int partition, int currentEpoch, int epoch) {
        OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
        topics.add(
                new OffsetForLeaderTopic()
                        .setTopic(topic)
                        .setPartitions(
                                List.of(
                                        new OffsetForLeaderPartition()
                                                .setPartition(partition)
                                                .setCurrentLeaderEpoch(currentEpoch)
                                                .setLeaderEpoch(epoch))));
        OffsetForLeaderEpochResponseData r =
                kit.call(
                        ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                        V4,
                        new OffsetForLeaderEpochRequestData().setReplicaId(-1).setTopics(topics));
        return r.topics().iterator().next().partitions().get(0);
    }

    @Test
    void epochZeroEndsAtTheLogEndOffset() {
        EpochEndOffset e = ask("orders", 0, -1, 0);
        assertThat(e.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(e.leaderEpoch()).isZero();
        assertThat(e.endOffset()).isEqualTo(3);
    }

    @Test
    void anUnknownEpochIsUndefinedWithoutAnErrorAsKafkasLeaderAnswers() {
        for (int epoch : new int[] {1, 7, -1}) {
            EpochEndOffset e = ask("orders", 0, -1, epoch);
            assertThat(e.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(e.leaderEpoch()).isEqualTo(-1);
            assertThat(e.endOffset()).isEqualTo(-1);
        }
    }

    @Test
    void aCurrentLeaderEpochAboveOursIsUnknownAndMissingPartitionsAreErrors() {
        assertThat(ask("orders", 0, 0, 0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ask("orders", 0, 5, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_LEADER_EPOCH.code());
        assertThat(ask("orders", 4, -1, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(ask("missing", 0, -1, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }
}

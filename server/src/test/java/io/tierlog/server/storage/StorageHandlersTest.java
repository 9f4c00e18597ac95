package io.tierlog.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopicCollection;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DeleteRecords and DescribeLogDirs answered as Kafka 4.4 answers them: the low watermark, {@code
 * OFFSET_OUT_OF_RANGE} above the high watermark, {@code UNKNOWN_TOPIC_OR_PARTITION}; the one hot
 * log dir with the partitions asked for.
 */
class StorageHandlersTest extends HandlerTestBase {
    private static final short V2 = 2;

    @BeforeEach
    void setUp() {
        kit.createTopic("orders", 2);
        kit.append("orders", 0, "a", "b", "c");
        kit.append("orders", 0, "d", "e");
    }

    private DeleteRecordsPartitionResult delete(String topic, int partition, long offset) {
        DeleteRecordsRequestData req =
                new DeleteRecordsRequestData()
                        .setTimeoutMs(30_000)
                        .setTopics(
                                List.of(
                                        new DeleteRecordsTopic()
                                                .setName(topic)
                                                .setPartitions(
                                                        List.of(
                                                                new DeleteRecordsPartition()
                                                                        .setPartitionIndex(
                                                                                partition)
                                                                        .setOffset(offset)))));
        DeleteRecordsResponseData r = kit.call(ApiKeys.DELETE_RECORDS, V2, req);
        assertThat(r.topics()).hasSize(1);
        return r.topics().iterator().next().partitions().iterator().next();
    }

    @Test
    void deleteRecordsAnswersTheNewLowWatermarkAndNeverMovesItBack() {
        DeleteRecordsPartitionResult r = delete("orders", 0, 2);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.lowWatermark()).isEqualTo(2);
        assertThat(kit.engine().earliestOffset(new TopicPartition("orders", 0))).isEqualTo(2);
        assertThat(delete("orders", 0, 1).lowWatermark()).isEqualTo(2);
        assertThat(delete("orders", 0, -1).lowWatermark())
                .as("-1: the high watermark")
                .isEqualTo(5);
        assertThat(kit.engine().earliestOffset(new TopicPartition("orders", 0))).isEqualTo(5);
    }

    @Test
    void aTimestampLookupNeverAnswersAnOffsetBelowTheLogStart() throws Exception {
        TopicPartition tp = new TopicPartition("orders", 0);
        // offsets 0..2 carry timestamps 1000..1002: 0 is the first at or after 1000, until it goes
        assertThat(kit.engine().offsetForTimestamp(tp, 1000).get().orElseThrow().offset()).isZero();
        delete("orders", 0, 1);
        assertThat(kit.engine().offsetForTimestamp(tp, 1000).get().orElseThrow().offset())
                .isEqualTo(1);
        assertThatReadBelowFails(tp, 0);
    }

    private void assertThatReadBelowFails(TopicPartition tp, long offset) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> kit.engine().read(tp, offset, 1 << 20).get())
                .hasCauseInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class);
    }

    @Test
    void deleteRecordsRefusesOffsetsAboveTheHighWatermarkAndUnknownPartitions() {
        DeleteRecordsPartitionResult above = delete("orders", 0, 6);
        assertThat(above.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(above.lowWatermark()).isEqualTo(-1);
        assertThat(delete("orders", 0, -2).errorCode())
                .isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(delete("orders", 7, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(delete("missing", 0, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(kit.engine().earliestOffset(new TopicPartition("orders", 0))).isZero();
    }

    @Test
    void describeLogDirsListsTheHotLogDirWithThePartitionsAskedForAndLeavesOutUnknownOnes() {
        DescribeLogDirsResponseData all =
                kit.call(
                        ApiKeys.DESCRIBE_LOG_DIRS,
                        (short) 4,
                        new DescribeLogDirsRequestData().setTopics(null));
        assertThat(all.results()).hasSize(1);
        DescribeLogDirsResult d = all.results().get(0);
        assertThat(d.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(d.logDir()).isEqualTo(kit.engine().hotLogDir().toString());
        assertThat(d.totalBytes()).isPositive();
        assertThat(d.usableBytes()).isPositive().isLessThanOrEqualTo(d.totalBytes());
        assertThat(d.topics()).hasSize(1);
        assertThat(d.topics().get(0).partitions()).hasSize(2);
        long size0 = d.topics().get(0).partitions().get(0).partitionSize();
        assertThat(size0)
                .isEqualTo(kit.engine().hotSizeInBytes(new TopicPartition("orders", 0)))
                .isPositive();
        assertThat(d.topics().get(0).partitions().get(1).partitionSize()).isZero();

        DescribableLogDirTopicCollection asked = new DescribableLogDirTopicCollection();
        asked.add(new DescribableLogDirTopic().setTopic("orders").setPartitions(List.of(1, 9)));
        asked.add(new DescribableLogDirTopic().setTopic("missing").setPartitions(List.of(0)));
        DescribeLogDirsResponseData some =
                kit.call(
                        ApiKeys.DESCRIBE_LOG_DIRS,
                        (short) 1,
                        new DescribeLogDirsRequestData().setTopics(asked));
        assertThat(some.results().get(0).topics()).hasSize(1);
        assertThat(some.results().get(0).topics().get(0).partitions())
                .extracting(p -> p.partitionIndex())
                .containsExactly(1);
    }

    @Test
    void bothApisAreAdvertisedWithTheVersionsKafkaClients44Sends() {
        assertThat(kit.handler(ApiKeys.DELETE_RECORDS).maxVersion()).isEqualTo((short) 2);
        assertThat(kit.handler(ApiKeys.DESCRIBE_LOG_DIRS).minVersion()).isEqualTo((short) 1);
        assertThat(kit.handler(ApiKeys.DESCRIBE_LOG_DIRS).maxVersion()).isEqualTo((short) 5);
    }
}

package io.tierlog.server.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ListOffsets on the hot tier: Kafka's special timestamps (latest, earliest, max timestamp,
 * earliest local) and lookups by time. Batches are written with record timestamps 1000, 1001, ...
 */
class ListOffsetsHandlerTest extends HandlerTestBase {
    private static final short V8 = 8;

    @BeforeEach
    void setUp() throws Exception {
        kit.createTopic("orders", 1);
        // offsets 0..2 at 1000..1002, then 3..4 at 1000..1001 (a second batch from the start)
        kit.append("orders", 0, "a", "b", "c");
        kit.append("orders", 0, "d", "e");
    }

    private ListOffsetsPartitionResponse list(String topic, int partition, long timestamp) {
        return list(topic, partition, timestamp, V8);
    }

    private ListOffsetsPartitionResponse list(
            String topic, int partition, long timestamp, short version) {
        ListOffsetsRequestData req =
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(
                                List.of(
                                        new ListOffsetsTopic()
                                                .setName(topic)
                                                .setPartitions(
                                                        List.of(
                                                                new ListOffsetsPartition()
                                                                        .setPartitionIndex(
                                                                                partition)
                                                                        .setTimestamp(
                                                                                timestamp)))));
        ListOffsetsResponseData r = kit.call(ApiKeys.LIST_OFFSETS, version, req);
        return r.topics().get(0).partitions().get(0);
    }

    @Test
    void latestIsTheHighWatermarkAndEarliestTheLogStart() {
        assertThat(list("orders", 0, ListOffsetsHandler.LATEST).offset()).isEqualTo(5);
        assertThat(list("orders", 0, ListOffsetsHandler.EARLIEST).offset()).isZero();
        assertThat(list("orders", 0, ListOffsetsHandler.EARLIEST_LOCAL).offset()).isZero();
    }

    @Test
    void aTimestampFindsTheFirstOffsetAtOrAfterItAndNoneBeyondTheLast() {
        ListOffsetsPartitionResponse at1002 = list("orders", 0, 1002);
        assertThat(at1002.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(at1002.offset()).isEqualTo(2);
        assertThat(at1002.timestamp()).isEqualTo(1002);
        assertThat(list("orders", 0, 0).offset()).isZero();
        assertThat(list("orders", 0, 5000).offset()).as("no record that late").isEqualTo(-1);
    }

    @Test
    void maxTimestampIsTheRecordWithTheLargestTimestamp() {
        ListOffsetsPartitionResponse max = list("orders", 0, ListOffsetsHandler.MAX_TIMESTAMP);
        assertThat(max.timestamp()).isEqualTo(1002);
        assertThat(max.offset()).isEqualTo(2);
    }

    @Test
    void unknownTopicsOrPartitionsAreErrorsAndOtherNegativeTimestampsSearchByTime() {
        assertThat(list("missing", 0, ListOffsetsHandler.LATEST).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(list("orders", 3, ListOffsetsHandler.LATEST).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        ListOffsetsPartitionResponse negative = list("orders", 0, -7);
        assertThat(negative.errorCode())
                .as("another negative timestamp is a search by time, as in Kafka")
                .isEqualTo(Errors.NONE.code());
        assertThat(negative.offset()).isZero();
    }

    @Test
    void
            withoutAColdTierLatestTieredAndEarliestPendingUploadAreMinusOneAsKafkaWithoutRemoteStorage() {
        assertThat(kit.engine().tiered()).isFalse();
        ListOffsetsPartitionResponse tiered =
                list("orders", 0, ListOffsetsHandler.LATEST_TIERED, (short) 11);
        assertThat(tiered.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(tiered.offset()).isEqualTo(-1);
        ListOffsetsPartitionResponse pending =
                list("orders", 0, ListOffsetsHandler.EARLIEST_PENDING_UPLOAD, (short) 11);
        assertThat(pending.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(pending.offset()).isEqualTo(-1);
    }

    @Test
    void aSpecialTimestampOlderThanItsVersionIsUnsupportedVersionForThatPartition() {
        assertThat(list("orders", 0, ListOffsetsHandler.LATEST_TIERED, (short) 8).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(
                        list("orders", 0, ListOffsetsHandler.EARLIEST_PENDING_UPLOAD, (short) 10)
                                .errorCode())
                .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(list("orders", 0, ListOffsetsHandler.EARLIEST_LOCAL, (short) 7).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(list("orders", 0, ListOffsetsHandler.MAX_TIMESTAMP, (short) 6).errorCode())
                .isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(list("orders", 0, ListOffsetsHandler.LATEST, (short) 1).offset()).isEqualTo(5);
    }
}

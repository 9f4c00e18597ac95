package io.tierlog.server.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Fetch, called with request bodies on a hot-tier-only server: records come back from the
 * partition's file at the asked offset, errors are per partition, and a long poll is answered by
 * the append that brings its bytes.
 */
class FetchHandlerTest extends HandlerTestBase {
    private static final short BY_NAME = 12;
    private static final short BY_ID = 13;

    private static FetchRequestData request(
            String topic, Uuid id, int partition, long offset, int maxWaitMs) {
        return new FetchRequestData()
                .setMaxWaitMs(maxWaitMs)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setTopics(
                        List.of(
                                new FetchTopic()
                                        .setTopic(topic)
                                        .setTopicId(id)
                                        .setPartitions(
                                                List.of(
                                                        new FetchPartition()
                                                                .setPartition(partition)
                                                                .setFetchOffset(offset)
                                                                .setPartitionMaxBytes(1 << 20)))));
    }

    private static PartitionData only(ApiMessage response) {
        FetchResponseData r = (FetchResponseData) response;
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.responses()).hasSize(1);
        assertThat(r.responses().get(0).partitions()).hasSize(1);
        return r.responses().get(0).partitions().get(0);
    }

    /** The one partition of a fetch of {@code partition} from {@code offset}, without waiting. */
    private PartitionData fetchOne(
            short version, String topic, Uuid id, int partition, long offset) {
        return only(kit.call(ApiKeys.FETCH, version, request(topic, id, partition, offset, 0)));
    }

    private static List<String> values(PartitionData pd) {
        List<String> out = new ArrayList<>();
        for (RecordBatch b : ServerTestKit.inMemory(pd.records()).batches()) {
            for (Record r : b) {
                out.add(r.offset() + ":" + StandardCharsets.UTF_8.decode(r.value()));
            }
        }
        return out;
    }

    @Test
    void aHotReadReturnsTheRecordsFromTheAskedOffsetWithTheHighWatermark() throws Exception {
        kit.createTopic("orders", 1);
        kit.append("orders", 0, "a", "b");
        kit.append("orders", 0, "c");

        PartitionData pd = fetchOne(BY_NAME, "orders", Uuid.ZERO_UUID, 0, 2);

        assertThat(pd.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(pd.highWatermark()).isEqualTo(3);
        assertThat(pd.logStartOffset()).isZero();
        assertThat(values(pd)).containsExactly("2:c");
    }

    @Test
    void topicsAreResolvedByIdFromVersion13() throws Exception {
        TopicInfo t = kit.createTopic("orders", 1);
        kit.append("orders", 0, "a");

        FetchResponseData r = kit.call(ApiKeys.FETCH, BY_ID, request(null, t.id(), 0, 0, 0));

        assertThat(r.responses().get(0).topicId()).isEqualTo(t.id());
        assertThat(values(only(r))).containsExactly("0:a");
    }

    @Test
    void anOffsetPastTheEndIsOutOfRange() throws Exception {
        kit.createTopic("orders", 1);
        kit.append("orders", 0, "a");

        PartitionData pd = fetchOne(BY_NAME, "orders", Uuid.ZERO_UUID, 0, 100);

        assertThat(pd.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(pd.highWatermark()).isEqualTo(1);
    }

    @Test
    void unknownTopicsPartitionsAndIdsAreErrorsOfTheirPartition() {
        kit.createTopic("orders", 1);
        assertThat(fetchOne(BY_NAME, "missing", Uuid.ZERO_UUID, 0, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(fetchOne(BY_NAME, "orders", Uuid.ZERO_UUID, 5, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(fetchOne(BY_ID, null, Uuid.randomUuid(), 0, 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }

    @Test
    void aLongPollAtTheLogEndIsAnsweredByTheNextAppend() throws Exception {
        kit.createTopic("orders", 1);
        CompletableFuture<ApiMessage> poll =
                kit.send(ApiKeys.FETCH, BY_NAME, request("orders", Uuid.ZERO_UUID, 0, 0, 60_000));
        assertThat(poll).as("nothing to return yet, and the wait is a minute").isNotDone();

        kit.append("orders", 0, "late");

        PartitionData pd = only(poll.get(ServerTestKit.TIMEOUT_SECONDS, TimeUnit.SECONDS));
        assertThat(values(pd)).containsExactly("0:late");
    }

    @Test
    void aFetchFromAReplicaIsRefusedAsThisServerHasNoFollowers() {
        FetchResponseData r =
                kit.call(
                        ApiKeys.FETCH,
                        BY_NAME,
                        request("orders", Uuid.ZERO_UUID, 0, 0, 0).setReplicaId(1));
        assertThat(r.errorCode()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
    }
}

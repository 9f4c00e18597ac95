package io.tierlog.server.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import io.tierlog.server.dispatch.CloseConnectionException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

/**
 * Produce, called with request bodies: appends land in the partition at the answered offsets, and
 * every refusal is a per-partition Kafka error code that leaves the log untouched.
 */
class ProduceHandlerTest extends HandlerTestBase {
    private static final short V9 = 9;

    private static ProduceRequestData request(
            short acks, String topic, int partition, BaseRecords r) {
        ProduceRequestData req = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
        req.topicData()
                .add(
                        new TopicProduceData()
                                .setName(topic)
                                .setPartitionData(
                                        List.of(
                                                new PartitionProduceData()
                                                        .setIndex(partition)
                                                        .setRecords(r))));
        return req;
    }

    /** The response body of one batch produced to partition 0 with {@code acks}. */
    private ProduceResponseData produceWithAcks(short acks, String topic, BaseRecords r) {
        return kit.call(ApiKeys.PRODUCE, V9, request(acks, topic, 0, r));
    }

    private PartitionProduceResponse produce(String topic, int partition, BaseRecords r) {
        ProduceResponseData resp =
                kit.call(ApiKeys.PRODUCE, V9, request((short) -1, topic, partition, r));
        assertThat(resp.responses()).hasSize(1);
        assertThat(resp.responses().iterator().next().partitionResponses()).hasSize(1);
        return resp.responses().iterator().next().partitionResponses().get(0);
    }

    private long highWatermark(String topic, int partition) {
        return kit.engine()
                .hotLog(new TopicPartition(topic, partition))
                .orElseThrow()
                .highWatermark();
    }

    @Test
    void appendsEachBatchAtTheNextOffsetAndAnswersItsBaseOffset() {
        kit.createTopic("orders", 2);
        PartitionProduceResponse first = produce("orders", 1, ServerTestKit.batch("a", "b"));
        PartitionProduceResponse second = produce("orders", 1, ServerTestKit.batch("c"));

        assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(first.baseOffset()).isZero();
        assertThat(first.logStartOffset()).isZero();
        assertThat(second.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(second.baseOffset()).isEqualTo(2);
        assertThat(highWatermark("orders", 1)).isEqualTo(3);
        assertThat(highWatermark("orders", 0)).isZero();
    }

    @Test
    void anAppendThatFitsIsAnsweredAtOnceAndOneThatRollsOffTheCallerWithTheOtherPartitions()
            throws Exception {
        MemoryRecords one = ServerTestKit.batch("x".repeat(200));
        kit.createTopic(
                "rolls",
                2,
                Map.of("internal.segment.bytes", Integer.toString(one.sizeInBytes() + 10)));
        ProduceRequestData fits =
                request((short) 1, "rolls", 0, ServerTestKit.batch("x".repeat(200)));
        java.util.concurrent.CompletableFuture<?> first = kit.send(ApiKeys.PRODUCE, V9, fits);
        assertThat(first.isDone())
                .as("a page-cache append is answered on the caller's thread (the event loop)")
                .isTrue();

        // partition 0 must roll (its segment is full); partition 1 is empty and appends in place
        ProduceRequestData both = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000);
        both.topicData()
                .add(
                        new TopicProduceData()
                                .setName("rolls")
                                .setPartitionData(
                                        List.of(
                                                new PartitionProduceData()
                                                        .setIndex(0)
                                                        .setRecords(
                                                                ServerTestKit.batch(
                                                                        "x".repeat(200))),
                                                new PartitionProduceData()
                                                        .setIndex(1)
                                                        .setRecords(ServerTestKit.batch("y")))));
        ProduceResponseData resp = kit.call(ApiKeys.PRODUCE, V9, both);

        List<PartitionProduceResponse> prs =
                resp.responses().iterator().next().partitionResponses();
        assertThat(prs).extracting(PartitionProduceResponse::index).containsExactly(0, 1);
        assertThat(prs).extracting(PartitionProduceResponse::errorCode).containsOnly((short) 0);
        assertThat(prs).extracting(PartitionProduceResponse::baseOffset).containsExactly(1L, 0L);
        assertThat(kit.engine().hotLog(new TopicPartition("rolls", 0)).orElseThrow().segments())
                .as("partition 0 rolled")
                .hasSize(2);
        assertThat(highWatermark("rolls", 0)).isEqualTo(2);
        assertThat(highWatermark("rolls", 1)).isEqualTo(1);
    }

    @Test
    void unknownTopicOrPartitionAndInvalidNamesAreRefusedPerPartition() {
        kit.createTopic("orders", 1);
        assertThat(produce("missing", 0, ServerTestKit.batch("a")).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(produce("orders", 1, ServerTestKit.batch("a")).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(produce("orders", -1, ServerTestKit.batch("a")).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(produce("bad/name", 0, ServerTestKit.batch("a")).errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(kit.topics().topic("missing")).as("produce never creates topics").isEmpty();
        assertThat(highWatermark("orders", 0)).isZero();
    }

    @Test
    void corruptOrMissingBatchesAreRefusedAndNothingIsAppended() {
        kit.createTopic("orders", 1);
        MemoryRecords good = ServerTestKit.batch("a", "b");
        ByteBuffer corrupt = ByteBuffer.allocate(good.sizeInBytes());
        corrupt.put(good.buffer().duplicate()).flip();
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0xff));

        PartitionProduceResponse crc = produce("orders", 0, MemoryRecords.readableRecords(corrupt));
        PartitionProduceResponse empty = produce("orders", 0, MemoryRecords.EMPTY);

        assertThat(crc.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
        assertThat(crc.baseOffset()).isEqualTo(-1);
        assertThat(empty.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(highWatermark("orders", 0)).isZero();
    }

    @Test
    void aBatchAboveTheTopicsMessageMaxBytesIsTooLarge() {
        kit.createTopic("small", 1, Map.of("max.message.bytes", "100"));
        PartitionProduceResponse r = produce("small", 0, ServerTestKit.batch("x".repeat(200)));

        assertThat(r.errorCode()).isEqualTo(Errors.MESSAGE_TOO_LARGE.code());
        assertThat(r.errorMessage()).contains("max.message.bytes");
        assertThat(highWatermark("small", 0)).isZero();
        assertThat(produce("small", 0, ServerTestKit.batch("y")).errorCode())
                .as("a small batch still goes in")
                .isEqualTo(Errors.NONE.code());
    }

    @Test
    void acksOtherThanZeroOneOrAllAreInvalid() {
        kit.createTopic("orders", 1);
        ProduceResponseData resp = produceWithAcks((short) 2, "orders", ServerTestKit.batch("a"));
        assertThat(resp.responses().iterator().next().partitionResponses().get(0).errorCode())
                .isEqualTo(Errors.INVALID_REQUIRED_ACKS.code());
        assertThat(highWatermark("orders", 0)).isZero();
    }

    @Test
    void acksZeroGetsNoResponseAndAFailureClosesTheConnection() {
        kit.createTopic("orders", 1);
        Object none = produceWithAcks((short) 0, "orders", ServerTestKit.batch("a"));
        assertThat(none).isNull();
        assertThat(highWatermark("orders", 0)).isEqualTo(1);

        assertThatThrownBy(
                        () ->
                                kit.send(
                                        ApiKeys.PRODUCE,
                                        V9,
                                        request((short) 0, "missing", 0, ServerTestKit.batch("a"))))
                .isInstanceOf(CloseConnectionException.class);
    }

    @Test
    void aBatchToRecompressIsAppendedOnTheBlockingExecutorAndOthersOnTheCallingThread() {
        kit.createTopic("zipped", 1, Map.of("compression.type", "zstd"));
        kit.createTopic("plain", 1);
        java.util.Map<String, String> appendedOn = new java.util.concurrent.ConcurrentHashMap<>();
        kit.engine()
                .addAppendListener(
                        (tp, hw) -> appendedOn.put(tp.topic(), Thread.currentThread().getName()));
        String caller = Thread.currentThread().getName();

        assertThat(produce("plain", 0, ServerTestKit.batch("a")).errorCode()).isZero();
        assertThat(appendedOn.get("plain")).as("page-cache append in place").isEqualTo(caller);
        assertThat(produce("zipped", 0, ServerTestKit.batch("a", "b")).errorCode()).isZero();
        assertThat(appendedOn.get("zipped"))
                .as("recompression never on the calling (event loop) thread")
                .isNotEqualTo(caller);
        MemoryRecords stored =
                kit.engine()
                        .read(new TopicPartition("zipped", 0), 0, 1 << 20)
                        .join()
                        .toMemoryRecordsUnchecked();
        assertThat(stored.batches().iterator().next().compressionType())
                .isEqualTo(org.apache.kafka.common.record.internal.CompressionType.ZSTD);
    }
}

package io.tierlog.server.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Produce's transactional rules (Kafka 4.4's KafkaApis and ReplicaManager): transactional batches
 * need a transactional id and one producer, a partition gets one batch from v3, and the
 * coordinator's verification errors reach each client version as it understands them. Refusals
 * leave the log untouched.
 */
class TransactionalProduceTest extends HandlerTestBase {
    private static final short V9 = 9;

    private static MemoryRecords txnBatch(long pid, short epoch, int seq, String... values) {
        SimpleRecord[] rs = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            rs[i] = new SimpleRecord(1_000L + i, null, values[i].getBytes());
        }
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, seq, rs);
    }

    /** Two batches back to back in one buffer. */
    private static MemoryRecords twoBatches(MemoryRecords a, MemoryRecords b) {
        ByteBuffer both = ByteBuffer.allocate(a.sizeInBytes() + b.sizeInBytes());
        both.put(a.buffer().duplicate()).put(b.buffer().duplicate()).flip();
        return MemoryRecords.readableRecords(both);
    }

    private static ProduceRequestData request(
            String txnId, String topic, BaseRecords... perPartition) {
        List<PartitionProduceData> parts = new ArrayList<>();
        for (int p = 0; p < perPartition.length; p++) {
            parts.add(new PartitionProduceData().setIndex(p).setRecords(perPartition[p]));
        }
        ProduceRequestData req =
                new ProduceRequestData()
                        .setAcks((short) -1)
                        .setTimeoutMs(30_000)
                        .setTransactionalId(txnId);
        req.topicData().add(new TopicProduceData().setName(topic).setPartitionData(parts));
        return req;
    }

    private static List<PartitionProduceResponse> partitions(ProduceResponseData r) {
        return r.responses().iterator().next().partitionResponses();
    }

    private long highWatermark(String topic, int partition) {
        return kit.engine().offsets(new TopicPartition(topic, partition)).highWatermark();
    }

    @Test
    void transactionalRecordsWithoutATransactionalIdFailTheWholeRequest() {
        kit.createTopic("t", 2);
        ProduceResponseData r =
                kit.call(
                        ApiKeys.PRODUCE,
                        V9,
                        request(
                                null,
                                "t",
                                txnBatch(4, (short) 0, 0, "in-txn"),
                                ServerTestKit.batch("plain")));

        assertThat(partitions(r))
                .extracting(PartitionProduceResponse::errorCode)
                .containsOnly(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        assertThat(highWatermark("t", 0)).isZero();
        assertThat(highWatermark("t", 1)).as("the plain partition is refused too").isZero();
    }

    @Test
    void transactionalBatchesOfTwoProducersFailTheWholeRequest() {
        kit.createTopic("t", 2);
        ProduceResponseData r =
                kit.call(
                        ApiKeys.PRODUCE,
                        V9,
                        request(
                                "txn",
                                "t",
                                txnBatch(4, (short) 0, 0, "a"),
                                txnBatch(5, (short) 0, 0, "b")));

        assertThat(partitions(r))
                .extracting(PartitionProduceResponse::errorCode)
                .containsOnly(Errors.INVALID_PRODUCER_ID_MAPPING.code());
        assertThat(highWatermark("t", 0)).isZero();
    }

    @Test
    void twoBatchesInOnePartitionAreAnInvalidRecordAndTheOtherPartitionIsAppended() {
        kit.createTopic("t", 2);
        ProduceResponseData r =
                kit.call(
                        ApiKeys.PRODUCE,
                        V9,
                        request(
                                null,
                                "t",
                                twoBatches(ServerTestKit.batch("a"), ServerTestKit.batch("b")),
                                ServerTestKit.batch("c")));

        assertThat(partitions(r).get(0).errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(partitions(r).get(1).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(highWatermark("t", 0)).isZero();
        assertThat(highWatermark("t", 1)).isEqualTo(1);
    }

    @Test
    void withoutACoordinatorProduceStopsAtV11AndWithOneAtV12() throws Exception {
        reopen(Map.of("transaction.coordinator.enable", "false"));
        assertThat(kit.handler(ApiKeys.PRODUCE).maxVersion()).isEqualTo((short) 11);
        ProduceHandler withTxn = new ProduceHandler(kit.engine(), Runnable::run, noCheck());
        assertThat(withTxn.maxVersion()).isEqualTo((short) 12);
    }

    @Test
    void aTransactionalBatchNeverAppendsOnTheEventLoop() throws Exception {
        // The check hands back an incomplete future: if the handler ran the transactional path on
        // the calling thread, the stage would already hold an answer or an append.
        kit.createTopic("t", 1);
        CompletableFuture<Map<TopicPartition, Errors>> pending = new CompletableFuture<>();
        List<Thread> seen = new ArrayList<>();
        ProduceHandler h =
                new ProduceHandler(
                        kit.engine(),
                        r -> {
                            Thread t = new Thread(r, "blocking");
                            seen.add(t);
                            t.start();
                        },
                        (id, pid, epoch, tps, add) -> pending);
        CompletableFuture<ApiMessage> answer =
                h.handle(
                                kit.context(ApiKeys.PRODUCE, (short) 11),
                                request("txn", "t", txnBatch(4, (short) 0, 0, "a")))
                        .toCompletableFuture();
        assertThat(seen).as("work went to the blocking executor").isNotEmpty();
        seen.get(0).join();
        pending.complete(Map.of());
        answer.handle((r, e) -> null).get();
    }

    @ParameterizedTest
    @ValueSource(shorts = {3, 9, 10, 11, 12})
    void producerFencedIsAnInvalidProducerEpochForEveryVersion(short version) {
        assertThat(TxnProduce.mapForVersion(Errors.PRODUCER_FENCED, version))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void transactionAbortableReachesOnlyClientsThatKnowIt() {
        assertThat(TxnProduce.mapForVersion(Errors.TRANSACTION_ABORTABLE, (short) 10))
                .isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(TxnProduce.mapForVersion(Errors.TRANSACTION_ABORTABLE, (short) 3))
                .isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(TxnProduce.mapForVersion(Errors.TRANSACTION_ABORTABLE, (short) 11))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE);
        assertThat(TxnProduce.mapForVersion(Errors.TRANSACTION_ABORTABLE, (short) 12))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "CONCURRENT_TRANSACTIONS",
                "NETWORK_EXCEPTION",
                "COORDINATOR_LOAD_IN_PROGRESS",
                "COORDINATOR_NOT_AVAILABLE",
                "NOT_COORDINATOR"
            })
    void retriableCoordinatorErrorsBecomeNotEnoughReplicasWhichEveryProducerRetries(String name) {
        for (short v : new short[] {3, 10, 11, 12}) {
            assertThat(TxnProduce.mapForVersion(Errors.valueOf(name), v))
                    .isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        }
    }

    @Test
    void otherCoordinatorErrorsPassUnchanged() {
        for (Errors e :
                Set.of(
                        Errors.INVALID_TXN_STATE,
                        Errors.INVALID_PRODUCER_ID_MAPPING,
                        Errors.INVALID_PRODUCER_EPOCH)) {
            assertThat(TxnProduce.mapForVersion(e, (short) 11)).isEqualTo(e);
        }
    }

    private static TxnPartitionCheck noCheck() {
        return (id, pid, epoch, tps, add) -> CompletableFuture.completedFuture(Map.of());
    }
}

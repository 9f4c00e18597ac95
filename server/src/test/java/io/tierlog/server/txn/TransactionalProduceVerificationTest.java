package io.tierlog.server.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.common.testing.Await;
import io.tierlog.server.HandlerTestBase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transactional Produce end to end over the coordinator and the engine (KIP-890): a TV1 client's
 * batch lands only in a partition it added, with the error its Produce version knows otherwise; a
 * TV2 client's Produce v12 adds the partition itself; DescribeProducers then shows the open
 * transaction's first offset. Needs the engine's transaction support (skipped on a build whose
 * engine still lacks it).
 */
class TransactionalProduceVerificationTest extends HandlerTestBase {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private InitProducerIdResponseData p;

    @Override
    protected Map<String, String> settings() {
        return Map.of("transaction.coordinator.enable", "true");
    }

    @BeforeEach
    void producer() {
        kit.createTopic("t", 2);
        p =
                kit.call(
                        ApiKeys.INIT_PRODUCER_ID,
                        (short) 4,
                        new InitProducerIdRequestData()
                                .setTransactionalId("app")
                                .setTransactionTimeoutMs(60_000)
                                .setProducerId(-1)
                                .setProducerEpoch((short) -1));
        boolean engineServesTransactions;
        try {
            kit.engine().transactions().needsVerification(new TopicPartition("t", 0), 1);
            engineServesTransactions = true;
        } catch (UnsupportedOperationException e) {
            engineServesTransactions = false;
        }
        assumeTrue(engineServesTransactions, "the engine's Transactions facade is implemented");
    }

    private PartitionProduceResponse produce(short version, int partition, int seq) {
        MemoryRecords batch =
                MemoryRecords.withTransactionalRecords(
                        Compression.NONE,
                        p.producerId(),
                        p.producerEpoch(),
                        seq,
                        new SimpleRecord(1_000L, null, ("v" + seq).getBytes()));
        ProduceRequestData req =
                new ProduceRequestData()
                        .setAcks((short) -1)
                        .setTimeoutMs(30_000)
                        .setTransactionalId("app");
        req.topicData()
                .add(
                        new TopicProduceData()
                                .setName("t")
                                .setPartitionData(
                                        List.of(
                                                new PartitionProduceData()
                                                        .setIndex(partition)
                                                        .setRecords(batch))));
        ProduceResponseData r = kit.call(ApiKeys.PRODUCE, version, req);
        return r.responses().iterator().next().partitionResponses().get(0);
    }

    private void add(int partition) {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnTopic().setName("t").setPartitions(List.of(partition)));
        kit.call(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                (short) 3,
                new AddPartitionsToTxnRequestData()
                        .setV3AndBelowTransactionalId("app")
                        .setV3AndBelowProducerId(p.producerId())
                        .setV3AndBelowProducerEpoch(p.producerEpoch())
                        .setV3AndBelowTopics(topics));
    }

    private long highWatermark(int partition) {
        return kit.engine().offsets(new TopicPartition("t", partition)).highWatermark();
    }

    @Test
    void aTv1BatchLandsInAnAddedPartition() {
        add(0);
        PartitionProduceResponse r = produce((short) 11, 0, 0);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(highWatermark(0)).isEqualTo(1);
    }

    @Test
    void aTv1BatchToAPartitionNotAddedIsRefusedAsItsVersionUnderstands() {
        assertThat(produce((short) 11, 1, 0).errorCode())
                .isEqualTo(Errors.TRANSACTION_ABORTABLE.code());
        assertThat(produce((short) 10, 1, 0).errorCode())
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
        assertThat(highWatermark(1)).isZero();
    }

    @Test
    void produceV12AddsThePartitionToTheTransaction() {
        PartitionProduceResponse r = produce((short) 12, 1, 0);

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        DescribeTransactionsResponseData d =
                kit.call(
                        ApiKeys.DESCRIBE_TRANSACTIONS,
                        (short) 0,
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of("app")));
        assertThat(d.transactionStates().get(0).transactionState()).isEqualTo("Ongoing");
        assertThat(d.transactionStates().get(0).topics().find("t").partitions()).containsExactly(1);
    }

    @Test
    void describeProducersShowsTheOpenTransactionsFirstOffset() {
        add(0);
        kit.append("t", 0, "before"); // offset 0: the transaction starts at 1
        assertThat(produce((short) 11, 0, 0).errorCode()).isZero();

        DescribeProducersRequestData.TopicRequestCollection topics =
                new DescribeProducersRequestData.TopicRequestCollection();
        topics.add(
                new DescribeProducersRequestData.TopicRequest()
                        .setName("t")
                        .setPartitionIndexes(List.of(0)));
        DescribeProducersResponseData r =
                kit.call(
                        ApiKeys.DESCRIBE_PRODUCERS,
                        (short) 0,
                        new DescribeProducersRequestData().setTopics(topics));
        DescribeProducersResponseData.ProducerState s =
                r.topics().get(0).partitions().get(0).activeProducers().stream()
                        .filter(a -> a.producerId() == p.producerId())
                        .findFirst()
                        .orElseThrow();
        assertThat(s.currentTxnStartOffset()).isEqualTo(1);
    }

    private String state() {
        DescribeTransactionsResponseData d =
                kit.call(
                        ApiKeys.DESCRIBE_TRANSACTIONS,
                        (short) 0,
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of("app")));
        return d.transactionStates().get(0).transactionState();
    }

    private EndTxnResponseData end(short version, short epoch, boolean commit) {
        return kit.call(
                ApiKeys.END_TXN,
                version,
                new EndTxnRequestData()
                        .setTransactionalId("app")
                        .setProducerId(p.producerId())
                        .setProducerEpoch(epoch)
                        .setCommitted(commit));
    }

    private long lastStable(int partition) {
        return kit.engine().transactions().lastStableOffset(new TopicPartition("t", partition));
    }

    @Test
    void aTv1CommitWritesTheMarkerThroughTheEngineAndCompletes() {
        add(0);
        assertThat(produce((short) 11, 0, 0).errorCode()).isZero();
        assertThat(lastStable(0)).as("open: LSO at the transaction's start").isZero();

        assertThat(end((short) 4, p.producerEpoch(), true).errorCode()).isZero();

        Await.until("CompleteCommit", () -> state().equals("CompleteCommit"), WAIT);
        assertThat(highWatermark(0)).as("data and marker").isEqualTo(2);
        assertThat(lastStable(0)).isEqualTo(2);
    }

    @Test
    void aTv2AbortBumpsTheEpochAndCompletes() {
        assertThat(produce((short) 12, 1, 0).errorCode()).isZero();

        EndTxnResponseData r = end((short) 5, p.producerEpoch(), false);

        assertThat(r.errorCode()).isZero();
        assertThat(r.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));
        Await.until("CompleteAbort", () -> state().equals("CompleteAbort"), WAIT);
        assertThat(lastStable(1)).isEqualTo(highWatermark(1));
    }

    @Test
    void anAdminAbortMarkerEndsAHangingTransactionAndAnUnknownPartitionIsReported() {
        add(0);
        assertThat(produce((short) 11, 0, 0).errorCode()).isZero();
        WriteTxnMarkersRequestData.WritableTxnMarker m =
                new WriteTxnMarkersRequestData.WritableTxnMarker()
                        .setProducerId(p.producerId())
                        .setProducerEpoch(p.producerEpoch())
                        .setTransactionResult(false)
                        .setCoordinatorEpoch(kit.transactions().coordinatorEpoch())
                        .setTopics(
                                List.of(
                                        new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                                                .setName("t")
                                                .setPartitionIndexes(List.of(0)),
                                        new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                                                .setName("gone")
                                                .setPartitionIndexes(List.of(0))));

        WriteTxnMarkersResponseData r =
                kit.call(
                        ApiKeys.WRITE_TXN_MARKERS,
                        (short) 1,
                        new WriteTxnMarkersRequestData().setMarkers(List.of(m)));

        WriteTxnMarkersResponseData.WritableTxnMarkerResult res = r.markers().get(0);
        assertThat(res.producerId()).isEqualTo(p.producerId());
        assertThat(res.topics())
                .filteredOn(t -> t.name().equals("t"))
                .singleElement()
                .satisfies(t -> assertThat(t.partitions().get(0).errorCode()).isZero());
        assertThat(res.topics())
                .filteredOn(t -> t.name().equals("gone"))
                .singleElement()
                .satisfies(
                        t ->
                                assertThat(t.partitions().get(0).errorCode())
                                        .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        assertThat(lastStable(0)).isEqualTo(highWatermark(0));
    }
}

package io.tierlog.server.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The transaction handlers over a real coordinator (journal on the kit's data dir): the versions a
 * TV1 and a TV2 client send, Kafka's per-version error mapping, and the partition checks made
 * before the coordinator is asked.
 */
class TxnHandlersTest extends HandlerTestBase {
    @Override
    protected Map<String, String> settings() {
        return Map.of("transaction.coordinator.enable", "true", "node.id", "5");
    }

    InitProducerIdResponseData init(
            short version, String txnId, long pid, short epoch, int timeoutMs) {
        return kit.call(
                ApiKeys.INIT_PRODUCER_ID,
                version,
                new InitProducerIdRequestData()
                        .setTransactionalId(txnId)
                        .setTransactionTimeoutMs(timeoutMs)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch));
    }

    InitProducerIdResponseData init(String txnId) {
        return init((short) 5, txnId, -1, (short) -1, 60_000);
    }

    AddPartitionsToTxnResponseData addV3(
            short version, String txnId, long pid, short epoch, String topic, int... partitions) {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        topics.add(
                new AddPartitionsToTxnTopic()
                        .setName(topic)
                        .setPartitions(java.util.Arrays.stream(partitions).boxed().toList()));
        return kit.call(
                ApiKeys.ADD_PARTITIONS_TO_TXN,
                version,
                new AddPartitionsToTxnRequestData()
                        .setV3AndBelowTransactionalId(txnId)
                        .setV3AndBelowProducerId(pid)
                        .setV3AndBelowProducerEpoch(epoch)
                        .setV3AndBelowTopics(topics));
    }

    static short errorOf(AddPartitionsToTxnResponseData r, String topic, int partition) {
        return r.resultsByTopicV3AndBelow()
                .find(topic)
                .resultsByPartition()
                .find(partition)
                .partitionErrorCode();
    }

    @Test
    void aTransactionalIdGetsAProducerIdAndEachInitBumpsItsEpoch() {
        InitProducerIdResponseData first = init("app-1");
        InitProducerIdResponseData second = init("app-1");

        assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(first.producerId()).isNotNegative();
        assertThat(first.producerEpoch()).isZero();
        assertThat(second.producerId()).isEqualTo(first.producerId());
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
    }

    @Test
    void aTimeoutAboveTheMaximumIsInvalid() {
        InitProducerIdResponseData r = init((short) 4, "app-1", -1, (short) -1, 900_001);
        assertThat(r.errorCode()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT.code());
    }

    @Test
    void anIdempotentInitNamingATransactionalProducerIdGetsAFreshId() {
        InitProducerIdResponseData txn = init("app-1");
        InitProducerIdResponseData idem =
                init((short) 4, null, txn.producerId(), txn.producerEpoch(), 60_000);

        assertThat(idem.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(idem.producerId()).isNotEqualTo(txn.producerId());
        assertThat(idem.producerEpoch()).isZero();
    }

    @Test
    void anIdempotentProducerStillResumesWithTheNextEpoch() {
        InitProducerIdResponseData a = init((short) 4, null, -1, (short) -1, 60_000);
        InitProducerIdResponseData resumed =
                init((short) 4, null, a.producerId(), (short) 0, 60_000);
        assertThat(resumed.producerId()).isEqualTo(a.producerId());
        assertThat(resumed.producerEpoch()).isEqualTo((short) 1);
    }

    @Test
    void aStaleKip360ProducerIsFencedAndOldClientsHearInvalidProducerEpoch() {
        InitProducerIdResponseData first = init("app-1");
        init("app-1"); // epoch 1: the first producer is a zombie now
        InitProducerIdResponseData v4 =
                init((short) 4, "app-1", first.producerId() + 12345, (short) 0, 60_000);
        InitProducerIdResponseData v3 =
                init((short) 3, "app-1", first.producerId() + 12345, (short) 0, 60_000);

        assertThat(v4.errorCode()).isEqualTo(Errors.PRODUCER_FENCED.code());
        assertThat(v3.errorCode()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
    }

    @Test
    void addingAnUnknownPartitionAddsNothingAndMarksTheOthersNotAttempted() {
        kit.createTopic("t", 2);
        InitProducerIdResponseData p = init("app-1");
        AddPartitionsToTxnResponseData r =
                addV3((short) 3, "app-1", p.producerId(), p.producerEpoch(), "t", 0, 7);

        assertThat(errorOf(r, "t", 7)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(errorOf(r, "t", 0)).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED.code());
        assertThat(describe("app-1").transactionState()).isEqualTo("Empty");
    }

    @Test
    void aTv1TransactionIsListedAndDescribedWithItsPartitions() {
        kit.createTopic("t", 3);
        InitProducerIdResponseData p = init("app-1");
        AddPartitionsToTxnResponseData r =
                addV3((short) 3, "app-1", p.producerId(), p.producerEpoch(), "t", 0, 2);

        assertThat(errorOf(r, "t", 0)).isEqualTo(Errors.NONE.code());
        assertThat(errorOf(r, "t", 2)).isEqualTo(Errors.NONE.code());
        DescribeTransactionsResponseData.TransactionState d = describe("app-1");
        assertThat(d.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(d.transactionState()).isEqualTo("Ongoing");
        assertThat(d.producerId()).isEqualTo(p.producerId());
        assertThat(d.transactionTimeoutMs()).isEqualTo(60_000);
        assertThat(d.topics().find("t").partitions()).containsExactly(0, 2);

        ListTransactionsResponseData all =
                kit.call(ApiKeys.LIST_TRANSACTIONS, (short) 2, new ListTransactionsRequestData());
        assertThat(all.transactionStates())
                .extracting(ListTransactionsResponseData.TransactionState::transactionalId)
                .containsExactly("app-1");
        ListTransactionsResponseData filtered =
                kit.call(
                        ApiKeys.LIST_TRANSACTIONS,
                        (short) 1,
                        new ListTransactionsRequestData()
                                .setStateFilters(List.of("PrepareCommit", "NoSuchState")));
        assertThat(filtered.transactionStates()).isEmpty();
        assertThat(filtered.unknownStateFilters()).containsExactly("NoSuchState");
    }

    @Test
    void aBadIdPatternIsAnInvalidRegularExpressionFromV2() {
        ListTransactionsResponseData r =
                kit.call(
                        ApiKeys.LIST_TRANSACTIONS,
                        (short) 2,
                        new ListTransactionsRequestData().setTransactionalIdPattern("(["));
        assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REGULAR_EXPRESSION.code());
    }

    @Test
    void anUnknownTransactionalIdIsNotFound() {
        assertThat(describe("nobody").errorCode())
                .isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
    }

    @Test
    void aWrongEpochIsProducerFencedFromV2AndInvalidProducerEpochBefore() {
        kit.createTopic("t", 1);
        InitProducerIdResponseData p = init("app-1");
        short stale = (short) (p.producerEpoch() + 3);
        assertThat(errorOf(addV3((short) 1, "app-1", p.producerId(), stale, "t", 0), "t", 0))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(errorOf(addV3((short) 2, "app-1", p.producerId(), stale, "t", 0), "t", 0))
                .isEqualTo(Errors.PRODUCER_FENCED.code());
    }

    @Test
    void batchedVerifyOnlyAnswersPerTransactionAndPerPartition() {
        kit.createTopic("t", 2);
        InitProducerIdResponseData p = init("app-1");
        addV3((short) 3, "app-1", p.producerId(), p.producerEpoch(), "t", 0);
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnTopic().setName("t").setPartitions(List.of(0, 1)));
        AddPartitionsToTxnTransactionCollection txns =
                new AddPartitionsToTxnTransactionCollection();
        txns.add(
                new AddPartitionsToTxnTransaction()
                        .setTransactionalId("app-1")
                        .setProducerId(p.producerId())
                        .setProducerEpoch(p.producerEpoch())
                        .setVerifyOnly(true)
                        .setTopics(topics));
        AddPartitionsToTxnResponseData r =
                kit.call(
                        ApiKeys.ADD_PARTITIONS_TO_TXN,
                        (short) 5,
                        new AddPartitionsToTxnRequestData().setTransactions(txns));

        AddPartitionsToTxnTopicResult t =
                r.resultsByTransaction().find("app-1").topicResults().find("t");
        assertThat(t.resultsByPartition().find(0).partitionErrorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(t.resultsByPartition().find(1).partitionErrorCode())
                .isEqualTo(Errors.TRANSACTION_ABORTABLE.code());
        assertThat(describe("app-1").topics().find("t").partitions())
                .as("verifying adds nothing")
                .containsExactly(0);
    }

    @Test
    void addOffsetsNeedsAGroupId() {
        InitProducerIdResponseData p = init("app-1");
        AddOffsetsToTxnResponseData noGroup = addOffsets("app-1", p, "");
        AddOffsetsToTxnResponseData ok = addOffsets("app-1", p, "g");
        assertThat(noGroup.errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
        assertThat(ok.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(describe("app-1").transactionState()).isEqualTo("Ongoing");
    }

    @Test
    void endTxnV5IsTv2AndNamesTheBumpedEpochWhileV4KeepsIt() {
        InitProducerIdResponseData p = init("app-1");
        addOffsets("app-1", p, "g");
        EndTxnResponseData tv2 =
                endTxn((short) 5, "app-1", p.producerId(), p.producerEpoch(), false);
        assertThat(tv2.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(tv2.producerId()).isEqualTo(p.producerId());
        assertThat(tv2.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));

        InitProducerIdResponseData q = init("app-2");
        addOffsets("app-2", q, "g2");
        EndTxnResponseData tv1 =
                endTxn((short) 4, "app-2", q.producerId(), q.producerEpoch(), false);
        assertThat(tv1.errorCode()).isEqualTo(Errors.NONE.code());
    }

    @Test
    void endTxnWithAWrongEpochIsFencedAndInvalidProducerEpochBeforeV2() {
        InitProducerIdResponseData p = init("app-1");
        addOffsets("app-1", p, "g");
        short stale = (short) (p.producerEpoch() + 5);
        assertThat(endTxn((short) 1, "app-1", p.producerId(), stale, true).errorCode())
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(endTxn((short) 3, "app-1", p.producerId(), stale, true).errorCode())
                .isEqualTo(Errors.PRODUCER_FENCED.code());
    }

    @Test
    void theServerAnswersFindCoordinatorAndFinalizesTransactionVersionTwo() {
        FindCoordinatorResponseData f =
                kit.call(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 4,
                        new FindCoordinatorRequestData()
                                .setKeyType((byte) 1)
                                .setCoordinatorKeys(List.of("app-1")));
        assertThat(f.coordinators().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(f.coordinators().get(0).nodeId()).isEqualTo(5);

        ApiVersionsResponseData v =
                kit.call(
                        ApiKeys.API_VERSIONS,
                        (short) 3,
                        new ApiVersionsRequestData()
                                .setClientSoftwareName("kit")
                                .setClientSoftwareVersion("1"));
        assertThat(v.finalizedFeatures().find("transaction.version").maxVersionLevel())
                .isEqualTo((short) 2);
        for (ApiKeys k :
                List.of(
                        ApiKeys.ADD_PARTITIONS_TO_TXN,
                        ApiKeys.END_TXN,
                        ApiKeys.TXN_OFFSET_COMMIT,
                        ApiKeys.PRODUCE)) {
            assertThat(v.apiKeys().find(k.id)).as("%s served", k).isNotNull();
        }
        assertThat(v.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion()).isEqualTo((short) 12);
        assertThat(v.apiKeys().find(ApiKeys.END_TXN.id).maxVersion()).isEqualTo((short) 5);
        assertThat(v.apiKeys().find(ApiKeys.TXN_OFFSET_COMMIT.id).maxVersion())
                .isEqualTo((short) 5);
        assertThat(v.apiKeys().find(ApiKeys.INIT_PRODUCER_ID.id).maxVersion())
                .as("no KIP-939 2PC")
                .isEqualTo((short) 5);
    }

    AddOffsetsToTxnResponseData addOffsets(
            String txnId, InitProducerIdResponseData p, String group) {
        return kit.call(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                (short) 3,
                new AddOffsetsToTxnRequestData()
                        .setTransactionalId(txnId)
                        .setProducerId(p.producerId())
                        .setProducerEpoch(p.producerEpoch())
                        .setGroupId(group));
    }

    EndTxnResponseData endTxn(short version, String txnId, long pid, short epoch, boolean commit) {
        return kit.call(
                ApiKeys.END_TXN,
                version,
                new EndTxnRequestData()
                        .setTransactionalId(txnId)
                        .setProducerId(pid)
                        .setProducerEpoch(epoch)
                        .setCommitted(commit));
    }

    DescribeTransactionsResponseData.TransactionState describe(String txnId) {
        DescribeTransactionsResponseData r =
                kit.call(
                        ApiKeys.DESCRIBE_TRANSACTIONS,
                        (short) 0,
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of(txnId)));
        return r.transactionStates().get(0);
    }
}

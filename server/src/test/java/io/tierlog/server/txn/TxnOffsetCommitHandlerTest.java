package io.tierlog.server.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TxnOffsetCommit over the real transaction and group coordinators: TV1 clients must have added the
 * group first (else the error their version understands), TV2 (v5) adds it implicitly; unknown
 * partitions are refused one by one; the transaction survives a restart of the server.
 */
class TxnOffsetCommitHandlerTest extends HandlerTestBase {
    private static final Map<String, String> TXN = Map.of("transaction.coordinator.enable", "true");

    @TempDir Path restartDir;

    @Override
    protected Map<String, String> settings() {
        return TXN;
    }

    private static InitProducerIdResponseData init(ServerTestKit k, String txnId) {
        return k.call(
                ApiKeys.INIT_PRODUCER_ID,
                (short) 4,
                new InitProducerIdRequestData()
                        .setTransactionalId(txnId)
                        .setTransactionTimeoutMs(60_000)
                        .setProducerId(-1)
                        .setProducerEpoch((short) -1));
    }

    private static TxnOffsetCommitResponseData commit(
            ServerTestKit k,
            short version,
            String txnId,
            InitProducerIdResponseData p,
            String group,
            String topic,
            int... partitions) {
        TxnOffsetCommitRequestTopic t = new TxnOffsetCommitRequestTopic().setName(topic);
        for (int i : partitions) {
            t.partitions()
                    .add(
                            new TxnOffsetCommitRequestPartition()
                                    .setPartitionIndex(i)
                                    .setCommittedOffset(10 + i)
                                    .setCommittedMetadata(""));
        }
        return k.call(
                ApiKeys.TXN_OFFSET_COMMIT,
                version,
                new TxnOffsetCommitRequestData()
                        .setTransactionalId(txnId)
                        .setGroupId(group)
                        .setProducerId(p.producerId())
                        .setProducerEpoch(p.producerEpoch())
                        .setTopics(List.of(t)));
    }

    private static short error(TxnOffsetCommitResponseData r, int partition) {
        return r.topics().get(0).partitions().stream()
                .filter(p -> p.partitionIndex() == partition)
                .findFirst()
                .orElseThrow()
                .errorCode();
    }

    private static AddOffsetsToTxnResponseData addOffsets(
            ServerTestKit k, String txnId, InitProducerIdResponseData p, String group) {
        return k.call(
                ApiKeys.ADD_OFFSETS_TO_TXN,
                (short) 3,
                new AddOffsetsToTxnRequestData()
                        .setTransactionalId(txnId)
                        .setProducerId(p.producerId())
                        .setProducerEpoch(p.producerEpoch())
                        .setGroupId(group));
    }

    private static DescribeTransactionsResponseData.TransactionState describe(
            ServerTestKit k, String txnId) {
        DescribeTransactionsResponseData r =
                k.call(
                        ApiKeys.DESCRIBE_TRANSACTIONS,
                        (short) 0,
                        new DescribeTransactionsRequestData().setTransactionalIds(List.of(txnId)));
        return r.transactionStates().get(0);
    }

    @Test
    void aTv1CommitWithoutAddOffsetsIsRefusedAsEachVersionUnderstands() {
        kit.createTopic("in", 1);
        InitProducerIdResponseData p = init(kit, "app");

        assertThat(error(commit(kit, (short) 3, "app", p, "g", "in", 0), 0))
                .isEqualTo(Errors.INVALID_TXN_STATE.code());
        assertThat(error(commit(kit, (short) 4, "app", p, "g", "in", 0), 0))
                .isEqualTo(Errors.TRANSACTION_ABORTABLE.code());
    }

    @Test
    void aTv1CommitAfterAddOffsetsIsPendingAndUnknownPartitionsAreRefusedOneByOne() {
        kit.createTopic("in", 2);
        InitProducerIdResponseData p = init(kit, "app");
        assertThat(addOffsets(kit, "app", p, "g").errorCode()).isZero();

        TxnOffsetCommitResponseData r = commit(kit, (short) 3, "app", p, "g", "in", 0, 1, 9);

        assertThat(error(r, 0)).isEqualTo(Errors.NONE.code());
        assertThat(error(r, 1)).isEqualTo(Errors.NONE.code());
        assertThat(error(r, 9)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(
                        kit.groups()
                                .hasPendingTxnOffsets(
                                        "g", new org.apache.kafka.common.TopicPartition("in", 0)))
                .isTrue();
    }

    @Test
    void aTv2CommitAddsTheGroupImplicitly() {
        kit.createTopic("in", 1);
        InitProducerIdResponseData p = init(kit, "app");

        TxnOffsetCommitResponseData r = commit(kit, (short) 5, "app", p, "g", "in", 0);

        assertThat(error(r, 0)).isEqualTo(Errors.NONE.code());
        assertThat(describe(kit, "app").transactionState()).isEqualTo("Ongoing");
    }

    @Test
    void anEmptyGroupIdIsInvalid() {
        kit.createTopic("in", 1);
        InitProducerIdResponseData p = init(kit, "app");
        assertThat(error(commit(kit, (short) 5, "app", p, "", "in", 0), 0))
                .isEqualTo(Errors.INVALID_GROUP_ID.code());
    }

    @Test
    void anOpenTransactionSurvivesARestartOfTheServer() throws Exception {
        ServerTestKit first = ServerTestKit.open(restartDir, TXN);
        InitProducerIdResponseData p;
        try {
            first.createTopic("in", 1);
            p = init(first, "app");
            assertThat(error(commit(first, (short) 5, "app", p, "g", "in", 0), 0)).isZero();
        } finally {
            first.close();
        }
        ServerTestKit second = ServerTestKit.open(restartDir, TXN);
        try {
            DescribeTransactionsResponseData.TransactionState d = describe(second, "app");
            assertThat(d.transactionState()).isEqualTo("Ongoing");
            assertThat(d.producerId()).isEqualTo(p.producerId());
            assertThat(d.producerEpoch()).isEqualTo(p.producerEpoch());
        } finally {
            second.close();
        }
    }
}

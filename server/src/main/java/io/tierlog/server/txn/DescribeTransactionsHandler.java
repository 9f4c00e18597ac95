package io.tierlog.server.txn;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.TxnDescription;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeTransactions v0 ({@code kafka-transactions describe}): per transactional id its state,
 * timeout, start time, producer id and epoch and the partitions of the open transaction still
 * without their marker; {@code TRANSACTIONAL_ID_NOT_FOUND} for an unknown or dead id. Thread-safe.
 */
final class DescribeTransactionsHandler extends TxnHandler<DescribeTransactionsRequestData> {
    private final TransactionCoordinator coordinator;

    DescribeTransactionsHandler(TransactionCoordinator coordinator) {
        super(ApiKeys.DESCRIBE_TRANSACTIONS, 0, DescribeTransactionsRequestData.class);
        this.coordinator = coordinator;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, DescribeTransactionsRequestData request, short version) {
        return coordinator
                .describeTransactions(request.transactionalIds())
                .thenApply(
                        descriptions -> {
                            DescribeTransactionsResponseData out =
                                    new DescribeTransactionsResponseData();
                            for (TxnDescription d : descriptions) {
                                out.transactionStates().add(state(d));
                            }
                            return out;
                        });
    }

    private static TransactionState state(TxnDescription d) {
        TransactionState s =
                new TransactionState()
                        .setTransactionalId(d.transactionalId())
                        .setErrorCode(d.error().code())
                        .setTransactionState(d.state() == null ? "" : d.state())
                        .setTransactionTimeoutMs(d.timeoutMs())
                        .setTransactionStartTimeMs(d.startMs())
                        .setProducerId(d.producerId())
                        .setProducerEpoch(d.producerEpoch());
        Map<String, TopicData> byTopic = new TreeMap<>();
        for (TopicPartition tp :
                d.partitions() == null ? java.util.Set.<TopicPartition>of() : d.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), t -> new TopicData().setTopic(t))
                    .partitions()
                    .add(tp.partition());
        }
        for (TopicData t : byTopic.values()) {
            t.partitions().sort(Integer::compare);
            s.topics().add(t);
        }
        return s;
    }

    @Override
    protected ApiMessage errorResponse(
            DescribeTransactionsRequestData request, short version, Errors error) {
        DescribeTransactionsResponseData out = new DescribeTransactionsResponseData();
        for (String id : request.transactionalIds()) {
            out.transactionStates()
                    .add(
                            new TransactionState()
                                    .setTransactionalId(id)
                                    .setErrorCode(error.code())
                                    .setTransactionState("")
                                    .setProducerId(-1)
                                    .setProducerEpoch((short) -1));
        }
        return out;
    }
}

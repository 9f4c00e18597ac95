package io.tierlog.server.txn;

import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.AddPartitionsResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnPartitionResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddPartitionsToTxn v0-5. v0-3 come from TV1 clients: one transaction, its partitions added by the
 * coordinator (TV1 rules). v4-5 are the batched broker form (Kafka brokers send it to verify or
 * implicitly add on behalf of Produce): several transactions, each either {@code VerifyOnly}
 * (answered from memory) or an add under TV2 rules. In both forms, a partition that does not exist
 * fails its whole transaction: it gets {@code UNKNOWN_TOPIC_OR_PARTITION} and the others {@code
 * OPERATION_NOT_ATTEMPTED}, nothing is added (Kafka's rule). {@code PRODUCER_FENCED} is answered
 * {@code INVALID_PRODUCER_EPOCH} below v2. Thread-safe.
 */
final class AddPartitionsToTxnHandler extends TxnHandler<AddPartitionsToTxnRequestData> {
    private final TransactionCoordinator coordinator;
    private final TopicRegistry topics;

    AddPartitionsToTxnHandler(TransactionCoordinator coordinator, TopicRegistry topics) {
        super(ApiKeys.ADD_PARTITIONS_TO_TXN, 5, AddPartitionsToTxnRequestData.class);
        this.coordinator = coordinator;
        this.topics = topics;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, AddPartitionsToTxnRequestData request, short version) {
        if (version < 4) {
            return one(
                            request.v3AndBelowTransactionalId(),
                            request.v3AndBelowProducerId(),
                            request.v3AndBelowProducerEpoch(),
                            false,
                            request.v3AndBelowTopics(),
                            version)
                    .thenApply(
                            r ->
                                    new AddPartitionsToTxnResponseData()
                                            .setResultsByTopicV3AndBelow(r.topicResults()));
        }
        List<CompletableFuture<AddPartitionsToTxnResult>> all = new ArrayList<>();
        for (AddPartitionsToTxnTransaction t : request.transactions()) {
            all.add(
                    one(
                                    t.transactionalId(),
                                    t.producerId(),
                                    t.producerEpoch(),
                                    t.verifyOnly(),
                                    t.topics(),
                                    version)
                            .toCompletableFuture());
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenApply(
                        ignored -> {
                            AddPartitionsToTxnResponseData out =
                                    new AddPartitionsToTxnResponseData();
                            for (CompletableFuture<AddPartitionsToTxnResult> f : all) {
                                out.resultsByTransaction().add(f.join());
                            }
                            return out;
                        });
    }

    private CompletionStage<AddPartitionsToTxnResult> one(
            String txnId,
            long pid,
            short epoch,
            boolean verifyOnly,
            AddPartitionsToTxnTopicCollection requested,
            short version) {
        List<TopicPartition> partitions = new ArrayList<>();
        Map<TopicPartition, Errors> unknown = new LinkedHashMap<>();
        for (AddPartitionsToTxnTopic t : requested) {
            Optional<TopicInfo> meta = topics.topic(t.name());
            for (int p : t.partitions()) {
                TopicPartition tp = new TopicPartition(t.name(), p);
                partitions.add(tp);
                if (meta.isEmpty() || p < 0 || p >= meta.get().partitions()) {
                    unknown.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
        }
        if (txnId == null || txnId.isEmpty()) {
            return CompletableFuture.completedFuture(
                    result(txnId, partitions, Map.of(), Errors.INVALID_REQUEST));
        }
        if (!unknown.isEmpty()) {
            return CompletableFuture.completedFuture(
                    result(txnId, partitions, unknown, Errors.OPERATION_NOT_ATTEMPTED));
        }
        CompletableFuture<AddPartitionsResult> answer =
                verifyOnly
                        ? coordinator.verifyPartitions(txnId, pid, epoch, partitions)
                        : coordinator.addPartitions(
                                txnId, pid, epoch, partitions, version >= 4 ? 2 : 1);
        return answer.thenApply(
                r -> {
                    Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
                    r.partitions()
                            .forEach(
                                    (tp, e) -> errors.put(tp, fencedForOldClients(e, version < 2)));
                    return result(txnId, partitions, errors, Errors.NONE);
                });
    }

    /** The result of one transaction: {@code errors} per partition, {@code others} for the rest. */
    private static AddPartitionsToTxnResult result(
            String txnId,
            List<TopicPartition> partitions,
            Map<TopicPartition, Errors> errors,
            Errors others) {
        AddPartitionsToTxnTopicResultCollection topics =
                new AddPartitionsToTxnTopicResultCollection();
        for (TopicPartition tp : partitions) {
            AddPartitionsToTxnTopicResult tr = topics.find(tp.topic());
            if (tr == null) {
                tr = new AddPartitionsToTxnTopicResult().setName(tp.topic());
                topics.add(tr);
            }
            if (tr.resultsByPartition().find(tp.partition()) == null) {
                tr.resultsByPartition()
                        .add(
                                new AddPartitionsToTxnPartitionResult()
                                        .setPartitionIndex(tp.partition())
                                        .setPartitionErrorCode(
                                                errors.getOrDefault(tp, others).code()));
            }
        }
        return new AddPartitionsToTxnResult()
                .setTransactionalId(txnId == null ? "" : txnId)
                .setTopicResults(topics);
    }

    @Override
    protected ApiMessage errorResponse(
            AddPartitionsToTxnRequestData request, short version, Errors error) {
        if (version < 4) {
            return new AddPartitionsToTxnResponseData()
                    .setResultsByTopicV3AndBelow(
                            result(
                                            request.v3AndBelowTransactionalId(),
                                            partitions(request.v3AndBelowTopics()),
                                            Map.of(),
                                            error)
                                    .topicResults());
        }
        AddPartitionsToTxnResponseData out = new AddPartitionsToTxnResponseData();
        for (AddPartitionsToTxnTransaction t : request.transactions()) {
            out.resultsByTransaction()
                    .add(result(t.transactionalId(), partitions(t.topics()), Map.of(), error));
        }
        return out;
    }

    private static List<TopicPartition> partitions(AddPartitionsToTxnTopicCollection topics) {
        List<TopicPartition> out = new ArrayList<>();
        for (AddPartitionsToTxnTopic t : topics) {
            for (int p : t.partitions()) {
                out.add(new TopicPartition(t.name(), p));
            }
        }
        return out;
    }
}

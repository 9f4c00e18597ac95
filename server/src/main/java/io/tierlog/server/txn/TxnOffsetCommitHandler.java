package io.tierlog.server.txn;

import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * TxnOffsetCommit v0-5: offsets a transaction commits for a consumer group, pending in the group
 * until the transaction's marker (the group side is the {@link TxnOffsetSink}, the group
 * coordinator). First the transaction coordinator confirms the group is in the producer's
 * transaction (v0-4: AddOffsetsToTxn came first, TV1) or adds it (v5: TV2's implicit add); then the
 * group checks the member and generation (v3+) and journals the pending offsets, on the blocking
 * executor. Unknown partitions answer {@code UNKNOWN_TOPIC_OR_PARTITION} and the rest is still
 * committed (Kafka's rule). Coordinator errors are mapped as Kafka's {@code
 * AddPartitionsToTxnManager} does: {@code PRODUCER_FENCED} becomes {@code INVALID_PRODUCER_EPOCH},
 * {@code TRANSACTION_ABORTABLE} becomes {@code INVALID_TXN_STATE} below v4; below v2 {@code
 * COORDINATOR_LOAD_IN_PROGRESS} becomes {@code COORDINATOR_NOT_AVAILABLE}. v6 (topic ids) is not
 * served. Thread-safe.
 */
final class TxnOffsetCommitHandler extends TxnHandler<TxnOffsetCommitRequestData> {
    private final TransactionCoordinator coordinator;
    private final TxnOffsetSink groups;
    private final TopicRegistry topics;
    private final Executor blockingExecutor;

    TxnOffsetCommitHandler(
            TransactionCoordinator coordinator,
            TxnOffsetSink groups,
            TopicRegistry topics,
            Executor blockingExecutor) {
        super(ApiKeys.TXN_OFFSET_COMMIT, 5, TxnOffsetCommitRequestData.class);
        this.coordinator = coordinator;
        this.groups = groups;
        this.topics = topics;
        this.blockingExecutor = blockingExecutor;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, TxnOffsetCommitRequestData request, short version) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(
                    errorResponse(request, version, Errors.INVALID_GROUP_ID));
        }
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        Map<TopicPartition, TxnOffsetSink.TxnOffset> valid = new LinkedHashMap<>();
        for (TxnOffsetCommitRequestTopic t : request.topics()) {
            Optional<TopicInfo> meta = topics.topic(t.name());
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                if (meta.isEmpty()
                        || p.partitionIndex() < 0
                        || p.partitionIndex() >= meta.get().partitions()) {
                    errors.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    errors.put(tp, Errors.NONE);
                    valid.put(
                            tp,
                            new TxnOffsetSink.TxnOffset(
                                    p.committedOffset(),
                                    p.committedLeaderEpoch(),
                                    p.committedMetadata()));
                }
            }
        }
        if (valid.isEmpty()) {
            return CompletableFuture.completedFuture(response(request, errors, version));
        }
        CompletableFuture<Errors> inTxn =
                version >= 5
                        ? coordinator.addOffsets(
                                request.transactionalId(),
                                request.producerId(),
                                request.producerEpoch(),
                                request.groupId(),
                                2)
                        : coordinator.verifyOffsets(
                                request.transactionalId(),
                                request.producerId(),
                                request.producerEpoch(),
                                request.groupId());
        return inTxn.thenCompose(
                e -> {
                    if (e != Errors.NONE) {
                        Errors mapped = mapVerification(e, version);
                        valid.keySet().forEach(tp -> errors.put(tp, mapped));
                        return CompletableFuture.completedFuture(
                                response(request, errors, version));
                    }
                    return CompletableFuture.supplyAsync(
                            () -> {
                                errors.putAll(commit(request, version, valid));
                                return response(request, errors, version);
                            },
                            blockingExecutor);
                });
    }

    private Map<TopicPartition, Errors> commit(
            TxnOffsetCommitRequestData request,
            short version,
            Map<TopicPartition, TxnOffsetSink.TxnOffset> valid) {
        try {
            return groups.txnCommitOffsets(
                    request.groupId(),
                    request.producerId(),
                    request.producerEpoch(),
                    version >= 3 ? request.memberId() : "",
                    version >= 3 ? request.generationIdOrMemberEpoch() : -1,
                    version >= 3 ? request.groupInstanceId() : null,
                    valid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The transaction coordinator's refusal as a client of {@code version} is answered. */
    static Errors mapVerification(Errors error, short version) {
        if (error == Errors.PRODUCER_FENCED) {
            return Errors.INVALID_PRODUCER_EPOCH;
        }
        if (error == Errors.TRANSACTION_ABORTABLE && version < 4) {
            return Errors.INVALID_TXN_STATE;
        }
        return error;
    }

    private static TxnOffsetCommitResponseData response(
            TxnOffsetCommitRequestData request, Map<TopicPartition, Errors> errors, short version) {
        Map<String, TxnOffsetCommitResponseTopic> byTopic = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Errors> e : errors.entrySet()) {
            Errors err = e.getValue();
            if (version < 2 && err == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
                err = Errors.COORDINATOR_NOT_AVAILABLE;
            }
            byTopic.computeIfAbsent(
                            e.getKey().topic(), t -> new TxnOffsetCommitResponseTopic().setName(t))
                    .partitions()
                    .add(
                            new TxnOffsetCommitResponsePartition()
                                    .setPartitionIndex(e.getKey().partition())
                                    .setErrorCode(err.code()));
        }
        TxnOffsetCommitResponseData out = new TxnOffsetCommitResponseData();
        out.topics().addAll(byTopic.values());
        return out;
    }

    @Override
    protected ApiMessage errorResponse(
            TxnOffsetCommitRequestData request, short version, Errors error) {
        Map<TopicPartition, Errors> all = new LinkedHashMap<>();
        for (TxnOffsetCommitRequestTopic t : request.topics()) {
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                all.put(new TopicPartition(t.name(), p.partitionIndex()), error);
            }
        }
        return response(request, all, version);
    }
}

package io.tierlog.server.txn;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddOffsetsToTxn v0-4 (TV1 clients; TV2 clients go straight to TxnOffsetCommit v5): adds the
 * consumer group to the producer's transaction, so that the group's pending offsets complete with
 * the transaction's markers. An empty group id is {@code INVALID_GROUP_ID}; {@code PRODUCER_FENCED}
 * is answered {@code INVALID_PRODUCER_EPOCH} below v2. Thread-safe.
 */
final class AddOffsetsToTxnHandler extends TxnHandler<AddOffsetsToTxnRequestData> {
    private final TransactionCoordinator coordinator;

    AddOffsetsToTxnHandler(TransactionCoordinator coordinator) {
        super(ApiKeys.ADD_OFFSETS_TO_TXN, 4, AddOffsetsToTxnRequestData.class);
        this.coordinator = coordinator;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, AddOffsetsToTxnRequestData request, short version) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(
                    errorResponse(request, version, Errors.INVALID_GROUP_ID));
        }
        return coordinator
                .addOffsets(
                        request.transactionalId(),
                        request.producerId(),
                        request.producerEpoch(),
                        request.groupId(),
                        1)
                .thenApply(
                        e -> errorResponse(request, version, fencedForOldClients(e, version < 2)));
    }

    @Override
    protected ApiMessage errorResponse(
            AddOffsetsToTxnRequestData request, short version, Errors error) {
        return new AddOffsetsToTxnResponseData().setErrorCode(error.code());
    }
}

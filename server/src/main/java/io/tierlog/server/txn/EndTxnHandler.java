package io.tierlog.server.txn;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * EndTxn v0-5: commit or abort. v5 is TV2 ({@code TransactionVersion.transactionVersionForEndTxn}):
 * the epoch is bumped at the end and the response names the producer id and epoch to use next; v0-4
 * are TV1 (id and epoch stay, the response has none). The coordinator answers once PrepareCommit or
 * PrepareAbort is journaled; markers follow in the background. {@code PRODUCER_FENCED} is answered
 * {@code INVALID_PRODUCER_EPOCH} below v2. Thread-safe.
 */
final class EndTxnHandler extends TxnHandler<EndTxnRequestData> {
    private final TransactionCoordinator coordinator;

    EndTxnHandler(TransactionCoordinator coordinator) {
        super(ApiKeys.END_TXN, 5, EndTxnRequestData.class);
        this.coordinator = coordinator;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, EndTxnRequestData request, short version) {
        return coordinator
                .endTxn(
                        request.transactionalId(),
                        request.producerId(),
                        request.producerEpoch(),
                        request.committed(),
                        version >= 5 ? 2 : 1)
                .thenApply(
                        r -> {
                            EndTxnResponseData out =
                                    new EndTxnResponseData()
                                            .setErrorCode(
                                                    fencedForOldClients(r.error(), version < 2)
                                                            .code());
                            if (version >= 5) {
                                out.setProducerId(r.producerId())
                                        .setProducerEpoch(r.producerEpoch());
                            }
                            return out;
                        });
    }

    @Override
    protected ApiMessage errorResponse(EndTxnRequestData request, short version, Errors error) {
        return new EndTxnResponseData().setErrorCode(error.code());
    }
}

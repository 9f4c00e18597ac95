package io.tierlog.server.txn;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.txn.coordinator.TransactionCoordinator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId v0-5 with a transaction coordinator. A transactional id goes to the coordinator
 * (new producer id or epoch bump, fencing of the previous producer, KIP-360 recovery with the
 * producer's id and epoch from v3; {@code PRODUCER_FENCED} answered {@code INVALID_PRODUCER_EPOCH}
 * below v4). Without one (an idempotent producer): a fresh producer id, or, when the producer asks
 * to resume (v3+) with an id this server issued to an idempotent producer, the same id with the
 * next epoch; an id that belongs to a transactional id is never resumed this way, it gets a fresh
 * id (else an idempotent producer could write as a transactional one). v6 (KIP-939 two-phase
 * commit) is not served. Idempotent requests run on the blocking executor (an id block may be
 * reserved on disk). Thread-safe.
 */
final class TxnInitProducerIdHandler extends TxnHandler<InitProducerIdRequestData> {
    private final TransactionCoordinator coordinator;
    private final ProducerIdManager producerIds;
    private final Executor blockingExecutor;

    TxnInitProducerIdHandler(
            TransactionCoordinator coordinator,
            ProducerIdManager producerIds,
            Executor blockingExecutor) {
        super(ApiKeys.INIT_PRODUCER_ID, 5, InitProducerIdRequestData.class);
        this.coordinator = coordinator;
        this.producerIds = producerIds;
        this.blockingExecutor = blockingExecutor;
    }

    @Override
    protected CompletionStage<ApiMessage> handle(
            RequestContext context, InitProducerIdRequestData request, short version) {
        if (request.transactionalId() == null) {
            return CompletableFuture.supplyAsync(() -> idempotent(request), blockingExecutor);
        }
        long pid = version >= 3 ? request.producerId() : -1;
        short epoch = version >= 3 ? request.producerEpoch() : -1;
        return coordinator
                .initProducerId(
                        request.transactionalId(), request.transactionTimeoutMs(), pid, epoch)
                .thenApply(
                        r ->
                                new InitProducerIdResponseData()
                                        .setErrorCode(
                                                fencedForOldClients(r.error(), version < 4).code())
                                        .setProducerId(r.producerId())
                                        .setProducerEpoch(r.producerEpoch()));
    }

    private ApiMessage idempotent(InitProducerIdRequestData request) {
        long pid = request.producerId();
        short epoch = request.producerEpoch();
        try {
            if (producerIds.wasIssued(pid)
                    && epoch >= 0
                    && epoch < Short.MAX_VALUE - 1
                    && !coordinator.isTransactionalProducerId(pid)) {
                return ok(pid, (short) (epoch + 1));
            }
            return ok(producerIds.nextProducerId(), (short) 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InitProducerIdResponseData ok(long pid, short epoch) {
        return new InitProducerIdResponseData().setProducerId(pid).setProducerEpoch(epoch);
    }

    @Override
    protected ApiMessage errorResponse(
            InitProducerIdRequestData request, short version, Errors error) {
        return new InitProducerIdResponseData()
                .setErrorCode(error.code())
                .setProducerId(-1)
                .setProducerEpoch((short) -1);
    }
}

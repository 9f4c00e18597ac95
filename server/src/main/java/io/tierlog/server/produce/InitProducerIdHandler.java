package io.tierlog.server.produce;

import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.ProducerIdManager;
import java.io.IOException;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId for idempotent producers: a fresh producer id (never reused, see {@link
 * io.tierlog.server.meta.ProducerIdManager}) with epoch 0, or, when an existing producer asks to
 * resume (v3+, after a sequence error), the same id with the next epoch (a fresh id once the epoch
 * is exhausted). Transactional ids are refused with {@code NOT_COORDINATOR}: there is no
 * transaction coordinator. Runs on the blocking executor, never on an event loop. Thread-safe.
 */
final class InitProducerIdHandler extends SyncApiHandler<InitProducerIdRequestData> {

    private final ProducerIdManager producerIds;

    InitProducerIdHandler(ProducerIdManager producerIds, Executor blockingExecutor) {
        super(ApiKeys.INIT_PRODUCER_ID, 5, InitProducerIdRequestData.class, blockingExecutor);
        this.producerIds = producerIds;
    }

    /**
     * Always: issuing an id may reserve the next block of ids on disk (write, two fsyncs and a
     * rename), and the manager's lock may be held by a thread doing so. A producer asks once.
     */
    @Override
    protected boolean mayBlock(InitProducerIdRequestData request) {
        return true;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, InitProducerIdRequestData request, short version)
            throws IOException {
        InitProducerIdResponseData r =
                new InitProducerIdResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        if (request.transactionalId() != null) {
            return r.setErrorCode(Errors.NOT_COORDINATOR.code());
        }
        long pid = request.producerId();
        short epoch = request.producerEpoch();
        if (producerIds.wasIssued(pid) && epoch >= 0 && epoch < Short.MAX_VALUE - 1) {
            return r.setProducerId(pid).setProducerEpoch((short) (epoch + 1));
        }
        return r.setProducerId(producerIds.nextProducerId()).setProducerEpoch((short) 0);
    }
}

package io.tierlog.server.produce;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.ProducerIdManager;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The produce area's handlers: Produce and InitProducerId for idempotent producers (without a
 * transaction coordinator), or Produce with transactional verification (with one). Stateless.
 */
public final class ProduceApis {
    private ProduceApis() {}

    /**
     * @param engine the log appended to, with its topics (a topic's durability decides where an
     *     append runs)
     * @param producerIds the issued producer ids (InitProducerId)
     * @param blockingExecutor where InitProducerId and the appends that may block (fsync topics, a
     *     partition whose append rolls a segment, transactional batches) run, off the event loops
     */
    public static List<ApiHandler> handlers(
            TieredLog engine, ProducerIdManager producerIds, Executor blockingExecutor) {
        return List.of(
                new ProduceHandler(engine, blockingExecutor, null),
                new InitProducerIdHandler(producerIds, blockingExecutor));
    }

    /**
     * Produce alone, with transactional batches verified by the transaction coordinator (KIP-890)
     * and Produce v12 (TV2) served; InitProducerId then belongs to the transaction area.
     *
     * @param txnCheck the coordinator's partition check
     */
    public static ApiHandler transactionalProduce(
            TieredLog engine, Executor blockingExecutor, TxnPartitionCheck txnCheck) {
        return new ProduceHandler(
                engine, blockingExecutor, java.util.Objects.requireNonNull(txnCheck));
    }
}

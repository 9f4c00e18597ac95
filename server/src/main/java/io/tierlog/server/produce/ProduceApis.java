package io.tierlog.server.produce;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.ProducerIdManager;
import java.util.List;
import java.util.concurrent.Executor;

/** The produce area's handlers: Produce and InitProducerId. Stateless. */
public final class ProduceApis {
    private ProduceApis() {}

    /**
     * @param engine the log appended to, with its topics (a topic's durability decides where an
     *     append runs)
     * @param producerIds the issued producer ids (InitProducerId)
     * @param blockingExecutor where InitProducerId and the appends that may block (fsync topics, a
     *     partition whose append rolls a segment) run, off the event loops
     */
    public static List<ApiHandler> handlers(
            TieredLog engine, ProducerIdManager producerIds, Executor blockingExecutor) {
        return List.of(
                new ProduceHandler(engine, blockingExecutor),
                new InitProducerIdHandler(producerIds, blockingExecutor));
    }
}

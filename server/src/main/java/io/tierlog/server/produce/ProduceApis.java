package io.tierlog.server.produce;

import io.tierlog.hot.LogManager;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.ProducerIdManager;
import io.tierlog.server.meta.TopicRegistry;
import java.util.List;
import java.util.concurrent.Executor;

/** The produce area's handlers: Produce and InitProducerId. Stateless. */
public final class ProduceApis {
    private ProduceApis() {}

    /**
     * @param topics topic lookup and each topic's log config (durability decides where an append
     *     runs)
     * @param logs the partitions appended to
     * @param producerIds the issued producer ids (InitProducerId)
     * @param blockingExecutor where appends that wait for fsync run, off the event loops
     */
    public static List<ApiHandler> handlers(
            TopicRegistry topics,
            LogManager logs,
            ProducerIdManager producerIds,
            Executor blockingExecutor) {
        return List.of(
                new ProduceHandler(topics, logs, blockingExecutor),
                new InitProducerIdHandler(producerIds, blockingExecutor));
    }
}

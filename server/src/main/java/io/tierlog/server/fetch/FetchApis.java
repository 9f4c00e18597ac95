package io.tierlog.server.fetch;

import io.tierlog.engine.TieredLog;
import io.tierlog.hot.LogManager;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/** The fetch area's handlers: Fetch (with long polls) and ListOffsets. Stateless. */
public final class FetchApis {
    private FetchApis() {}

    /**
     * @param metadata topic lookup by name and id
     * @param source where records are read from (hot, or both tiers)
     * @param waiters wakes parked long-poll fetches on append
     * @param logs the hot partitions (offsets of ListOffsets)
     * @param tiered the engine when both tiers serve; ListOffsets then answers across tiers
     * @param blockingExecutor where tiered ListOffsets runs (it may read the catalog)
     */
    public static List<ApiHandler> handlers(
            MetadataService metadata,
            FetchSource source,
            FetchWaiters waiters,
            LogManager logs,
            Optional<TieredLog> tiered,
            Executor blockingExecutor) {
        return List.of(
                new FetchHandler(metadata, source, waiters),
                new ListOffsetsHandler(metadata, logs, tiered, blockingExecutor));
    }
}

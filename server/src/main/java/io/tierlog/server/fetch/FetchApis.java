package io.tierlog.server.fetch;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.meta.MetadataService;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The fetch area's handlers: Fetch (with long polls), ListOffsets and OffsetForLeaderEpoch.
 * Stateless.
 */
public final class FetchApis {
    private FetchApis() {}

    /**
     * @param metadata topic lookup by name and id
     * @param source where records are read from (hot, or both tiers)
     * @param waiters wakes parked long-poll fetches on append
     * @param engine the log of both tiers (the offsets of ListOffsets)
     * @param blockingExecutor where ListOffsets by timestamp runs (it may read the cold tier)
     */
    public static List<ApiHandler> handlers(
            MetadataService metadata,
            FetchSource source,
            FetchWaiters waiters,
            TieredLog engine,
            Executor blockingExecutor) {
        return List.of(
                new FetchHandler(metadata, source, waiters),
                new ListOffsetsHandler(metadata, engine, blockingExecutor),
                new OffsetForLeaderEpochHandler(metadata, engine));
    }
}

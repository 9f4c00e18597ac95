package io.tierlog.server.storage;

import io.tierlog.engine.TieredLog;
import io.tierlog.server.dispatch.ApiHandler;
import java.util.List;
import java.util.concurrent.Executor;

/** The storage area's handlers: DeleteRecords and DescribeLogDirs. Stateless. */
public final class StorageApis {
    private StorageApis() {}

    /**
     * @param engine the log of both tiers: log start offsets, hot sizes, the hot log dir
     * @param blockingExecutor where DeleteRecords runs (a catalog transaction, segment and object
     *     deletions) and DescribeLogDirs (a file-store query)
     */
    public static List<ApiHandler> handlers(TieredLog engine, Executor blockingExecutor) {
        return List.of(
                new DeleteRecordsHandler(engine, blockingExecutor),
                new DescribeLogDirsHandler(engine, blockingExecutor));
    }
}

package io.tierlog.server;

import io.tierlog.server.admin.CreateTopicsHandler;
import io.tierlog.server.admin.DeleteTopicsHandler;
import io.tierlog.server.admin.DescribeConfigsHandler;
import io.tierlog.server.dispatch.ApiHandler;
import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.fetch.FetchHandler;
import io.tierlog.server.fetch.ListOffsetsHandler;
import io.tierlog.server.group.HeartbeatHandler;
import io.tierlog.server.group.JoinGroupHandler;
import io.tierlog.server.group.LeaveGroupHandler;
import io.tierlog.server.group.OffsetCommitHandler;
import io.tierlog.server.group.OffsetFetchHandler;
import io.tierlog.server.group.SyncGroupHandler;
import io.tierlog.server.metadata.ApiVersionsHandler;
import io.tierlog.server.metadata.FindCoordinatorHandler;
import io.tierlog.server.metadata.MetadataHandler;
import io.tierlog.server.produce.InitProducerIdHandler;
import io.tierlog.server.produce.ProduceHandler;
import java.util.List;
import java.util.function.Supplier;

/**
 * The list of served APIs: adding a handler here both routes and advertises it. Stateless.
 *
 * <p>Version ranges are chosen for today's clients: kafka-clients 4.4 (up to the listed maxima),
 * librdkafka 2.0.2 (needs Produce >= 7 and Fetch >= 10 for ZSTD, FindCoordinator for LZ4) and
 * kafka-python 2.0.2 (Produce 7, Fetch 4, ListOffsets 1, Metadata 1). Produce stops at v11 and
 * OffsetCommit/OffsetFetch at v9: later versions address topics by id only. Transactions,
 * DescribeGroups/ListGroups and the KIP-848 group protocol are not served.
 */
public final class ApiHandlers {
    private ApiHandlers() {}

    public static List<ApiHandler> all(Broker broker, Supplier<ApiRegistry> registry) {
        return List.of(
                new ApiVersionsHandler(broker, registry),
                new MetadataHandler(broker),
                new ProduceHandler(broker),
                new FetchHandler(broker),
                new ListOffsetsHandler(broker),
                new InitProducerIdHandler(broker),
                new CreateTopicsHandler(broker),
                new DeleteTopicsHandler(broker),
                new DescribeConfigsHandler(broker),
                new FindCoordinatorHandler(broker),
                new JoinGroupHandler(broker),
                new SyncGroupHandler(broker),
                new HeartbeatHandler(broker),
                new LeaveGroupHandler(broker),
                new OffsetCommitHandler(broker),
                new OffsetFetchHandler(broker));
    }
}

package io.tierlog.server.metadata;

import io.tierlog.server.Listener;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import io.tierlog.server.meta.MetadataService;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator: this server coordinates every consumer group (classic protocol, see {@link
 * io.tierlog.server.group.coordinator.GroupCoordinator}); transaction keys get {@code
 * COORDINATOR_NOT_AVAILABLE} as there is no transaction coordinator. (librdkafka also needs the API
 * advertised to use LZ4.) Thread-safe.
 */
final class FindCoordinatorHandler extends SyncApiHandler<FindCoordinatorRequestData> {
    private static final String NO_TXN = "tierlog has no transaction coordinator";
    private static final byte GROUP = 0;

    private final MetadataService metadata;

    FindCoordinatorHandler(MetadataService metadata) {
        super(ApiKeys.FIND_COORDINATOR, 4, FindCoordinatorRequestData.class);
        this.metadata = metadata;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, FindCoordinatorRequestData request, short version) {
        FindCoordinatorResponseData r = new FindCoordinatorResponseData();
        Listener ep = metadata.advertised();
        boolean group = request.keyType() == GROUP;
        if (version < 4) {
            if (!group) {
                return r.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                        .setErrorMessage(NO_TXN)
                        .setNodeId(-1)
                        .setHost("")
                        .setPort(-1);
            }
            return r.setNodeId(metadata.nodeId()).setHost(ep.host()).setPort(ep.port());
        }
        for (String key : request.coordinatorKeys()) {
            FindCoordinatorResponseData.Coordinator c =
                    new FindCoordinatorResponseData.Coordinator().setKey(key);
            if (group) {
                c.setNodeId(metadata.nodeId()).setHost(ep.host()).setPort(ep.port());
            } else {
                c.setNodeId(-1)
                        .setHost("")
                        .setPort(-1)
                        .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                        .setErrorMessage(NO_TXN);
            }
            r.coordinators().add(c);
        }
        return r;
    }
}

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
 * FindCoordinator: this server coordinates every consumer group (key type 0, see {@link
 * io.tierlog.server.group.coordinator.GroupCoordinator}) and, when the transaction coordinator is
 * wired, every transactional id (key type 1); without it transaction keys get the retriable {@code
 * COORDINATOR_NOT_AVAILABLE}. Other key types (share groups) get {@code INVALID_REQUEST}, as Kafka
 * answers a type it does not know. (librdkafka also needs the API advertised to use LZ4.)
 * Thread-safe.
 */
final class FindCoordinatorHandler extends SyncApiHandler<FindCoordinatorRequestData> {
    private static final String NO_TXN = "tierlog serves no transactions";
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;

    private final MetadataService metadata;
    private final boolean transactions;

    /**
     * @param transactions true when a transaction coordinator serves transactional ids
     */
    FindCoordinatorHandler(MetadataService metadata, boolean transactions) {
        super(ApiKeys.FIND_COORDINATOR, 4, FindCoordinatorRequestData.class);
        this.metadata = metadata;
        this.transactions = transactions;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, FindCoordinatorRequestData request, short version) {
        FindCoordinatorResponseData r = new FindCoordinatorResponseData();
        Listener ep = metadata.advertised();
        Errors error = error(request.keyType());
        if (version < 4) {
            if (error != Errors.NONE) {
                return r.setErrorCode(error.code())
                        .setErrorMessage(message(error))
                        .setNodeId(-1)
                        .setHost("")
                        .setPort(-1);
            }
            return r.setNodeId(metadata.nodeId()).setHost(ep.host()).setPort(ep.port());
        }
        for (String key : request.coordinatorKeys()) {
            FindCoordinatorResponseData.Coordinator c =
                    new FindCoordinatorResponseData.Coordinator().setKey(key);
            if (error == Errors.NONE) {
                c.setNodeId(metadata.nodeId()).setHost(ep.host()).setPort(ep.port());
            } else {
                c.setNodeId(-1)
                        .setHost("")
                        .setPort(-1)
                        .setErrorCode(error.code())
                        .setErrorMessage(message(error));
            }
            r.coordinators().add(c);
        }
        return r;
    }

    private Errors error(byte keyType) {
        if (keyType == GROUP) {
            return Errors.NONE;
        }
        if (keyType == TRANSACTION) {
            return transactions ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE;
        }
        return Errors.INVALID_REQUEST;
    }

    private static String message(Errors error) {
        return error == Errors.COORDINATOR_NOT_AVAILABLE ? NO_TXN : "unknown coordinator key type";
    }
}

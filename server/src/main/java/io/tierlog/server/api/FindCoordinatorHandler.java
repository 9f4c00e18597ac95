package io.tierlog.server.api;

import io.tierlog.server.Broker;
import io.tierlog.server.net.RequestContext;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator: there is no group or transaction coordinator, so every key is answered with
 * {@code COORDINATOR_NOT_AVAILABLE} (retriable, the proper code). The API is advertised because
 * librdkafka enables LZ4 only when it is; consumers that use {@code assign()} never call it.
 * Thread-safe.
 */
public final class FindCoordinatorHandler extends SyncApiHandler<FindCoordinatorRequestData> {
    private static final String MESSAGE = "tierlog has no group or transaction coordinator";

    public FindCoordinatorHandler(Broker broker) {
        super(broker, FindCoordinatorRequestData.class);
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FIND_COORDINATOR;
    }

    @Override
    public short maxVersion() {
        return 4;
    }

    @Override
    ApiMessage handle(RequestContext context, FindCoordinatorRequestData request, short version) {
        FindCoordinatorResponseData r = new FindCoordinatorResponseData();
        short code = Errors.COORDINATOR_NOT_AVAILABLE.code();
        if (version < 4) {
            return r.setErrorCode(code)
                    .setErrorMessage(MESSAGE)
                    .setNodeId(-1)
                    .setHost("")
                    .setPort(-1);
        }
        for (String key : request.coordinatorKeys()) {
            r.coordinators()
                    .add(
                            new FindCoordinatorResponseData.Coordinator()
                                    .setKey(key)
                                    .setNodeId(-1)
                                    .setHost("")
                                    .setPort(-1)
                                    .setErrorCode(code)
                                    .setErrorMessage(MESSAGE));
        }
        return r;
    }
}

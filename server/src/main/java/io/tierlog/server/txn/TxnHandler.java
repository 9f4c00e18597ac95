package io.tierlog.server.txn;

import io.tierlog.server.dispatch.ApiHandlerBase;
import io.tierlog.server.dispatch.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Base of the transaction area's handlers, whose answers come from the coordinator's futures: the
 * request is handed over on the calling thread (the coordinator never blocks it, see {@code
 * TransactionCoordinator}) and the response is sent when the future completes, from whatever thread
 * completes it. A future that fails (a bug, a stub not implemented yet) is answered with the
 * request's error response carrying Kafka's code for the exception ({@code UNKNOWN_SERVER_ERROR}
 * for a non-Kafka one), never by closing the connection. Subclasses must be thread-safe.
 */
abstract class TxnHandler<Q extends ApiMessage> extends ApiHandlerBase {
    private static final Logger log = LoggerFactory.getLogger(TxnHandler.class);

    private final Class<Q> requestType;

    TxnHandler(ApiKeys apiKey, int maxVersion, Class<Q> requestType) {
        super(apiKey, maxVersion);
        this.requestType = requestType;
    }

    @Override
    public final CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage message) {
        Q request = requestType.cast(message);
        short version = context.apiVersion();
        CompletionStage<ApiMessage> answer;
        try {
            answer = handle(context, request, version);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.handle(
                (r, failure) -> {
                    if (failure == null) {
                        return r;
                    }
                    Throwable cause =
                            failure instanceof CompletionException && failure.getCause() != null
                                    ? failure.getCause()
                                    : failure;
                    Errors error = Errors.forException(cause);
                    if (error == Errors.UNKNOWN_SERVER_ERROR) {
                        log.warn("{} v{} failed", apiKey(), version, cause);
                    }
                    return errorResponse(request, version, error);
                });
    }

    /** The response, from the coordinator's future. */
    protected abstract CompletionStage<ApiMessage> handle(
            RequestContext context, Q request, short version);

    /** The response giving {@code error} to everything the request asked. */
    protected abstract ApiMessage errorResponse(Q request, short version, Errors error);

    /** Kafka's answer to clients older than PRODUCER_FENCED (KIP-588): INVALID_PRODUCER_EPOCH. */
    static Errors fencedForOldClients(Errors error, boolean oldClient) {
        return oldClient && error == Errors.PRODUCER_FENCED ? Errors.INVALID_PRODUCER_EPOCH : error;
    }
}

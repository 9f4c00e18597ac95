package io.tierlog.server.dispatch;

import io.tierlog.server.Broker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Base of handlers that answer without waiting for other requests (inline on the event loop, or on
 * the blocking executor when {@link #mayBlock} says so). Subclasses are stateless apart from the
 * shared {@link Broker}; thread-safe.
 */
abstract class SyncApiHandler<Q extends ApiMessage> implements ApiHandler {
    protected final Broker broker;
    private final Class<Q> requestType;

    SyncApiHandler(Broker broker, Class<Q> requestType) {
        this.broker = broker;
        this.requestType = requestType;
    }

    @Override
    public final CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        Q q = requestType.cast(request);
        if (mayBlock(q)) {
            return CompletableFuture.supplyAsync(
                    () -> handleUnchecked(context, q), broker.blockingExecutor());
        }
        return CompletableFuture.completedFuture(handleUnchecked(context, q));
    }

    private ApiMessage handleUnchecked(RequestContext context, Q request) {
        try {
            return handle(context, request, context.apiVersion());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * True when serving this request may block (an fsync); it then runs on the broker's blocking
     * executor instead of the event loop. The connection still answers its requests in order.
     */
    boolean mayBlock(Q request) {
        return false;
    }

    /** The response body, or {@code null} for no response. */
    abstract ApiMessage handle(RequestContext context, Q request, short version) throws IOException;
}

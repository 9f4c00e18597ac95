package io.tierlog.server.api;

import io.tierlog.server.Broker;
import io.tierlog.server.net.ApiHandler;
import io.tierlog.server.net.RequestContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Base of handlers that answer immediately. Subclasses are stateless apart from the shared {@link
 * Broker}; thread-safe.
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
        try {
            return CompletableFuture.completedFuture(
                    handle(context, requestType.cast(request), context.apiVersion()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The response body, or {@code null} for no response. */
    abstract ApiMessage handle(RequestContext context, Q request, short version) throws IOException;
}

package io.tierlog.server.dispatch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Base of handlers that answer without waiting for other requests (inline on the event loop, or on
 * the blocking executor when {@link #mayBlock} says so). A handler names its API and the highest
 * version it serves in the constructor. Subclasses hold only the services they were given and must
 * be thread-safe.
 */
public abstract class SyncApiHandler<Q extends ApiMessage> extends ApiHandlerBase {
    private final Class<Q> requestType;
    private final Executor blockingExecutor;

    /** A handler of {@code apiKey} up to {@code maxVersion} that never blocks. */
    protected SyncApiHandler(ApiKeys apiKey, int maxVersion, Class<Q> requestType) {
        this(apiKey, maxVersion, requestType, null);
    }

    /**
     * A handler of {@code apiKey} up to {@code maxVersion} whose requests may block; those run on
     * {@code blockingExecutor}.
     */
    protected SyncApiHandler(
            ApiKeys apiKey, int maxVersion, Class<Q> requestType, Executor blockingExecutor) {
        super(apiKey, maxVersion);
        this.requestType = requestType;
        this.blockingExecutor = blockingExecutor;
    }

    @Override
    public final CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        Q q = requestType.cast(request);
        if (mayBlock(q)) {
            if (blockingExecutor == null) {
                throw new IllegalStateException(apiKey() + " may block but has no executor");
            }
            return CompletableFuture.supplyAsync(
                    () -> handleUnchecked(context, q), blockingExecutor);
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
     * True when serving this request may block (an fsync); it then runs on the blocking executor
     * instead of the event loop. The connection still answers its requests in order.
     */
    protected boolean mayBlock(Q request) {
        return false;
    }

    /** The response body, or {@code null} for no response. */
    protected abstract ApiMessage handle(RequestContext context, Q request, short version)
            throws IOException;
}

package io.tierlog.server.dispatch;

import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Serves one Kafka API. Handlers are shared by every connection and must be thread-safe; they run
 * on the connection's event loop and must not block for long (a handler that waits, like a long
 * poll fetch, returns an incomplete stage and completes it later from any thread).
 *
 * <p>Contract: the returned stage completes with the response body, or with {@code null} when the
 * request gets no response (produce with {@code acks=0}). A stage completed exceptionally closes
 * the connection (an internal error); errors that the protocol can express must be error codes in
 * the response instead.
 */
public interface ApiHandler {
    ApiKeys apiKey();

    /** Lowest version advertised in ApiVersions and accepted. */
    default short minVersion() {
        return apiKey().oldestVersion();
    }

    /** Highest version advertised in ApiVersions and accepted. */
    short maxVersion();

    CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request);
}

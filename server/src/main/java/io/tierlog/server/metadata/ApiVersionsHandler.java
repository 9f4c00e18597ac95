package io.tierlog.server.metadata;

import io.tierlog.server.dispatch.ApiRegistry;
import io.tierlog.server.dispatch.RequestContext;
import io.tierlog.server.dispatch.SyncApiHandler;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions: lists every served API with its version range (from the {@link ApiRegistry}, so what
 * is advertised is exactly what is routed). Unsupported versions of ApiVersions itself are answered
 * by the channel handler with a v0 body and {@code UNSUPPORTED_VERSION}. From v3 the answer carries
 * the registry's features (supported and finalized {@code transaction.version}, with the finalized
 * epoch): kafka-clients 4.4 picks the transaction protocol from them. Thread-safe.
 */
final class ApiVersionsHandler extends SyncApiHandler<ApiVersionsRequestData> {
    private final Supplier<ApiRegistry> registry;

    ApiVersionsHandler(Supplier<ApiRegistry> registry) {
        super(ApiKeys.API_VERSIONS, 4, ApiVersionsRequestData.class);
        this.registry = registry;
    }

    @Override
    protected ApiMessage handle(
            RequestContext context, ApiVersionsRequestData request, short version) {
        if (version >= 3
                && (!validName(request.clientSoftwareName())
                        || !validName(request.clientSoftwareVersion()))) {
            return registry.get().apiVersions(Errors.INVALID_REQUEST.code(), version);
        }
        return registry.get().apiVersions(Errors.NONE.code(), version);
    }

    /** Kafka's rule for client software name/version: [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])? */
    private static boolean validName(String s) {
        return s != null && s.matches("[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?");
    }
}

package io.tierlog.server.dispatch;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Base of handlers that name their API and the highest version they serve when constructed, instead
 * of overriding {@link #apiKey} and {@link #maxVersion}. The lowest version stays {@link
 * ApiHandler#minVersion}'s default. Immutable; subclasses must be thread-safe.
 */
public abstract class ApiHandlerBase implements ApiHandler {
    private final ApiKeys apiKey;
    private final short maxVersion;

    /** A handler of {@code apiKey}, versions up to {@code maxVersion}. */
    protected ApiHandlerBase(ApiKeys apiKey, int maxVersion) {
        this.apiKey = java.util.Objects.requireNonNull(apiKey);
        this.maxVersion = (short) maxVersion;
    }

    @Override
    public ApiKeys apiKey() {
        return apiKey;
    }

    @Override
    public short maxVersion() {
        return maxVersion;
    }
}

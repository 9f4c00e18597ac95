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
        this.apiKey = apiKey;
        this.maxVersion = (short) maxVersion;
    }

    /**
     * A handler that overrides {@link #apiKey} and {@link #maxVersion} itself (the produce area's
     * handlers still do).
     */
    protected ApiHandlerBase() {
        this(null, -1);
    }

    @Override
    public ApiKeys apiKey() {
        return named();
    }

    @Override
    public short maxVersion() {
        named();
        return maxVersion;
    }

    private ApiKeys named() {
        if (apiKey == null) {
            throw new IllegalStateException(getClass().getName() + " names no API");
        }
        return apiKey;
    }
}

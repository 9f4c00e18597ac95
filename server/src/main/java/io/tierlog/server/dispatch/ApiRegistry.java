package io.tierlog.server.dispatch;

import io.tierlog.common.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this server serves and the version range of each: the single source of both request
 * routing and the ApiVersions answer, so nothing is advertised that is not handled. Immutable after
 * construction; thread-safe.
 */
public final class ApiRegistry {
    private final ApiHandler[] byKey = new ApiHandler[Short.MAX_VALUE + 1];
    private final List<ApiHandler> handlers = new ArrayList<>();
    private final ResponseErrorLog errorLog;

    public ApiRegistry(Collection<? extends ApiHandler> handlers) {
        this(handlers, new ResponseErrorLog(Time.SYSTEM));
    }

    /** A registry whose responses with errors of interest are logged to {@code errorLog}. */
    public ApiRegistry(Collection<? extends ApiHandler> handlers, ResponseErrorLog errorLog) {
        this.errorLog = java.util.Objects.requireNonNull(errorLog);
        for (ApiHandler h : handlers) {
            if (byKey[h.apiKey().id] != null) {
                throw new IllegalArgumentException("two handlers for " + h.apiKey());
            }
            if (h.minVersion() < h.apiKey().oldestVersion()
                    || h.maxVersion() > h.apiKey().latestVersion(true)
                    || h.minVersion() > h.maxVersion()) {
                throw new IllegalArgumentException(
                        "bad version range for "
                                + h.apiKey()
                                + ": "
                                + h.minVersion()
                                + "-"
                                + h.maxVersion());
            }
            byKey[h.apiKey().id] = h;
            this.handlers.add(h);
        }
    }

    /** The handler of an API key, if served. */
    public Optional<ApiHandler> handler(short apiKey) {
        return apiKey < 0 ? Optional.empty() : Optional.ofNullable(byKey[apiKey]);
    }

    /** Where the connections report each response, for the errors in it to be logged. */
    public ResponseErrorLog errorLog() {
        return errorLog;
    }

    public List<ApiHandler> handlers() {
        return List.copyOf(handlers);
    }

    /** The ApiVersions response body listing every served API. */
    public ApiVersionsResponseData apiVersions(short errorCode) {
        ApiVersionCollection keys = new ApiVersionCollection();
        for (ApiHandler h : handlers) {
            keys.add(
                    new ApiVersion()
                            .setApiKey(h.apiKey().id)
                            .setMinVersion(h.minVersion())
                            .setMaxVersion(h.maxVersion()));
        }
        return new ApiVersionsResponseData()
                .setErrorCode(errorCode)
                .setApiKeys(keys)
                .setThrottleTimeMs(0);
    }

    /** True when ApiVersions is served (it is always, but keeps the check in one place). */
    boolean servesApiVersions() {
        return byKey[ApiKeys.API_VERSIONS.id] != null;
    }
}

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
    private final Features features;

    /**
     * A feature (Kafka's KIP-584 feature flags) this server supports, with the level it runs at.
     *
     * @param name Kafka's feature name, e.g. {@code transaction.version}
     * @param minSupported lowest level this server could run at
     * @param maxSupported highest level this server could run at
     * @param finalizedLevel the level in force; 0 = finalized features omit it, as Kafka does
     */
    public record Feature(
            String name, short minSupported, short maxSupported, short finalizedLevel) {
        public Feature {
            if (minSupported < 0
                    || minSupported > maxSupported
                    || finalizedLevel < minSupported
                    || finalizedLevel > maxSupported) {
                throw new IllegalArgumentException("bad levels for feature " + name);
            }
        }
    }

    /**
     * The features ApiVersions v3+ advertises.
     *
     * @param features supported and finalized levels
     * @param finalizedEpoch {@code FinalizedFeaturesEpoch}: clients act on finalized levels only
     *     when it is above the last one they saw, so it must grow across restarts (the server's
     *     start time in ms); -1 with no features
     */
    public record Features(List<Feature> features, long finalizedEpoch) {
        /** No features: what a server without transactions advertises. */
        public static final Features NONE = new Features(List.of(), -1);

        public Features {
            features = List.copyOf(features);
        }
    }

    public ApiRegistry(Collection<? extends ApiHandler> handlers) {
        this(handlers, new ResponseErrorLog(Time.SYSTEM));
    }

    /** A registry whose responses with errors of interest are logged to {@code errorLog}. */
    public ApiRegistry(Collection<? extends ApiHandler> handlers, ResponseErrorLog errorLog) {
        this(handlers, errorLog, Features.NONE);
    }

    /** A registry advertising {@code features} in ApiVersions v3+. */
    public ApiRegistry(
            Collection<? extends ApiHandler> handlers,
            ResponseErrorLog errorLog,
            Features features) {
        this.errorLog = java.util.Objects.requireNonNull(errorLog);
        this.features = java.util.Objects.requireNonNull(features);
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

    /** The advertised features. */
    public Features features() {
        return features;
    }

    /**
     * The ApiVersions response body of {@code version}: every served API and, from v3 (where the
     * fields exist), the supported and finalized features.
     */
    public ApiVersionsResponseData apiVersions(short errorCode, short version) {
        ApiVersionsResponseData r = apiVersions(errorCode);
        if (version < 3 || features.features().isEmpty()) {
            return r;
        }
        for (Feature f : features.features()) {
            r.supportedFeatures()
                    .add(
                            new ApiVersionsResponseData.SupportedFeatureKey()
                                    .setName(f.name())
                                    .setMinVersion(f.minSupported())
                                    .setMaxVersion(f.maxSupported()));
            if (f.finalizedLevel() > 0) {
                r.finalizedFeatures()
                        .add(
                                new ApiVersionsResponseData.FinalizedFeatureKey()
                                        .setName(f.name())
                                        .setMinVersionLevel(f.finalizedLevel())
                                        .setMaxVersionLevel(f.finalizedLevel()));
            }
        }
        return r.setFinalizedFeaturesEpoch(features.finalizedEpoch());
    }

    /** The ApiVersions response body listing every served API (no features: any version). */
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

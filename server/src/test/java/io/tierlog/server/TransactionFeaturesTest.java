package io.tierlog.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import io.tierlog.server.dispatch.ApiRegistry;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code transaction.version} feature in ApiVersions: kafka-clients 4.4 speaks TV2 only when
 * the finalized level is 2 and the finalized epoch is above the last one it saw, so the level must
 * follow the option exactly, appear only when transactions are served, and serialize at every
 * version (the feature fields exist from v3 only).
 */
class TransactionFeaturesTest {
    private static final long EPOCH = 1_764_000_000_000L;

    private static ApiRegistry registry(Map<String, String> settings, boolean transactions) {
        return new ApiRegistry(
                List.of(),
                new io.tierlog.server.dispatch.ResponseErrorLog(io.tierlog.common.Time.SYSTEM),
                ApiHandlers.features(Config.of(settings), transactions, EPOCH));
    }

    /** The body as a client decodes it after the server wrote it at {@code version}. */
    private static ApiVersionsResponseData roundTrip(ApiVersionsResponseData body, short version) {
        ByteBuffer bytes =
                org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(body, version)
                        .buffer();
        bytes.rewind();
        return ApiVersionsResponse.parse(
                        new org.apache.kafka.common.protocol.ByteBufferAccessor(bytes), version)
                .data();
    }

    @ParameterizedTest
    @ValueSource(shorts = {1, 2})
    void theFinalizedLevelIsTheOptionsAndTheSupportedRangeIsZeroToTwo(short level) {
        ApiVersionsResponseData r =
                roundTrip(
                        registry(Map.of("transaction.version", String.valueOf(level)), true)
                                .apiVersions(Errors.NONE.code(), (short) 3),
                        (short) 3);

        assertThat(r.supportedFeatures().find("transaction.version").minVersion()).isZero();
        assertThat(r.supportedFeatures().find("transaction.version").maxVersion())
                .isEqualTo((short) 2);
        assertThat(r.finalizedFeatures().find("transaction.version").maxVersionLevel())
                .isEqualTo(level);
        assertThat(r.finalizedFeatures().find("transaction.version").minVersionLevel())
                .isEqualTo(level);
        assertThat(r.finalizedFeaturesEpoch()).isEqualTo(EPOCH);
    }

    @Test
    void theDefaultLevelIsTwo() {
        ApiVersionsResponseData r =
                registry(Map.of(), true).apiVersions(Errors.NONE.code(), (short) 4);
        assertThat(r.finalizedFeatures().find("transaction.version").maxVersionLevel())
                .isEqualTo((short) 2);
    }

    @Test
    void levelZeroIsSupportedButNotFinalizedAsKafkaOmitsLevelZero() {
        ApiVersionsResponseData r =
                registry(Map.of("transaction.version", "0"), true)
                        .apiVersions(Errors.NONE.code(), (short) 3);
        assertThat(r.supportedFeatures().find("transaction.version")).isNotNull();
        assertThat(r.finalizedFeatures()).isEmpty();
    }

    @Test
    void withoutTransactionsNoFeatureIsAdvertisedSoClientsStayOnTheOldProtocol() {
        ApiVersionsResponseData r =
                registry(Map.of(), false).apiVersions(Errors.NONE.code(), (short) 3);
        assertThat(r.supportedFeatures()).isEmpty();
        assertThat(r.finalizedFeatures()).isEmpty();
        assertThat(r.finalizedFeaturesEpoch()).isEqualTo(-1);
    }

    @ParameterizedTest
    @ValueSource(shorts = {0, 1, 2})
    void versionsBeforeThreeCarryNoFeaturesAndStillSerialize(short version) {
        ApiVersionsResponseData body =
                registry(Map.of(), true).apiVersions(Errors.NONE.code(), version);
        assertThat(body.supportedFeatures()).isEmpty();
        assertThat(roundTrip(body, version).errorCode()).isZero();
    }

    @Test
    void theServerRefusesALevelOutsideZeroToTwo() {
        assertThatThrownBy(() -> ServerOptions.TRANSACTION_VERSION.parse("3"))
                .hasMessageContaining("transaction.version");
        assertThatThrownBy(() -> ServerOptions.TRANSACTION_VERSION.parse("-1"))
                .hasMessageContaining("transaction.version");
        assertThat(ServerOptions.TRANSACTION_VERSION.parse("1")).isEqualTo(1);
    }
}

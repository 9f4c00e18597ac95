package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import io.tierlog.common.ConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Typed cold-tier options: defaults, parsing, and clear errors naming the key. */
class ColdTierOptionsTest {
    @Test
    void defaultsNeedNoConfiguration() {
        ColdTierOptions o = ColdTierOptions.defaults();
        assertThat(o.endpoint()).isEmpty();
        assertThat(o.accessKey()).isEmpty();
        assertThat(o.compression()).isEqualTo(ColdCompression.ZSTD);
        assertThat(o.multipartThresholdBytes()).isEqualTo(64L << 20);
        assertThat(o.prefix()).isEmpty();
        assertThat(o.retryMaxAttempts()).isGreaterThan(1);
    }

    @Test
    void valuesParseWithUnits() {
        ColdTierOptions o =
                ColdTierOptions.from(
                        Config.of(
                                Map.of(
                                        "s3.endpoint", "http://127.0.0.1:9000",
                                        "s3.prefix", "/a/b/",
                                        "s3.multipart.threshold.bytes", "8MiB",
                                        "s3.request.timeout.ms", "1500",
                                        "cold.compression", "lz4_raw",
                                        "cold.cache.bytes", "1GiB")));
        assertThat(o.endpoint()).contains("http://127.0.0.1:9000");
        assertThat(o.prefix()).isEqualTo("a/b/");
        assertThat(o.multipartThresholdBytes()).isEqualTo(8L << 20);
        assertThat(o.requestTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(o.compression()).isEqualTo(ColdCompression.LZ4_RAW);
        assertThat(o.cacheBytes()).isEqualTo(1L << 30);
    }

    @Test
    void badValuesFailNamingTheKey() {
        assertThatThrownBy(
                        () -> ColdTierOptions.from(Config.of(Map.of("cold.compression", "brotli"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cold.compression");
        assertThatThrownBy(
                        () ->
                                ColdTierOptions.from(
                                        Config.of(Map.of("s3.multipart.threshold.bytes", "1MiB"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("s3.multipart.threshold.bytes");
        assertThatThrownBy(
                        () -> ColdTierOptions.from(Config.of(Map.of("s3.endpoint", "minio:9000"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("s3.endpoint");
        assertThatThrownBy(() -> ColdTierOptions.from(Config.of(Map.of("s3.access.key", "only"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("s3.secret.key");
    }

    @Test
    void toStringHidesTheSecret() {
        ColdTierOptions o =
                ColdTierOptions.from(
                        Config.of(Map.of("s3.access.key", "AK", "s3.secret.key", "very-secret")));
        assertThat(o.toString()).doesNotContain("very-secret").contains("AK");
    }
}

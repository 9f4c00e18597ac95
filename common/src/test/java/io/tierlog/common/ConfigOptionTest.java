package io.tierlog.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigOptionTest {
    private static final ConfigOption<ByteSize> SEGMENT_BYTES =
            ConfigOption.bytesOption("segment.bytes")
                    .defaultValue(ByteSize.ofGiB(1))
                    .validator(v -> v.bytes() >= 14 ? null : "must be at least 14 bytes")
                    .doc("Size of a segment before it rolls.")
                    .build();
    private static final ConfigOption<Duration> SEGMENT_MS =
            ConfigOption.durationOption("segment.ms").defaultValue(Duration.ofDays(7)).build();

    @Test
    void unsetKeyYieldsDefault() {
        assertThat(Config.empty().get(SEGMENT_BYTES)).isEqualTo(ByteSize.ofGiB(1));
        assertThat(SEGMENT_BYTES.defaultString()).isEqualTo("1GiB");
        assertThat(SEGMENT_MS.defaultString()).isEqualTo("7d");
    }

    @Test
    void plainNumbersAndUnitsParseAlike() {
        assertThat(Config.of(java.util.Map.of("segment.bytes", "1048576")).get(SEGMENT_BYTES))
                .isEqualTo(ByteSize.ofMiB(1));
        assertThat(Config.of(java.util.Map.of("segment.bytes", "1MiB")).get(SEGMENT_BYTES))
                .isEqualTo(ByteSize.ofMiB(1));
        assertThat(Config.of(java.util.Map.of("segment.ms", "60000")).get(SEGMENT_MS))
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(Config.of(java.util.Map.of("segment.ms", "1m")).get(SEGMENT_MS))
                .isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void badValueFailsWithKeyInMessage() {
        assertThatThrownBy(
                        () ->
                                Config.of(java.util.Map.of("segment.bytes", "lots"))
                                        .get(SEGMENT_BYTES))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("segment.bytes");
        assertThatThrownBy(
                        () -> Config.of(java.util.Map.of("segment.bytes", "3")).get(SEGMENT_BYTES))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 14");
    }
}

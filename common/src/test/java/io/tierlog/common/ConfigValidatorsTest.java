package io.tierlog.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigValidatorsTest {
    @Test
    void positiveRefusesZeroAndNegativeDurations() {
        assertThat(ConfigValidators.positive().check(Duration.ofMillis(1))).isNull();
        assertThat(ConfigValidators.positive().check(Duration.ZERO)).isEqualTo("must be positive");
        assertThat(ConfigValidators.positive().check(Duration.ofMillis(-1)))
                .isEqualTo("must be positive");
    }

    @Test
    void nonNegativeAcceptsZeroButNotLess() {
        assertThat(ConfigValidators.nonNegative().check(Duration.ZERO)).isNull();
        assertThat(ConfigValidators.nonNegative().check(Duration.ofMillis(-1)))
                .isEqualTo("must not be negative");
    }

    @Test
    void notBlankRefusesEmptyAndWhiteSpace() {
        assertThat(ConfigValidators.notBlank().check("x")).isNull();
        assertThat(ConfigValidators.notBlank().check("")).isEqualTo("must not be empty");
        assertThat(ConfigValidators.notBlank().check(" \t")).isEqualTo("must not be empty");
    }

    @Test
    void atLeastComparesIntsAndLongsWithTheBoundInclusive() {
        ConfigOption.Validator<Integer> ints = ConfigValidators.atLeast(1);
        ConfigOption.Validator<Long> longs = ConfigValidators.atLeast(-1);
        assertThat(ints.check(1)).isNull();
        assertThat(ints.check(0)).isEqualTo("must be at least 1");
        assertThat(longs.check(-1L)).isNull();
        assertThat(longs.check(Long.MIN_VALUE)).isEqualTo("must be at least -1");
    }

    @Test
    void anOptionUsingASharedValidatorNamesItsKeyAndTheRule() {
        ConfigOption<Duration> option =
                ConfigOption.durationOption("x.timeout.ms")
                        .defaultValue(Duration.ofSeconds(1))
                        .validator(ConfigValidators.positive())
                        .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> option.parse("0"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("x.timeout.ms")
                .hasMessageContaining("must be positive");
    }
}

package io.tierlog.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Unknown keys fail naming the closest declared one; Kafka's keys only warn. */
class ConfigKeysTest {
    private static final List<ConfigOption<?>> DECLARED =
            List.of(
                    ConfigOption.stringOption("data.dir").defaultValue("./data").build(),
                    ConfigOption.stringOption("listeners").defaultValue("").build(),
                    ConfigOption.intOption("num.partitions").defaultValue(1).build(),
                    ConfigOption.longOption("retention.ms").defaultValue(-1L).build(),
                    ConfigOption.longOption("segment.bytes").defaultValue(1L).build());

    @Test
    void aMistypedKeyIsAnErrorNamingTheClosestDeclaredKey() {
        Config c = Config.of(Map.of("data.dirr", "/x"));
        assertThatThrownBy(() -> ConfigKeys.requireKnown(c, DECLARED, "--set", w -> {}))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "--set: unknown setting 'data.dirr': did you mean 'data.dir'?"
                                + " (`tierlog config-docs` lists every setting)");
    }

    @Test
    void transposedLettersAndMissingCharactersFindTheIntendedKey() {
        List<String> keys = DECLARED.stream().map(ConfigOption::key).toList();
        assertThat(ConfigKeys.closest("data.dri", keys)).contains("data.dir");
        assertThat(ConfigKeys.closest("listener", keys)).contains("listeners");
        assertThat(ConfigKeys.closest("num.partitons", keys)).contains("num.partitions");
        assertThat(ConfigKeys.closest("segment.byte", keys)).contains("segment.bytes");
        assertThat(ConfigKeys.distance("ab", "ba")).isEqualTo(1);
        assertThat(ConfigKeys.distance("data.dirr", "data.dir")).isEqualTo(1);
        assertThat(ConfigKeys.distance("", "abc")).isEqualTo(3);
        assertThat(ConfigKeys.closest("x", List.of())).isEmpty();
    }

    @Test
    void everyUnknownKeyIsNamedInOneMessage() {
        Config c = Config.of(Map.of("data.dirr", "/x", "num.partition", "3", "listeners", "y"));
        assertThatThrownBy(() -> ConfigKeys.requireKnown(c, DECLARED, "", w -> {}))
                .hasMessageContaining("'data.dirr': did you mean 'data.dir'?")
                .hasMessageContaining("'num.partition': did you mean 'num.partitions'?")
                .hasMessageNotContaining("'listeners'");
    }

    @Test
    void aKafkaBrokerKeyIsAcceptedWithAWarningThatItHasNoEffect() {
        Config c =
                Config.of(
                        Map.of(
                                "broker.id", "0",
                                "num.io.threads", "8",
                                "log.retention.hours", "168",
                                "data.dir", "/x"));
        List<String> warnings = new ArrayList<>();
        ConfigKeys.requireKnown(c, DECLARED, "server.properties", warnings::add);
        assertThat(warnings)
                .containsExactly(
                        "server.properties: 'broker.id' is an Apache Kafka setting that has no"
                                + " effect in tierlog",
                        "server.properties: 'log.retention.hours' is an Apache Kafka setting that"
                                + " has no effect in tierlog (tierlog's setting for this is"
                                + " 'retention.ms')",
                        "server.properties: 'num.io.threads' is an Apache Kafka setting that has"
                                + " no effect in tierlog");
    }

    @Test
    void aDeclaredKeyWinsOverTheKafkaList() {
        // listeners is a Kafka key too, but tierlog declares it: it takes effect, no warning.
        ConfigKeys.Findings f =
                ConfigKeys.check(Config.of(Map.of("listeners", "PLAINTEXT://:9092")), DECLARED);
        assertThat(f.clean()).isTrue();
    }

    @Test
    void kafkaEquivalentsAreOnlyNamedWhenDeclared() {
        // log.dirs maps to data.dir; without data.dir declared the hint would mislead.
        ConfigKeys.Findings f =
                ConfigKeys.check(
                        Config.of(Map.of("log.dirs", "/k")),
                        List.of(ConfigOption.intOption("num.partitions").defaultValue(1).build()));
        assertThat(f.errors()).isEmpty();
        assertThat(f.warnings()).singleElement().asString().doesNotContain("data.dir");
    }
}

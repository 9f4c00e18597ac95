package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Confluent Server's schema validation topic configs: accepted on create and alter, described with
 * their defaults (DescribeConfigs lists them for every topic), defaulted from the server config
 * file, kept across a restart, and the strategies other than TopicNameStrategy refused with a
 * message that says why. A topic without validation appends as before.
 */
class SchemaValidationConfigTest {
    @TempDir Path dir;

    private static final String STRATEGY = "confluent.value.subject.name.strategy";

    private static DescribedConfig described(List<DescribedConfig> all, String name) {
        return all.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void theConfigsAreDescribedWithConfluentsDefaultsAndTakeOverridesAcrossARestart()
            throws Exception {
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            TopicRegistry r = log.topicRegistry();
            r.create("plain", 1, Map.of(), false);
            List<DescribedConfig> d = r.describeConfigs("plain").orElseThrow();
            assertThat(described(d, "confluent.value.schema.validation").value())
                    .isEqualTo("false");
            assertThat(described(d, "confluent.key.schema.validation").value()).isEqualTo("false");
            assertThat(described(d, STRATEGY).value())
                    .isEqualTo("io.confluent.kafka.serializers.subject.TopicNameStrategy");
            assertThat(described(d, "confluent.value.schema.validation").type())
                    .isEqualTo("BOOLEAN");
            r.create(
                    "guarded",
                    1,
                    Map.of(
                            "confluent.value.schema.validation",
                            "true",
                            STRATEGY,
                            EngineOptions.TOPIC_NAME_STRATEGY),
                    false);
            r.alterConfigs("plain", Map.of("confluent.key.schema.validation", "true"));
            // An unvalidated topic appends as ever, with no registry wired at all.
            assertThat(
                            log.append(new TopicPartition("plain", 0), TopicRegistryTest.batch("v"))
                                    .firstOffset())
                    .as("keys are validated, the batch has none")
                    .isZero();
        }
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            TopicRegistry r = log.topicRegistry();
            DescribedConfig v =
                    described(
                            r.describeConfigs("guarded").orElseThrow(),
                            "confluent.value.schema.validation");
            assertThat(v.value()).isEqualTo("true");
            assertThat(v.source()).isEqualTo(DescribedConfig.Source.DYNAMIC_TOPIC_CONFIG);
            assertThat(
                            described(
                                            r.describeConfigs("plain").orElseThrow(),
                                            "confluent.key.schema.validation")
                                    .value())
                    .isEqualTo("true");
        }
    }

    @Test
    void theServerConfigFileSetsTheDefaultOfEveryTopic() throws Exception {
        try (TieredLog log =
                TieredLog.open(
                        TopicRegistryTest.hotOnly(
                                dir, Map.of("confluent.value.schema.validation", "true")))) {
            log.topicRegistry().create("t", 1, Map.of(), false);
            DescribedConfig v =
                    described(
                            log.topicRegistry().describeConfigs("t").orElseThrow(),
                            "confluent.value.schema.validation");
            assertThat(v.value()).isEqualTo("true");
            assertThat(v.source()).isEqualTo(DescribedConfig.Source.STATIC_BROKER_CONFIG);
        }
    }

    @Test
    void otherSubjectNameStrategiesAndNonBooleansAreRefusedSayingWhy() throws Exception {
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            TopicRegistry r = log.topicRegistry();
            assertThatThrownBy(
                            () ->
                                    r.create(
                                            "t",
                                            1,
                                            Map.of(
                                                    STRATEGY,
                                                    "io.confluent.kafka.serializers.subject"
                                                            + ".RecordNameStrategy"),
                                            false))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining(STRATEGY)
                    .hasMessageContaining("RecordNameStrategy and TopicRecordNameStrategy are not")
                    .hasMessageContaining("TopicNameStrategy only");
            r.create("t", 1, Map.of(), false);
            assertThatThrownBy(
                            () ->
                                    r.alterConfigs(
                                            "t",
                                            Map.of(
                                                    "confluent.key.subject.name.strategy",
                                                    "io.confluent.kafka.serializers.subject"
                                                            + ".TopicRecordNameStrategy")))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("confluent.key.subject.name.strategy");
            assertThatThrownBy(
                            () ->
                                    r.alterConfigs(
                                            "t",
                                            Map.of("confluent.value.schema.validation", "yes")))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("confluent.value.schema.validation");
            assertThat(r.topic("t").orElseThrow().configs()).isEmpty();
        }
    }
}

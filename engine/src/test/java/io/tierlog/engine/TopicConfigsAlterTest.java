package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.catalog.Catalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic configs with Kafka's names through the engine's registry (real SQLite, hot tier only):
 * Kafka's validation at create and alter, compaction accepted (an empty policy refused), the old
 * topic key renamed on load, and dynamic broker configs that act on topics without an override and
 * survive a restart.
 */
class TopicConfigsAlterTest {
    @TempDir Path dir;

    private TieredLog open() throws Exception {
        return TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of("retention.ms", "3600000")));
    }

    private static DescribedConfig described(List<DescribedConfig> all, String name) {
        return all.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** The partition's local retention: retention.ms where local.retention.ms is unset. */
    private static long localRetentionMs(TieredLog log, String topic) {
        return log.logManager()
                .partition(new TopicPartition(topic, 0))
                .orElseThrow()
                .config()
                .localRetentionMs()
                .orElseThrow()
                .toMillis();
    }

    @Test
    void kafkaTopicConfigsAreAcceptedWithKafkasValidationAndCompactionToo() throws Exception {
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            r.create(
                    "t",
                    1,
                    Map.of(
                            "retention.ms", "60000",
                            "max.message.bytes", "2000",
                            "compression.type", "zstd",
                            "min.insync.replicas", "2",
                            "unclean.leader.election.enable", "true"),
                    false);
            assertThat(log.logManager().partition(new TopicPartition("t", 0)).orElseThrow())
                    .extracting(p -> p.config().messageMaxBytes())
                    .as("max.message.bytes reaches the partition's LogConfig")
                    .isEqualTo(2000);
            r.create("k", 1, Map.of("cleanup.policy", "compact"), false);
            r.create(
                    "kd",
                    1,
                    Map.of(
                            "cleanup.policy", "compact,delete",
                            "delete.retention.ms", "1000",
                            "min.cleanable.dirty.ratio", "0.01",
                            "min.compaction.lag.ms", "5",
                            "max.compaction.lag.ms", "60000"),
                    false);
            assertThat(r.topic("kd").orElseThrow().configs())
                    .containsEntry("cleanup.policy", "compact,delete")
                    .containsEntry("min.cleanable.dirty.ratio", "0.01");
            r.alterConfigs("t", Map.of("cleanup.policy", "compact"));
            assertThat(described(r.describeConfigs("t").orElseThrow(), "cleanup.policy").value())
                    .isEqualTo("compact");
            assertThatThrownBy(
                            () ->
                                    r.create(
                                            "c",
                                            1,
                                            Map.of(
                                                    "min.compaction.lag.ms", "10",
                                                    "max.compaction.lag.ms", "9"),
                                            false))
                    .as("Kafka's LogConfig.validateValues")
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessage(
                            "conflict topic config setting min.compaction.lag.ms (10) >"
                                    + " max.compaction.lag.ms (9)");
            assertThatThrownBy(() -> r.alterConfigs("k", Map.of("max.compaction.lag.ms", "0")))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("max.compaction.lag.ms");
            assertThatThrownBy(() -> r.create("c", 1, Map.of("delete.retention.ms", "-1"), false))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("delete.retention.ms");
            assertThatThrownBy(() -> r.create("c", 1, Map.of("message.max.bytes", "10"), false))
                    .as("message.max.bytes is Kafka's broker name, unknown at topic level")
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("Unknown topic config name");
            assertThatThrownBy(
                            () -> r.create("c", 1, Map.of("min.cleanable.dirty.ratio", "2"), false))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("min.cleanable.dirty.ratio");
            assertThatThrownBy(() -> r.create("c", 1, Map.of("cleanup.policy", ""), false))
                    .as("Kafka 4.4 takes an empty list as no cleanup at all")
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("empty cleanup.policy");
            r.create("d", 1, Map.of("cleanup.policy", "delete"), false);
            r.create("n", 1, Map.of("retention.bytes", "-7"), false);
            assertThat(
                            log.logManager()
                                    .partition(new TopicPartition("n", 0))
                                    .orElseThrow()
                                    .config()
                                    .localRetentionBytes())
                    .as("any negative retention.bytes is unlimited, as in Kafka")
                    .isEmpty();
            assertThat(r.topic("c")).isEmpty();
        }
    }

    @Test
    void aTopicStoredWithTheOldKeyIsRenamedOnLoadAndKeepsItsLimit() throws Exception {
        try (TieredLog log = open()) {
            log.topicRegistry().create("old", 1, Map.of(), false);
        }
        // what an older release stored: the broker name at topic level
        try (Catalog c = Catalog.open("jdbc:sqlite:" + dir.resolve("data/catalog.db"))) {
            c.updateTopicConfigs("old", Map.of("message.max.bytes", "3000"));
        }
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().topic("old").orElseThrow().configs())
                    .isEqualTo(Map.of("max.message.bytes", "3000"));
            assertThat(log.catalog().topic("old").orElseThrow().configs())
                    .as("renamed in the catalog too")
                    .isEqualTo(Map.of("max.message.bytes", "3000"));
            assertThat(
                            log.logManager()
                                    .partition(new TopicPartition("old", 0))
                                    .orElseThrow()
                                    .config()
                                    .messageMaxBytes())
                    .isEqualTo(3000);
        }
    }

    @Test
    void dynamicBrokerConfigsActOnTopicsWithoutAnOverrideAndSurviveARestart() throws Exception {
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            r.create("plain", 1, Map.of(), false);
            r.create("own", 1, Map.of("retention.ms", "1000"), false);
            r.alterBrokerConfigs(true, Map.of("log.retention.ms", "7000"), false);
            r.alterBrokerConfigs(false, Map.of("message.max.bytes", "5000"), false);
            assertThat(localRetentionMs(log, "plain"))
                    .as("the cluster default reaches the open partition at once")
                    .isEqualTo(7000);
            assertThat(localRetentionMs(log, "own")).as("a topic override wins").isEqualTo(1000);
            DescribedConfig ret =
                    described(r.describeConfigs("plain").orElseThrow(), "retention.ms");
            assertThat(ret.value()).isEqualTo("7000");
            assertThat(ret.source())
                    .isEqualTo(DescribedConfig.Source.DYNAMIC_DEFAULT_BROKER_CONFIG);
            assertThat(ret.synonyms())
                    .extracting(DescribedConfig.Synonym::source)
                    .containsExactly(
                            DescribedConfig.Source.DYNAMIC_DEFAULT_BROKER_CONFIG,
                            DescribedConfig.Source.STATIC_BROKER_CONFIG,
                            DescribedConfig.Source.DEFAULT_CONFIG);
            assertThatThrownBy(
                            () ->
                                    r.alterBrokerConfigs(
                                            false, Map.of("log.retention.hours", "1"), false))
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("Cannot update these configs dynamically");
            assertThatThrownBy(
                            () ->
                                    r.alterBrokerConfigs(
                                            false, Map.of("log.segment.bytes", "5"), false))
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("log.segment.bytes");
            r.alterBrokerConfigs(false, Map.of("log.segment.bytes", "2097152"), true);
            assertThat(r.brokerConfigs(false))
                    .as("validateOnly changes nothing")
                    .isEqualTo(Map.of("message.max.bytes", "5000"));
        }
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            assertThat(r.brokerConfigs(true)).isEqualTo(Map.of("log.retention.ms", "7000"));
            assertThat(localRetentionMs(log, "plain")).isEqualTo(7000);
            assertThat(
                            log.logManager()
                                    .partition(new TopicPartition("plain", 0))
                                    .orElseThrow()
                                    .config()
                                    .messageMaxBytes())
                    .as("this node's message.max.bytes after the restart")
                    .isEqualTo(5000);
            DescribedConfig mmb =
                    described(r.describeConfigs("plain").orElseThrow(), "max.message.bytes");
            assertThat(mmb.source()).isEqualTo(DescribedConfig.Source.DYNAMIC_BROKER_CONFIG);
            assertThat(mmb.synonyms().get(0).name()).isEqualTo("message.max.bytes");
        }
    }

    @Test
    void aCrashWhileWritingDynamicConfigsLeavesTheLastCommittedOnes() throws Exception {
        try (TieredLog log = open()) {
            log.topicRegistry().create("plain", 1, Map.of(), false);
            log.topicRegistry().alterBrokerConfigs(true, Map.of("log.retention.ms", "7000"), false);
        }
        // a kill -9 in the middle of the next write: a torn temporary file beside the real one
        Path meta = dir.resolve("data/meta");
        java.nio.file.Files.writeString(
                meta.resolve("broker-configs.properties.tmp"), "default.log.retention.ms=1\\u00");
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().brokerConfigs(true))
                    .isEqualTo(Map.of("log.retention.ms", "7000"));
            assertThat(localRetentionMs(log, "plain")).isEqualTo(7000);
            log.topicRegistry().alterBrokerConfigs(true, Map.of(), false);
            assertThat(localRetentionMs(log, "plain"))
                    .as("deleting the dynamic default goes back to the config file's value")
                    .isEqualTo(3600000);
        }
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The table of Kafka 4.4 topic configs validates as Kafka's {@code LogConfig} does: the numbers
 * below are Kafka 4.4's (read from its {@code LogConfig.configDef()}), each rule that bites checked
 * on both sides of its bound.
 */
class KafkaTopicConfigsTest {
    private static Object parse(String key, String value) {
        return KafkaTopicConfigs.def(key).orElseThrow().parse(value);
    }

    @ParameterizedTest(name = "{0}={1} is accepted")
    @CsvSource({
        "segment.bytes, 1048576",
        "segment.index.bytes, 4",
        "segment.ms, 1",
        "segment.jitter.ms, 0",
        "retention.ms, -1",
        "retention.bytes, -7",
        "max.message.bytes, 0",
        "min.cleanable.dirty.ratio, 0",
        "min.cleanable.dirty.ratio, 1",
        "local.retention.ms, -2",
        "local.retention.bytes, -2",
        "flush.messages, 1",
        "compression.type, zstd",
        "compression.type, producer",
        "compression.gzip.level, -1",
        "compression.gzip.level, 9",
        "compression.lz4.level, 17",
        "compression.zstd.level, -131072",
        "compression.zstd.level, 22",
        "message.timestamp.type, LogAppendTime",
        "cleanup.policy, delete",
        "min.insync.replicas, 1",
        "unclean.leader.election.enable, true",
        "leader.replication.throttled.replicas, *",
        "follower.replication.throttled.replicas, 0:0",
        "max.decompressed.message.bytes, 2147483639",
        "remote.copy.lag.ms, -1",
    })
    void accepted(String key, String value) {
        parse(key, value);
    }

    @ParameterizedTest(name = "{0}={1} is refused")
    @CsvSource({
        "segment.bytes, 1048575",
        "segment.index.bytes, 3",
        "segment.ms, 0",
        "retention.ms, -2",
        "max.message.bytes, -1",
        "min.cleanable.dirty.ratio, 1.01",
        "min.cleanable.dirty.ratio, -0.1",
        "local.retention.ms, -3",
        "flush.messages, 0",
        "flush.ms, -1",
        "compression.type, brotli",
        "compression.type, ZSTD",
        "compression.gzip.level, 0",
        "compression.gzip.level, 10",
        "compression.lz4.level, 18",
        "compression.zstd.level, 23",
        "message.timestamp.type, createtime",
        "cleanup.policy, shrink",
        "min.insync.replicas, 0",
        "unclean.leader.election.enable, maybe",
        "follower.replication.throttled.replicas, 0-0",
        "max.decompressed.message.bytes, 0",
        "segment.bytes, 1GiB",
        "remote.copy.lag.bytes, -2",
    })
    void refusedWithKafkasMessage(String key, String value) {
        assertThatThrownBy(() -> parse(key, value))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key);
    }

    @Test
    void brokerKeysAreKafkasFirstSynonyms() {
        assertThat(KafkaTopicConfigs.forBrokerKey("log.retention.ms").orElseThrow().name())
                .isEqualTo("retention.ms");
        assertThat(KafkaTopicConfigs.forBrokerKey("message.max.bytes").orElseThrow().name())
                .isEqualTo("max.message.bytes");
        assertThat(KafkaTopicConfigs.forBrokerKey("log.segment.bytes").orElseThrow().name())
                .isEqualTo("segment.bytes");
        assertThat(KafkaTopicConfigs.forBrokerKey("log.roll.ms").orElseThrow().name())
                .isEqualTo("segment.ms");
        assertThat(KafkaTopicConfigs.forBrokerKey("log.retention.hours"))
                .as("not dynamic in Kafka")
                .isEmpty();
    }

    @Test
    void compactionIsRecognisedInAnyListSpelling() {
        assertThat(KafkaTopicConfigs.isCompacted("compact")).isTrue();
        assertThat(KafkaTopicConfigs.isCompacted("delete, compact")).isTrue();
        assertThat(KafkaTopicConfigs.isCompacted("delete")).isFalse();
    }

    @Test
    void theLegacyTopicKeyOfMaxMessageBytesIsRenamed() {
        assertThat(KafkaTopicConfigs.upgrade(Map.of("message.max.bytes", "100", "a", "b")))
                .isEqualTo(Map.of("max.message.bytes", "100", "a", "b"));
        Map<String, String> current = Map.of("max.message.bytes", "5");
        assertThat(KafkaTopicConfigs.upgrade(current)).isSameAs(current);
    }

    @Test
    void theTableHoldsEveryTopicConfigOfKafka44() {
        assertThat(KafkaTopicConfigs.all())
                .extracting(KafkaTopicConfigs.Def::name)
                .containsExactlyInAnyOrder(
                        "segment.bytes",
                        "segment.ms",
                        "segment.jitter.ms",
                        "segment.index.bytes",
                        "flush.messages",
                        "flush.ms",
                        "retention.bytes",
                        "retention.ms",
                        "max.message.bytes",
                        "max.decompressed.message.bytes",
                        "index.interval.bytes",
                        "delete.retention.ms",
                        "min.compaction.lag.ms",
                        "max.compaction.lag.ms",
                        "file.delete.delay.ms",
                        "min.cleanable.dirty.ratio",
                        "cleanup.policy",
                        "unclean.leader.election.enable",
                        "min.insync.replicas",
                        "compression.type",
                        "compression.gzip.level",
                        "compression.lz4.level",
                        "compression.zstd.level",
                        "preallocate",
                        "message.timestamp.type",
                        "message.timestamp.before.max.ms",
                        "message.timestamp.after.max.ms",
                        "leader.replication.throttled.replicas",
                        "follower.replication.throttled.replicas",
                        "remote.storage.enable",
                        "local.retention.ms",
                        "local.retention.bytes",
                        "remote.log.copy.disable",
                        "remote.copy.lag.ms",
                        "remote.copy.lag.bytes",
                        "remote.log.delete.on.disable",
                        "errors.deadletterqueue.group.enable");
    }
}

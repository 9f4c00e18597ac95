package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.ConfigException;
import io.tierlog.common.ConfigOption;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Options carry Kafka's names and defaults; sentinels become Optional.empty(). */
class HotTierOptionsTest {
    @Test
    void defaultsMatchKafka() {
        LogConfig c = LogConfig.defaults();
        assertThat(c.segmentBytes()).isEqualTo(1 << 30);
        assertThat(c.segmentMs()).isEqualTo(Duration.ofDays(7));
        assertThat(c.indexIntervalBytes()).isEqualTo(4096);
        assertThat(c.segmentIndexBytes()).isEqualTo(10 * 1024 * 1024);
        assertThat(c.messageMaxBytes()).isEqualTo(1048588);
        assertThat(c.messageTimestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(c.timestampAfterMaxMs()).isEqualTo(3_600_000L);
        assertThat(c.timestampBeforeMaxMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.localRetentionMs()).isEmpty();
        assertThat(c.localRetentionBytes()).isEmpty();
        assertThat(c.flushMessages()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.flushMs()).isEmpty();
        assertThat(c.durability()).isEqualTo(Durability.PAGE_CACHE);
        assertThat(c.fileDeleteDelay()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void valuesParseWithKafkaSpellings() {
        LogConfig c =
                LogConfig.from(
                        Map.of(
                                "segment.bytes", "64MiB",
                                "message.timestamp.type", "LogAppendTime",
                                "local.retention.ms", "3600000",
                                "local.retention.bytes", "1000",
                                "flush.ms", "1000",
                                "log.durability", "fsync"));
        assertThat(c.segmentBytes()).isEqualTo(64 << 20);
        assertThat(c.messageTimestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(c.localRetentionMs()).contains(Duration.ofHours(1));
        assertThat(c.localRetentionBytes().orElseThrow().bytes()).isEqualTo(1000);
        assertThat(c.flushMs()).contains(Duration.ofSeconds(1));
        assertThat(c.durability()).isEqualTo(Durability.FSYNC);
    }

    @Test
    void invalidValuesAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> LogConfig.from(Map.of("message.timestamp.type", "Bogus")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("message.timestamp.type");
        assertThatThrownBy(() -> LogConfig.from(Map.of("local.retention.bytes", "-5")))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> LogConfig.from(Map.of("segment.bytes", "3GiB")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void moduleReadmeDocumentsEveryOption() throws Exception {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        for (ConfigOption<?> o : HotTierOptions.all()) {
            assertThat(readme)
                    .contains(
                            "| `"
                                    + o.key()
                                    + "` | "
                                    + o.type()
                                    + " | `"
                                    + o.defaultString()
                                    + "` |");
        }
    }

    @Test
    void everyOptionIsListedAndDocumented() {
        assertThat(HotTierOptions.all()).hasSize(25);
        for (ConfigOption<?> o : HotTierOptions.all()) {
            assertThat(o.doc()).isNotBlank();
            assertThat(o.defaultValue()).isNotNull();
        }
    }
}

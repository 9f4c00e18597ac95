package io.tierlog.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.engine.DescribedConfig;
import io.tierlog.server.HandlerTestBase;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * DescribeConfigs reports values as Kafka tools read them, with where each comes from: a topic's
 * override, the server's setting, or the default.
 */
class DescribeConfigsHandlerTest extends HandlerTestBase {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;
    private static final short V4 = 4;

    @Override
    protected Map<String, String> settings() {
        return Map.of("node.id", "5", "local.retention.ms", "3600000");
    }

    private DescribeConfigsResult describe(byte type, String name, List<String> keys) {
        DescribeConfigsResponseData r =
                kit.call(
                        ApiKeys.DESCRIBE_CONFIGS,
                        V4,
                        new DescribeConfigsRequestData()
                                .setIncludeDocumentation(true)
                                .setResources(
                                        List.of(
                                                new DescribeConfigsResource()
                                                        .setResourceType(type)
                                                        .setResourceName(name)
                                                        .setConfigurationKeys(keys))));
        assertThat(r.results()).hasSize(1);
        return r.results().get(0);
    }

    private static DescribeConfigsResourceResult config(DescribeConfigsResult r, String key) {
        return r.configs().stream()
                .filter(c -> c.name().equals(key))
                .findFirst()
                .orElseThrow(() -> new AssertionError(key + " not described"));
    }

    @Test
    void aTopicsOverridesServerSettingsAndDefaultsAreToldApart() {
        kit.createTopic("orders", 1, Map.of("segment.bytes", "2097152"));
        DescribeConfigsResult r = describe(TOPIC, "orders", null);

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        DescribeConfigsResourceResult seg = config(r, "segment.bytes");
        assertThat(seg.value()).as("byte sizes as plain numbers").isEqualTo("2097152");
        assertThat(seg.configSource())
                .isEqualTo(DescribedConfig.Source.DYNAMIC_TOPIC_CONFIG.code());
        assertThat(seg.readOnly()).isFalse();
        DescribeConfigsResourceResult retention = config(r, "local.retention.ms");
        assertThat(retention.value()).isEqualTo("3600000");
        assertThat(retention.configSource())
                .isEqualTo(DescribedConfig.Source.STATIC_BROKER_CONFIG.code());
        assertThat(config(r, "index.interval.bytes").configSource())
                .isEqualTo(DescribedConfig.Source.DEFAULT_CONFIG.code());
        assertThat(seg.documentation()).isNotBlank();
    }

    @Test
    void onlyTheAskedKeysAreDescribed() {
        kit.createTopic("orders", 1);
        DescribeConfigsResult r = describe(TOPIC, "orders", List.of("segment.bytes"));
        assertThat(r.configs())
                .extracting(DescribeConfigsResourceResult::name)
                .containsExactly("segment.bytes");
    }

    @Test
    void theBrokerResourceIsThisServerByNodeIdOrEmptyName() {
        DescribeConfigsResult byId = describe(BROKER, "5", null);
        DescribeConfigsResult empty = describe(BROKER, "", null);

        assertThat(byId.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(config(byId, "node.id").value()).isEqualTo("5");
        assertThat(config(byId, "node.id").readOnly()).isTrue();
        assertThat(config(byId, "node.id").configSource())
                .isEqualTo(DescribedConfig.Source.STATIC_BROKER_CONFIG.code());
        assertThat(empty.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(empty.configs())
                .as("the cluster-default resource holds only dynamic defaults: none set")
                .isEmpty();
        assertThat(describe(BROKER, "6", null).errorCode())
                .isEqualTo(Errors.INVALID_REQUEST.code());
    }

    @Test
    void anUnknownTopicIsAnError() {
        DescribeConfigsResult r = describe(TOPIC, "missing", null);
        assertThat(r.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(r.configs()).isEmpty();
    }
}

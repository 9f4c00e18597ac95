package io.tierlog.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * AlterConfigs replaces a resource's whole set, IncrementalAlterConfigs applies operations to it;
 * both answer per resource with Kafka's codes and run off the event loop.
 */
class AlterConfigsHandlerTest extends HandlerTestBase {
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;
    private static final byte SET = 0;
    private static final byte DELETE = 1;
    private static final byte APPEND = 2;
    private static final byte SUBTRACT = 3;

    private static AlterableConfig op(String name, byte op, String value) {
        return new AlterableConfig().setName(name).setConfigOperation(op).setValue(value);
    }

    private AlterConfigsResourceResponse incremental(
            byte type, String name, boolean validateOnly, AlterableConfig... ops) {
        AlterConfigsResource res =
                new AlterConfigsResource().setResourceType(type).setResourceName(name);
        for (AlterableConfig o : ops) {
            res.configs().add(o.duplicate());
        }
        IncrementalAlterConfigsRequestData req =
                new IncrementalAlterConfigsRequestData().setValidateOnly(validateOnly);
        req.resources().add(res);
        IncrementalAlterConfigsResponseData r =
                kit.call(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1, req);
        assertThat(r.responses()).hasSize(1);
        return r.responses().get(0);
    }

    @Test
    void theOperationsOfIncrementalAlterConfigsComposeOnTheCurrentOverrides() {
        kit.createTopic("t", 1, Map.of("retention.ms", "1000", "segment.ms", "5000"));
        AlterConfigsResourceResponse r =
                incremental(
                        TOPIC,
                        "t",
                        false,
                        op("retention.ms", SET, "2000"),
                        op("segment.ms", DELETE, null),
                        op("leader.replication.throttled.replicas", APPEND, "0:0"),
                        op("follower.replication.throttled.replicas", APPEND, "0:0,1:0"),
                        op("cleanup.policy", SUBTRACT, "compact"));
        assertThat(r.errorCode()).as(r.errorMessage()).isEqualTo(Errors.NONE.code());
        assertThat(kit.topics().topic("t").orElseThrow().configs())
                .isEqualTo(
                        Map.of(
                                "retention.ms", "2000",
                                "leader.replication.throttled.replicas", "0:0",
                                "follower.replication.throttled.replicas", "0:0,1:0",
                                "cleanup.policy", "delete"));
    }

    @Test
    void compactionIsSetAndAppendedAsKafkaListOperationsDo() {
        kit.createTopic("t", 1, Map.of("cleanup.policy", "delete"));
        AlterConfigsResourceResponse r =
                incremental(
                        TOPIC,
                        "t",
                        false,
                        op("cleanup.policy", APPEND, "compact"),
                        op("min.cleanable.dirty.ratio", SET, "0.1"),
                        op("delete.retention.ms", SET, "1000"));
        assertThat(r.errorCode()).as(r.errorMessage()).isEqualTo(Errors.NONE.code());
        assertThat(kit.topics().topic("t").orElseThrow().configs())
                .containsEntry("cleanup.policy", "delete,compact")
                .containsEntry("min.cleanable.dirty.ratio", "0.1")
                .containsEntry("delete.retention.ms", "1000");
        r = incremental(TOPIC, "t", false, op("cleanup.policy", SUBTRACT, "delete"));
        assertThat(r.errorCode()).as(r.errorMessage()).isEqualTo(Errors.NONE.code());
        assertThat(kit.topics().topic("t").orElseThrow().configs())
                .containsEntry("cleanup.policy", "compact");
        r = incremental(BROKER, "", false, op("log.cleanup.policy", SET, "compact"));
        assertThat(r.errorCode())
                .as("the cluster-wide broker default takes compact too: " + r.errorMessage())
                .isEqualTo(Errors.NONE.code());
    }

    @Test
    void badOperationsAreKafkasErrorsAndChangeNothing() {
        kit.createTopic("t", 1, Map.of("retention.ms", "1000"));
        assertThat(incremental(TOPIC, "t", false, op("retention.ms", APPEND, "1")).errorCode())
                .as("append to a non-list config")
                .isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(
                        incremental(
                                        TOPIC,
                                        "t",
                                        false,
                                        op("retention.ms", SET, "1"),
                                        op("retention.ms", DELETE, null))
                                .errorCode())
                .as("one key twice")
                .isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(incremental(TOPIC, "t", false, op("cleanup.policy", SET, "")).errorMessage())
                .as("Kafka's empty policy (no cleanup) is refused")
                .contains("An empty cleanup.policy (no cleanup) is not supported");
        AlterConfigsResourceResponse lags =
                incremental(
                        TOPIC,
                        "t",
                        false,
                        op("min.compaction.lag.ms", SET, "100"),
                        op("max.compaction.lag.ms", SET, "10"));
        assertThat(lags.errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(lags.errorMessage()).contains("conflict topic config setting");
        assertThat(incremental(TOPIC, "nope", false, op("retention.ms", SET, "1")).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(incremental(TOPIC, "t", true, op("retention.ms", SET, "7")).errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(incremental(BROKER, "9", false, op("log.retention.ms", SET, "7")).errorCode())
                .as("another broker's id")
                .isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(incremental(BROKER, "0", false, op("listeners", SET, "x")).errorMessage())
                .contains("Cannot update these configs dynamically");
        assertThat(incremental((byte) 8, "root", false, op("a", SET, "b")).errorCode())
                .isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(kit.topics().topic("t").orElseThrow().configs())
                .isEqualTo(Map.of("retention.ms", "1000"));
        assertThat(kit.topics().brokerConfigs(false)).isEmpty();
    }

    @Test
    void legacyAlterConfigsReplacesTheWholeSet() {
        kit.createTopic("t", 1, Map.of("retention.ms", "1000", "segment.ms", "5000"));
        AlterConfigsRequestData req = new AlterConfigsRequestData();
        req.resources()
                .add(
                        new AlterConfigsRequestData.AlterConfigsResource()
                                .setResourceType(TOPIC)
                                .setResourceName("t")
                                .setConfigs(
                                        new AlterConfigsRequestData.AlterableConfigCollection(
                                                List.of(
                                                                new AlterConfigsRequestData
                                                                                .AlterableConfig()
                                                                        .setName("retention.bytes")
                                                                        .setValue("4096"))
                                                        .iterator())));
        req.resources()
                .add(
                        new AlterConfigsRequestData.AlterConfigsResource()
                                .setResourceType(BROKER)
                                .setResourceName("")
                                .setConfigs(
                                        new AlterConfigsRequestData.AlterableConfigCollection(
                                                List.of(
                                                                new AlterConfigsRequestData
                                                                                .AlterableConfig()
                                                                        .setName("log.retention.ms")
                                                                        .setValue("60000"))
                                                        .iterator())));
        AlterConfigsResponseData r = kit.call(ApiKeys.ALTER_CONFIGS, (short) 2, req);
        assertThat(r.responses())
                .extracting(AlterConfigsResponseData.AlterConfigsResourceResponse::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.NONE.code());
        assertThat(kit.topics().topic("t").orElseThrow().configs())
                .as("what was not given goes back to its default")
                .isEqualTo(Map.of("retention.bytes", "4096"));
        assertThat(kit.topics().brokerConfigs(true)).isEqualTo(Map.of("log.retention.ms", "60000"));
    }

    @Test
    void bothRunOffTheEventLoop() {
        assertThat(
                        ((AlterConfigsHandler) kit.handler(ApiKeys.ALTER_CONFIGS))
                                .mayBlock(new AlterConfigsRequestData()))
                .isTrue();
        assertThat(
                        ((IncrementalAlterConfigsHandler)
                                        kit.handler(ApiKeys.INCREMENTAL_ALTER_CONFIGS))
                                .mayBlock(new IncrementalAlterConfigsRequestData()))
                .isTrue();
    }
}

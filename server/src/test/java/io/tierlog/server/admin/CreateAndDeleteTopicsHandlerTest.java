package io.tierlog.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.HandlerTestBase;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * CreateTopics and DeleteTopics: every outcome is a per-topic error code, and the registry and the
 * hot tier change exactly when the answer says so.
 */
class CreateAndDeleteTopicsHandlerTest extends HandlerTestBase {
    private static final short CREATE_V7 = 7;
    private static final short DELETE_V5 = 5;
    private static final short DELETE_V6 = 6;

    private static CreatableTopic topic(String name, int partitions, Map<String, String> configs) {
        CreatableTopic t =
                new CreatableTopic()
                        .setName(name)
                        .setNumPartitions(partitions)
                        .setReplicationFactor((short) -1);
        configs.forEach(
                (k, v) -> t.configs().add(new CreatableTopicConfig().setName(k).setValue(v)));
        return t;
    }

    private CreateTopicsResponseData create(boolean validateOnly, CreatableTopic... topics) {
        CreateTopicsRequestData req =
                new CreateTopicsRequestData().setTimeoutMs(30_000).setValidateOnly(validateOnly);
        for (CreatableTopic t : topics) {
            req.topics().add(t);
        }
        return kit.call(ApiKeys.CREATE_TOPICS, CREATE_V7, req);
    }

    private static CreatableTopicResult result(CreateTopicsResponseData r, String name) {
        CreatableTopicResult res = r.topics().find(name);
        assertThat(res).as("result of %s", name).isNotNull();
        return res;
    }

    private static CreatableTopicConfigs config(CreatableTopicResult r, String key) {
        return r.configs().stream()
                .filter(c -> c.name().equals(key))
                .findFirst()
                .orElseThrow(() -> new AssertionError(key + " not reported"));
    }

    @Test
    void createsATopicWithItsConfigsAndReportsThemBack() throws Exception {
        CreatableTopicResult r =
                result(
                        create(false, topic("orders", 2, Map.of("segment.bytes", "1048576"))),
                        "orders");

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.numPartitions()).isEqualTo(2);
        assertThat(r.replicationFactor()).isEqualTo((short) 1);
        TopicInfo meta = kit.topics().topic("orders").orElseThrow();
        assertThat(r.topicId()).isEqualTo(meta.id()).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(meta.configs()).containsEntry("segment.bytes", "1048576");
        CreatableTopicConfigs seg = config(r, "segment.bytes");
        assertThat(seg.value()).isEqualTo("1048576");
        assertThat(seg.configSource())
                .isEqualTo(io.tierlog.engine.DescribedConfig.Source.DYNAMIC_TOPIC_CONFIG.code());
        assertThat(config(r, "local.retention.ms").configSource())
                .isEqualTo(io.tierlog.engine.DescribedConfig.Source.DEFAULT_CONFIG.code());
        assertThat(
                        kit.engine()
                                .hotLog(new TopicPartition("orders", 1))
                                .orElseThrow()
                                .config()
                                .segmentBytes())
                .as("the partition runs with the override")
                .isEqualTo(1 << 20);
    }

    @Test
    void partitionsDefaultToNumPartitions() throws Exception {
        reopen(Map.of("num.partitions", "3"));
        assertThat(result(create(false, topic("orders", -1, Map.of())), "orders").numPartitions())
                .isEqualTo(3);
        assertThat(kit.topics().topic("orders").orElseThrow().partitions()).isEqualTo(3);
    }

    @Test
    void duplicatesInARequestAndExistingTopicsAreRefused() throws Exception {
        kit.createTopic("exists", 1);

        CreateTopicsResponseData r =
                create(
                        false,
                        topic("twice", 1, Map.of()),
                        topic("twice", 2, Map.of()),
                        topic("exists", 1, Map.of()));

        assertThat(r.topics()).hasSize(2);
        assertThat(result(r, "twice").errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(result(r, "exists").errorCode()).isEqualTo(Errors.TOPIC_ALREADY_EXISTS.code());
        assertThat(kit.topics().topic("twice")).isEmpty();
    }

    @Test
    void invalidNamesConfigsPartitionsAndReplicationFactorsAreRefused() throws Exception {
        CreateTopicsResponseData r =
                create(
                        false,
                        topic("bad/name", 1, Map.of()),
                        topic("unknown-config", 1, Map.of("no.such.config", "1")),
                        topic("bad-value", 1, Map.of("segment.bytes", "lots")),
                        topic("no-partitions", 0, Map.of()),
                        topic("replicated", 1, Map.of()).setReplicationFactor((short) 3));

        assertThat(result(r, "bad/name").errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(result(r, "unknown-config").errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(result(r, "bad-value").errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(result(r, "no-partitions").errorCode())
                .isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(result(r, "replicated").errorCode())
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR.code());
        assertThat(kit.topics().topics()).isEmpty();
        assertThat(kit.engine().logManager().partitions()).isEmpty();
    }

    @Test
    void validateOnlyChecksWithoutCreating() throws Exception {
        CreatableTopicResult r = result(create(true, topic("orders", 2, Map.of())), "orders");

        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.numPartitions()).isEqualTo(2);
        assertThat(kit.topics().topic("orders")).isEmpty();
        assertThat(kit.engine().logManager().partitions()).isEmpty();
    }

    @Test
    void deleteByNameRemovesTheTopicAndItsPartitions() throws Exception {
        TopicInfo t = kit.createTopic("orders", 2);

        DeleteTopicsResponseData r =
                kit.call(
                        ApiKeys.DELETE_TOPICS,
                        DELETE_V5,
                        new DeleteTopicsRequestData().setTopicNames(List.of("orders", "missing")));

        DeletableTopicResult orders = r.responses().find("orders");
        assertThat(orders.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(orders.topicId()).isEqualTo(t.id());
        assertThat(r.responses().find("missing").errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(kit.topics().topic("orders")).isEmpty();
        assertThat(kit.engine().hotLog(new TopicPartition("orders", 0))).isEmpty();
    }

    @Test
    void deleteByIdFromVersion6AndUnknownIdsAreErrors() throws Exception {
        TopicInfo t = kit.createTopic("orders", 1);
        Uuid unknown = Uuid.randomUuid();

        DeleteTopicsResponseData r =
                kit.call(
                        ApiKeys.DELETE_TOPICS,
                        DELETE_V6,
                        new DeleteTopicsRequestData()
                                .setTopics(
                                        List.of(
                                                new DeleteTopicState().setTopicId(t.id()),
                                                new DeleteTopicState().setTopicId(unknown))));

        assertThat(r.responses()).hasSize(2);
        List<DeletableTopicResult> rs = List.copyOf(r.responses());
        assertThat(rs.get(0).name()).isEqualTo("orders");
        assertThat(rs.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(rs.get(1).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        assertThat(kit.topics().topic(t.id())).isEmpty();
    }

    @Test
    void deletionCanBeDisabled() throws Exception {
        reopen(Map.of("delete.topic.enable", "false"));
        kit.createTopic("orders", 1);

        DeleteTopicsResponseData r =
                kit.call(
                        ApiKeys.DELETE_TOPICS,
                        DELETE_V5,
                        new DeleteTopicsRequestData().setTopicNames(List.of("orders")));

        assertThat(r.responses().find("orders").errorCode())
                .isEqualTo(Errors.TOPIC_DELETION_DISABLED.code());
        assertThat(kit.topics().topic("orders")).isPresent();
    }
}

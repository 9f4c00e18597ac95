package io.tierlog.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.engine.TopicInfo;
import io.tierlog.server.HandlerTestBase;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Metadata: this server as the only broker and leader, every topic or the asked ones, and
 * auto-creation as {@code auto.create.topics.enable} and the request allow.
 */
class MetadataHandlerTest extends HandlerTestBase {
    private static final short V12 = 12;

    @Override
    protected Map<String, String> settings() {
        return Map.of("node.id", "7", "cluster.id", "kit-cluster");
    }

    /** This test's kit with {@code extra} settings on top of the class's. */
    private void open(Map<String, String> extra) throws Exception {
        Map<String, String> all = new HashMap<>(settings());
        all.putAll(extra);
        reopen(all);
    }

    private MetadataResponseData metadata(short version, boolean allowCreate, String... names) {
        MetadataRequestData req = new MetadataRequestData().setAllowAutoTopicCreation(allowCreate);
        req.setTopics(
                names == null
                        ? null
                        : Arrays.stream(names)
                                .map(n -> new MetadataRequestTopic().setName(n))
                                .toList());
        return kit.call(ApiKeys.METADATA, version, req);
    }

    private static MetadataResponseTopic topic(MetadataResponseData r, String name) {
        MetadataResponseTopic t = r.topics().find(name);
        assertThat(t).as("topic %s in the response", name).isNotNull();
        return t;
    }

    @Test
    void allTopicsAreListedWithThisServerAsBrokerControllerAndLeader() throws Exception {
        TopicInfo orders = kit.createTopic("orders", 3);
        kit.createTopic("audit", 1);

        MetadataResponseData r = metadata(V12, false, (String[]) null);

        assertThat(r.clusterId()).isEqualTo("kit-cluster");
        assertThat(r.controllerId()).isEqualTo(7);
        assertThat(r.brokers()).hasSize(1);
        MetadataResponseBroker b = r.brokers().iterator().next();
        assertThat(b.nodeId()).isEqualTo(7);
        assertThat(b.host()).isEqualTo("kit.example");
        assertThat(b.port()).isEqualTo(9092);
        assertThat(r.topics())
                .extracting(MetadataResponseTopic::name)
                .containsExactlyInAnyOrder("orders", "audit");
        MetadataResponseTopic t = topic(r, "orders");
        assertThat(t.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(t.topicId()).isEqualTo(orders.id());
        assertThat(t.partitions())
                .extracting(MetadataResponsePartition::partitionIndex)
                .containsExactly(0, 1, 2);
        for (MetadataResponsePartition p : t.partitions()) {
            assertThat(p.leaderId()).isEqualTo(7);
            assertThat(p.replicaNodes()).containsExactly(7);
            assertThat(p.isrNodes()).containsExactly(7);
        }
    }

    @Test
    void specificTopicsAreAnsweredAndUnknownOnesAreErrorsWhenAutoCreationIsOff() throws Exception {
        open(Map.of("auto.create.topics.enable", "false"));
        kit.createTopic("orders", 1);

        MetadataResponseData r = metadata(V12, true, "orders", "missing", "bad/name");

        assertThat(r.topics()).hasSize(3);
        assertThat(topic(r, "orders").errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(topic(r, "missing").errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(topic(r, "bad/name").errorCode())
                .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(kit.topics().topic("missing")).isEmpty();
    }

    @Test
    void anUnknownTopicIsCreatedWithNumPartitionsWhenAutoCreationIsOnAndAllowed() throws Exception {
        open(Map.of("auto.create.topics.enable", "true", "num.partitions", "4"));

        MetadataResponseTopic created = topic(metadata(V12, true, "fresh"), "fresh");

        assertThat(created.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(created.partitions()).hasSize(4);
        TopicInfo meta = kit.topics().topic("fresh").orElseThrow();
        assertThat(created.topicId()).isEqualTo(meta.id());
        assertThat(meta.partitions()).isEqualTo(4);
        assertThat(kit.engine().logManager().partitions()).hasSize(4);
    }

    @Test
    void aRequestThatDisallowsAutoCreationDoesNotCreate() throws Exception {
        open(Map.of("auto.create.topics.enable", "true"));

        MetadataResponseTopic t = topic(metadata(V12, false, "fresh"), "fresh");

        assertThat(t.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(kit.topics().topic("fresh")).isEmpty();
    }

    @Test
    void topicsAreFoundByIdAndAnUnknownIdIsAnError() throws Exception {
        TopicInfo orders = kit.createTopic("orders", 1);
        Uuid unknown = Uuid.randomUuid();
        MetadataRequestData req =
                new MetadataRequestData()
                        .setTopics(
                                List.of(
                                        new MetadataRequestTopic()
                                                .setName(null)
                                                .setTopicId(orders.id()),
                                        new MetadataRequestTopic()
                                                .setName(null)
                                                .setTopicId(unknown)));

        MetadataResponseData r = kit.call(ApiKeys.METADATA, V12, req);

        assertThat(r.topics()).hasSize(2);
        List<MetadataResponseTopic> ts = List.copyOf(r.topics());
        assertThat(ts.get(0).name()).isEqualTo("orders");
        assertThat(ts.get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(ts.get(1).topicId()).isEqualTo(unknown);
        assertThat(ts.get(1).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }
}

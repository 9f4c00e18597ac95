package io.tierlog.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.util.List;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CreatePartitions as Kafka's controller checks it, on one node. */
class CreatePartitionsHandlerTest extends HandlerTestBase {
    private static final short V3 = 3;

    @BeforeEach
    void setUp() {
        kit.createTopic("orders", 2);
    }

    private static CreatePartitionsTopic topic(String name, int count) {
        return new CreatePartitionsTopic().setName(name).setCount(count).setAssignments(null);
    }

    private List<CreatePartitionsTopicResult> send(
            boolean validateOnly, CreatePartitionsTopic... t) {
        CreatePartitionsRequestData req =
                new CreatePartitionsRequestData()
                        .setTimeoutMs(30_000)
                        .setValidateOnly(validateOnly);
        for (CreatePartitionsTopic x : t) {
            req.topics().add(x);
        }
        CreatePartitionsResponseData r = kit.call(ApiKeys.CREATE_PARTITIONS, V3, req);
        return r.results();
    }

    private int partitions(String topic) {
        return kit.topics().topic(topic).orElseThrow().partitions();
    }

    @Test
    void raisingTheCountAddsPartitionsThatMetadataListsAndThatTakeAppends() {
        CreatePartitionsTopicResult r = send(false, topic("orders", 5)).get(0);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partitions("orders")).isEqualTo(5);
        MetadataResponseData md =
                kit.call(
                        ApiKeys.METADATA,
                        (short) 12,
                        new MetadataRequestData()
                                .setTopics(
                                        List.of(
                                                new MetadataRequestData.MetadataRequestTopic()
                                                        .setName("orders"))));
        assertThat(md.topics().find("orders").partitions()).hasSize(5);
        kit.append("orders", 4, "new");
        assertThat(
                        kit.engine()
                                .latestOffset(
                                        new org.apache.kafka.common.TopicPartition("orders", 4)))
                .isEqualTo(1);
    }

    @Test
    void validateOnlyChecksWithoutAddingAnything() {
        assertThat(send(true, topic("orders", 4)).get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partitions("orders")).isEqualTo(2);
        assertThat(send(true, topic("orders", 1)).get(0).errorCode())
                .as("validation still refuses a decrease")
                .isEqualTo(Errors.INVALID_PARTITIONS.code());
    }

    @Test
    void theSameOrASmallerCountIsInvalidPartitionsWithKafkasMessages() {
        CreatePartitionsTopicResult same = send(false, topic("orders", 2)).get(0);
        assertThat(same.errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(same.errorMessage()).isEqualTo("Topic already has 2 partition(s).");
        CreatePartitionsTopicResult less = send(false, topic("orders", 1)).get(0);
        assertThat(less.errorCode()).isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(less.errorMessage())
                .isEqualTo(
                        "The topic orders currently has 2 partition(s); 1 would not be an increase.");
        assertThat(send(false, topic("orders", 10_001)).get(0).errorCode())
                .isEqualTo(Errors.INVALID_PARTITIONS.code());
        assertThat(partitions("orders")).isEqualTo(2);
    }

    @Test
    void anUnknownTopicAndATopicNamedTwiceAreErrorsForThatTopicOnly() {
        List<CreatePartitionsTopicResult> r =
                send(
                        false,
                        topic("missing", 3),
                        topic("dup", 3),
                        topic("dup", 4),
                        topic("orders", 3));
        assertThat(r)
                .extracting(CreatePartitionsTopicResult::name)
                .containsExactly("missing", "dup", "orders");
        assertThat(r.get(0).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(r.get(1).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(r.get(2).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partitions("orders")).isEqualTo(3);
    }

    @Test
    void assignmentsMustNameThisNodeOnlyOncePerNewPartition() {
        int node = kit.metadata().nodeId();
        CreatePartitionsTopic otherBroker =
                topic("orders", 3)
                        .setAssignments(
                                List.of(new CreatePartitionsAssignment().setBrokerIds(List.of(7))));
        CreatePartitionsTopic twoReplicas =
                topic("orders", 3)
                        .setAssignments(
                                List.of(
                                        new CreatePartitionsAssignment()
                                                .setBrokerIds(List.of(node, node))));
        CreatePartitionsTopic tooFew =
                topic("orders", 4)
                        .setAssignments(
                                List.of(
                                        new CreatePartitionsAssignment()
                                                .setBrokerIds(List.of(node))));
        for (CreatePartitionsTopic bad : List.of(otherBroker, twoReplicas, tooFew)) {
            assertThat(send(false, bad).get(0).errorCode())
                    .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT.code());
        }
        assertThat(partitions("orders")).isEqualTo(2);
        CreatePartitionsTopic good =
                topic("orders", 4)
                        .setAssignments(
                                List.of(
                                        new CreatePartitionsAssignment()
                                                .setBrokerIds(List.of(node)),
                                        new CreatePartitionsAssignment()
                                                .setBrokerIds(List.of(node))));
        assertThat(send(false, good).get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(partitions("orders")).isEqualTo(4);
    }
}

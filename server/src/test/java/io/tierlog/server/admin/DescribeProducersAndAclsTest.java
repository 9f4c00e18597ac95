package io.tierlog.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData.AclCreation;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData.DeleteAclsFilter;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData.TopicRequest;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** DescribeProducers from the hot tier's producer state; the ACL APIs without an authorizer. */
class DescribeProducersAndAclsTest extends HandlerTestBase {
    private static final short V0 = 0;
    private static final short V3 = 3;

    private void appendIdempotent(int partition, long pid, short epoch, int seq, long ts, int n)
            throws IOException {
        SimpleRecord[] recs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            recs[i] = new SimpleRecord(ts, null, ("v" + i).getBytes());
        }
        kit.engine()
                .hotLog(new TopicPartition("orders", partition))
                .orElseThrow()
                .append(
                        MemoryRecords.withIdempotentRecords(Compression.NONE, pid, epoch, seq, recs)
                                .buffer());
    }

    private PartitionResponse describe(String topic, int partition) {
        DescribeProducersRequestData.TopicRequestCollection topics =
                new DescribeProducersRequestData.TopicRequestCollection();
        topics.add(new TopicRequest().setName(topic).setPartitionIndexes(List.of(partition)));
        DescribeProducersResponseData r =
                kit.call(
                        ApiKeys.DESCRIBE_PRODUCERS,
                        V0,
                        new DescribeProducersRequestData().setTopics(topics));
        return r.topics().get(0).partitions().get(0);
    }

    @Test
    void eachIdempotentProducerIsListedWithItsEpochLastSequenceAndTimestamp() throws IOException {
        kit.createTopic("orders", 2);
        appendIdempotent(0, 42L, (short) 3, 0, 5_000L, 3);
        appendIdempotent(0, 42L, (short) 3, 3, 6_000L, 2);
        appendIdempotent(0, 77L, (short) 0, 0, 7_000L, 1);
        kit.append("orders", 0, "plain"); // not idempotent: no producer state
        PartitionResponse p = describe("orders", 0);
        assertThat(p.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(p.activeProducers())
                .extracting(
                        ProducerState::producerId,
                        ProducerState::producerEpoch,
                        ProducerState::lastSequence,
                        ProducerState::lastTimestamp,
                        ProducerState::coordinatorEpoch,
                        ProducerState::currentTxnStartOffset)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(42L, 3, 4, 6_000L, -1, -1L),
                        org.assertj.core.groups.Tuple.tuple(77L, 0, 0, 7_000L, -1, -1L));
        assertThat(describe("orders", 1).activeProducers()).isEmpty();
    }

    @Test
    void anUnknownTopicOrPartitionIsAnErrorOfThatPartition() {
        kit.createTopic("orders", 1);
        assertThat(describe("orders", 1).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(describe("missing", 0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void everyAclApiAnswersSecurityDisabledWithKafkasMessage() {
        DescribeAclsResponseData d =
                kit.call(
                        ApiKeys.DESCRIBE_ACLS,
                        V3,
                        new DescribeAclsRequestData()
                                .setResourceTypeFilter((byte) 1)
                                .setPatternTypeFilter((byte) 1)
                                .setOperation((byte) 1)
                                .setPermissionType((byte) 1));
        assertThat(d.errorCode()).isEqualTo(Errors.SECURITY_DISABLED.code());
        assertThat(d.errorMessage()).isEqualTo("No Authorizer is configured on the broker");
        CreateAclsResponseData c =
                kit.call(
                        ApiKeys.CREATE_ACLS,
                        V3,
                        new CreateAclsRequestData()
                                .setCreations(List.of(new AclCreation(), new AclCreation())));
        assertThat(c.results()).hasSize(2);
        assertThat(c.results())
                .allSatisfy(
                        r -> {
                            assertThat(r.errorCode()).isEqualTo(Errors.SECURITY_DISABLED.code());
                            assertThat(r.errorMessage()).isEqualTo("No Authorizer is configured.");
                        });
        DeleteAclsResponseData del =
                kit.call(
                        ApiKeys.DELETE_ACLS,
                        V3,
                        new DeleteAclsRequestData().setFilters(List.of(new DeleteAclsFilter())));
        assertThat(del.filterResults())
                .singleElement()
                .satisfies(
                        r -> assertThat(r.errorCode()).isEqualTo(Errors.SECURITY_DISABLED.code()));
    }
}

package io.tierlog.server.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.HandlerTestBase;
import io.tierlog.server.ServerTestKit;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ListGroups, DescribeGroups, DeleteGroups and OffsetDelete through their handlers, against groups
 * built by JoinGroup/SyncGroup and OffsetCommit: states and members as Kafka names them, and the
 * errors Kafka answers.
 */
class GroupAdminHandlersTest extends HandlerTestBase {
    private static final short LIST_V5 = 5;
    private static final short LIST_V4 = 4;
    private static final short DESCRIBE_V5 = 5;
    private static final short DESCRIBE_V6 = 6;
    private static final short DELETE_V3 = 3;
    private static final byte[] ASSIGNMENT = {1, 2, 3};

    @BeforeEach
    void setUp() {
        kit.createTopic("orders", 2);
        kit.createTopic("audit", 1);
    }

    private static byte[] subscription(String... topics) {
        ByteBuffer b =
                ConsumerProtocol.serializeSubscription(
                        new ConsumerPartitionAssignor.Subscription(List.of(topics)));
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** A one-member group {@code g} subscribed to orders, Stable; returns the member id. */
    private String stableMember(String group) throws Exception {
        JoinGroupRequestProtocolCollection ps = new JoinGroupRequestProtocolCollection();
        ps.add(new JoinGroupRequestProtocol().setName("range").setMetadata(subscription("orders")));
        CompletableFuture<ApiMessage> f =
                kit.send(
                        ApiKeys.JOIN_GROUP,
                        (short) 3, // admitted at once (from v4 a first join gets
                        // MEMBER_ID_REQUIRED)
                        new JoinGroupRequestData()
                                .setGroupId(group)
                                .setMemberId("")
                                .setSessionTimeoutMs(10_000)
                                .setRebalanceTimeoutMs(10_000)
                                .setProtocolType("consumer")
                                .setProtocols(ps));
        JoinGroupResponseData j =
                (JoinGroupResponseData) f.get(ServerTestKit.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(j.errorCode()).isEqualTo(Errors.NONE.code());
        SyncGroupResponseData s =
                (SyncGroupResponseData)
                        kit.send(
                                        ApiKeys.SYNC_GROUP,
                                        (short) 3,
                                        new SyncGroupRequestData()
                                                .setGroupId(group)
                                                .setMemberId(j.memberId())
                                                .setGenerationId(j.generationId())
                                                .setAssignments(
                                                        List.of(
                                                                new SyncGroupRequestData
                                                                                .SyncGroupRequestAssignment()
                                                                        .setMemberId(j.memberId())
                                                                        .setAssignment(
                                                                                ASSIGNMENT))))
                                .get(ServerTestKit.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertThat(s.errorCode()).isEqualTo(Errors.NONE.code());
        return j.memberId();
    }

    private void commit(String group, String topic, int partition, long offset) {
        kit.call(
                ApiKeys.OFFSET_COMMIT,
                (short) 8,
                new OffsetCommitRequestData()
                        .setGroupId(group)
                        .setGenerationIdOrMemberEpoch(-1)
                        .setMemberId("")
                        .setTopics(
                                List.of(
                                        new OffsetCommitRequestTopic()
                                                .setName(topic)
                                                .setPartitions(
                                                        List.of(
                                                                new OffsetCommitRequestPartition()
                                                                        .setPartitionIndex(
                                                                                partition)
                                                                        .setCommittedOffset(
                                                                                offset))))));
    }

    private List<String> committed(String group) {
        OffsetFetchResponseData r =
                kit.call(
                        ApiKeys.OFFSET_FETCH,
                        (short) 7,
                        new OffsetFetchRequestData().setGroupId(group).setTopics(null));
        return r.topics().stream()
                .flatMap(t -> t.partitions().stream().map(p -> t.name() + "-" + p.partitionIndex()))
                .sorted()
                .toList();
    }

    private List<ListedGroup> list(short version, List<String> states, List<String> types) {
        ListGroupsResponseData r =
                kit.call(
                        ApiKeys.LIST_GROUPS,
                        version,
                        new ListGroupsRequestData().setStatesFilter(states).setTypesFilter(types));
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        return r.groups();
    }

    private DescribedGroup describe(short version, String group) {
        DescribeGroupsResponseData r =
                kit.call(
                        ApiKeys.DESCRIBE_GROUPS,
                        version,
                        new DescribeGroupsRequestData().setGroups(List.of(group)));
        assertThat(r.groups()).hasSize(1);
        return r.groups().get(0);
    }

    private short deleteGroup(String group) {
        DeleteGroupsResponseData r =
                kit.call(
                        ApiKeys.DELETE_GROUPS,
                        DELETE_V3,
                        new DeleteGroupsRequestData().setGroupsNames(List.of(group)));
        return r.results().find(group).errorCode();
    }

    private OffsetDeleteResponseData deleteOffsets(String group, String topic, int... partitions) {
        List<OffsetDeleteRequestPartition> ps = new java.util.ArrayList<>();
        for (int p : partitions) {
            ps.add(new OffsetDeleteRequestPartition().setPartitionIndex(p));
        }
        OffsetDeleteRequestTopicCollection ts = new OffsetDeleteRequestTopicCollection();
        ts.add(new OffsetDeleteRequestTopic().setName(topic).setPartitions(ps));
        return kit.call(
                ApiKeys.OFFSET_DELETE,
                (short) 0,
                new OffsetDeleteRequestData().setGroupId(group).setTopics(ts));
    }

    @Test
    void listGroupsShowsActiveAndOffsetOnlyGroupsAndHonoursTheFilters() throws Exception {
        stableMember("active");
        commit("idle", "orders", 0, 5);

        assertThat(list(LIST_V5, List.of(), List.of()))
                .extracting(
                        g ->
                                g.groupId()
                                        + "/"
                                        + g.protocolType()
                                        + "/"
                                        + g.groupState()
                                        + "/"
                                        + g.groupType())
                .containsExactlyInAnyOrder("active/consumer/Stable/classic", "idle//Empty/classic");
        assertThat(list(LIST_V4, List.of("stable"), List.of()))
                .as("states match case-insensitively")
                .extracting(ListedGroup::groupId)
                .containsExactly("active");
        assertThat(list(LIST_V5, List.of("Empty"), List.of("Classic")))
                .extracting(ListedGroup::groupId)
                .containsExactly("idle");
        assertThat(list(LIST_V5, List.of(), List.of("consumer")))
                .as("no KIP-848 groups exist")
                .isEmpty();
        assertThat(list((short) 2, List.of("Dead"), List.of("consumer")))
                .as("filters are not read before v4")
                .hasSize(2);
    }

    @Test
    void describeGroupsShowsMembersWithTheirMetadataAndAssignment() throws Exception {
        String member = stableMember("g");

        DescribedGroup d = describe(DESCRIBE_V5, "g");

        assertThat(d.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(d.groupState()).isEqualTo("Stable");
        assertThat(d.protocolType()).isEqualTo("consumer");
        assertThat(d.protocolData()).isEqualTo("range");
        assertThat(d.members()).hasSize(1);
        DescribeGroupsResponseData.DescribedGroupMember m = d.members().get(0);
        assertThat(m.memberId()).isEqualTo(member);
        assertThat(m.clientId()).isEqualTo("kit-client");
        assertThat(m.clientHost()).isEqualTo("/127.0.0.1");
        assertThat(m.memberMetadata()).isEqualTo(subscription("orders"));
        assertThat(m.memberAssignment()).isEqualTo(ASSIGNMENT);
    }

    @Test
    void describeGroupsAnswersUnknownGroupsAsKafkaDoesForEachVersion() {
        commit("idle", "orders", 0, 5);

        DescribedGroup idle = describe(DESCRIBE_V6, "idle");
        assertThat(idle.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(idle.groupState()).isEqualTo("Empty");
        assertThat(idle.members()).isEmpty();

        DescribedGroup v5 = describe(DESCRIBE_V5, "nope");
        assertThat(v5.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(v5.groupState()).isEqualTo("Dead");
        DescribedGroup v6 = describe(DESCRIBE_V6, "nope");
        assertThat(v6.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(v6.groupState()).isEqualTo("Dead");
        assertThat(describe(DESCRIBE_V6, "").errorCode()).isEqualTo(Errors.INVALID_GROUP_ID.code());
    }

    @Test
    void deleteGroupsRefusesGroupsWithMembersAndDeletesEmptyOnesWithTheirOffsets()
            throws Exception {
        commit("g", "orders", 0, 5); // generation-less: before the group has members
        String member = stableMember("g");

        assertThat(deleteGroup("g")).isEqualTo(Errors.NON_EMPTY_GROUP.code());
        assertThat(committed("g")).containsExactly("orders-0");

        LeaveGroupResponseData left =
                kit.call(
                        ApiKeys.LEAVE_GROUP,
                        (short) 3,
                        new LeaveGroupRequestData()
                                .setGroupId("g")
                                .setMembers(
                                        List.of(
                                                new LeaveGroupRequestData.MemberIdentity()
                                                        .setMemberId(member))));
        assertThat(left.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(describe(DESCRIBE_V6, "g").groupState()).isEqualTo("Empty");

        assertThat(deleteGroup("g")).isEqualTo(Errors.NONE.code());
        assertThat(committed("g")).isEmpty();
        assertThat(list(LIST_V5, List.of(), List.of())).isEmpty();
        assertThat(deleteGroup("g")).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(deleteGroup("")).isEqualTo(Errors.INVALID_GROUP_ID.code());
    }

    @Test
    void offsetDeleteRefusesSubscribedTopicsAndDeletesTheRest() throws Exception {
        commit("g", "orders", 0, 5);
        commit("g", "audit", 0, 6);
        stableMember("g");

        OffsetDeleteResponseData subscribed = deleteOffsets("g", "orders", 0, 1);
        assertThat(subscribed.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(subscribed.topics().find("orders").partitions())
                .extracting(p -> p.partitionIndex() + "=" + Errors.forCode(p.errorCode()))
                .containsExactlyInAnyOrder(
                        "0=GROUP_SUBSCRIBED_TO_TOPIC", "1=GROUP_SUBSCRIBED_TO_TOPIC");

        OffsetDeleteResponseData other = deleteOffsets("g", "audit", 0);
        assertThat(other.topics().find("audit").partitions().find(0).errorCode())
                .isEqualTo(Errors.NONE.code());
        assertThat(committed("g")).containsExactly("orders-0");

        assertThat(
                        deleteOffsets("g", "missing", 0)
                                .topics()
                                .find("missing")
                                .partitions()
                                .find(0)
                                .errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        OffsetDeleteResponseData unknown = deleteOffsets("nope", "orders", 0);
        assertThat(unknown.errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(unknown.topics()).isEmpty();
    }

    @Test
    void offsetDeleteOfAnEmptyGroupRemovesItsOffsets() {
        commit("idle", "orders", 0, 5);
        commit("idle", "orders", 1, 6);

        assertThat(deleteOffsets("idle", "orders", 1).topics().find("orders").partitions())
                .extracting(p -> p.errorCode())
                .containsExactly(Errors.NONE.code());

        assertThat(committed("idle")).containsExactly("orders-0");
    }
}

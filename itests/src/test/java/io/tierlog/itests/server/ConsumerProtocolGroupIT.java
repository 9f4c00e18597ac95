package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-848 consumer groups ({@code group.protocol=consumer}) with kafka-clients 4.4, side by side
 * with classic groups on the same topic: every partition is owned by one member of each group at
 * every point the members' rebalance listeners report, the groups rebalance on join, leave and a
 * silent member's session expiry, and commits survive consumer and server restarts.
 */
class ConsumerProtocolGroupIT {
    private static final String TOPIC = "six";
    private static final int PARTITIONS = 6;
    @TempDir Path dir;
    private ServerHarness server;
    private int produced;
    private final List<GroupMemberThread> members = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        // A short session so that the crash test sees an expiry without waiting 45 s.
        server =
                new ServerHarness(
                        dir,
                        Map.of(
                                "group.consumer.session.timeout.ms", "6000",
                                "group.consumer.heartbeat.interval.ms", "500"));
        Clients.createTopic(server.bootstrap(), TOPIC, PARTITIONS);
        produce(3000);
    }

    @AfterEach
    void stop() throws Exception {
        for (GroupMemberThread m : members) {
            m.close();
        }
        server.close();
    }

    private void produce(int n) {
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            for (int i = 0; i < n; i++) {
                int index = produced++;
                p.send(
                        new ProducerRecord<>(
                                TOPIC, Clients.key("k", index), Clients.value("k", index)));
            }
            p.flush();
        }
    }

    private GroupMemberThread member(
            String name,
            String group,
            String protocol,
            GroupMemberThread.Ownership o,
            BitSet seen) {
        GroupMemberThread m =
                new GroupMemberThread(
                        name, server.bootstrap(), group, protocol, TOPIC, o, seen, Map.of());
        members.add(m);
        return m;
    }

    private static void awaitOwners(
            String what, GroupMemberThread.Ownership o, Set<String> expected) {
        Await.until(
                what,
                () -> {
                    Map<Integer, String> owners = o.snapshot();
                    return owners.size() == PARTITIONS
                            && new HashSet<>(owners.values()).equals(expected);
                },
                Duration.ofMinutes(2));
    }

    private static void awaitSeen(String what, BitSet seen, int n) {
        Await.until(
                what,
                () -> {
                    synchronized (seen) {
                        return seen.cardinality() == n;
                    }
                },
                Duration.ofMinutes(2));
    }

    private void assertNoFailures() {
        for (GroupMemberThread m : members) {
            assertThat(m.failure()).as("%s failed", m.name).isNull();
        }
    }

    @Test
    void
            threeConsumerProtocolAndThreeClassicMembersOwnEachPartitionOnceThroughJoinsLeavesAndARestart()
                    throws Exception {
        GroupMemberThread.Ownership modern = new GroupMemberThread.Ownership();
        GroupMemberThread.Ownership classic = new GroupMemberThread.Ownership();
        BitSet seenModern = new BitSet();
        BitSet seenClassic = new BitSet();
        member("n1", "new-group", "consumer", modern, seenModern);
        member("n2", "new-group", "consumer", modern, seenModern);
        member("c1", "old-group", "classic", classic, seenClassic);
        member("c2", "old-group", "classic", classic, seenClassic);
        awaitOwners(
                "two consumer-protocol members own the six partitions", modern, Set.of("n1", "n2"));
        awaitOwners("two classic members own the six partitions", classic, Set.of("c1", "c2"));

        GroupMemberThread n3 = member("n3", "new-group", "consumer", modern, seenModern);
        GroupMemberThread c3 = member("c3", "old-group", "classic", classic, seenClassic);
        awaitOwners("the third consumer-protocol member joins", modern, Set.of("n1", "n2", "n3"));
        awaitOwners("the third classic member joins", classic, Set.of("c1", "c2", "c3"));
        Await.until(
                "uniform balances 6 partitions as 2 each",
                () ->
                        modern.ownedBy("n1") == 2
                                && modern.ownedBy("n2") == 2
                                && modern.ownedBy("n3") == 2,
                Duration.ofMinutes(1));
        awaitSeen("each group reads every record", seenModern, produced);
        awaitSeen("each group reads every record (classic)", seenClassic, produced);

        try (Admin admin = Clients.admin(server.bootstrap())) {
            Map<String, GroupType> types = new java.util.HashMap<>();
            for (GroupListing g : admin.listGroups().all().get()) {
                types.put(g.groupId(), g.type().orElse(null));
            }
            assertThat(types)
                    .containsEntry("new-group", GroupType.CONSUMER)
                    .containsEntry("old-group", GroupType.CLASSIC);
            ConsumerGroupDescription d =
                    admin.describeConsumerGroups(List.of("new-group")).all().get().get("new-group");
            assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(d.members()).hasSize(3);
            assertThat(d.partitionAssignor()).isEqualTo("uniform");
            Set<TopicPartition> assigned = new HashSet<>();
            d.members().forEach(m -> assigned.addAll(m.assignment().topicPartitions()));
            assertThat(assigned).hasSize(PARTITIONS);
            ConsumerGroupDescription old =
                    admin.describeConsumerGroups(List.of("old-group")).all().get().get("old-group");
            assertThat(old.type()).isEqualTo(GroupType.CLASSIC);
            assertThat(old.members()).hasSize(3);
        }

        n3.close();
        c3.close();
        awaitOwners(
                "a consumer-protocol member leaves: the two others take over",
                modern,
                Set.of("n1", "n2"));
        awaitOwners(
                "a classic member leaves: the two others take over", classic, Set.of("c1", "c2"));
        produce(600);
        awaitSeen("the rest is read after the leave", seenModern, produced);
        awaitSeen("the rest is read after the leave (classic)", seenClassic, produced);

        assertThat(classic.violations()).as("classic ownership before the restart").isEmpty();
        // A server restart under running members: they carry on without an error reaching them.
        Map<Integer, String> beforeRestart = modern.snapshot();
        server.restart();
        produce(600);
        awaitSeen("the members read on after a server restart", seenModern, produced);
        assertThat(modern.snapshot())
                .as("no partition moved over the restart")
                .isEqualTo(beforeRestart);
        awaitSeen("the classic members read on after a server restart", seenClassic, produced);
        awaitOwners("after the restart the partitions are owned again", modern, Set.of("n1", "n2"));
        assertNoFailures();
        for (GroupMemberThread m : List.copyOf(members)) {
            m.close();
        }
        members.clear();

        assertThat(modern.violations()).as("consumer-protocol ownership").isEmpty();

        // Commits survive the consumers' and the server's restart: a new member resumes at the end.
        server.restart();
        produce(10);
        BitSet after = new BitSet();
        GroupMemberThread.Ownership again = new GroupMemberThread.Ownership();
        member("n4", "new-group", "consumer", again, after);
        awaitSeen("the new member reads the 10 new records", after, 10);
        synchronized (after) {
            assertThat(after.nextSetBit(0))
                    .as("nothing before the committed offsets is read again")
                    .isEqualTo(produced - 10);
        }
        assertNoFailures();
    }

    @Test
    void afterAServerRestartMembersCarryOnWithinSecondsAndARestartedStaticMemberKeepsItsPartitions(
            @TempDir Path other) throws Exception {
        // Kafka's default session timeout (45 s), so that a stall until expiry would show.
        server.close();
        server = new ServerHarness(other, Map.of());
        Clients.createTopic(server.bootstrap(), TOPIC, PARTITIONS);
        produced = 0;
        produce(600);
        GroupMemberThread.Ownership o = new GroupMemberThread.Ownership();
        BitSet seen = new BitSet();
        member("d1", "restart-group", "consumer", o, seen);
        Map<String, Object> staticId = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "static-1");
        members.add(
                new GroupMemberThread(
                        "s1",
                        server.bootstrap(),
                        "restart-group",
                        "consumer",
                        TOPIC,
                        o,
                        seen,
                        staticId));
        awaitOwners("two members own the six partitions", o, Set.of("d1", "s1"));
        awaitSeen("the group reads every record", seen, produced);
        Map<Integer, String> before = o.snapshot();

        server.restart();
        long restarted = System.nanoTime();
        produce(600);
        Await.until(
                "every partition is consumed again after the restart",
                () -> {
                    synchronized (seen) {
                        return seen.cardinality() == produced;
                    }
                },
                Duration.ofSeconds(15));
        long tookMs = (System.nanoTime() - restarted) / 1_000_000;
        assertThat(tookMs)
                .as("consumption resumes well within the 45 s session timeout")
                .isLessThan(15_000);
        assertThat(o.snapshot()).as("no partition moved over the restart").isEqualTo(before);
        try (Admin admin = Clients.admin(server.bootstrap())) {
            ConsumerGroupDescription d =
                    admin.describeConsumerGroups(List.of("restart-group"))
                            .all()
                            .get()
                            .get("restart-group");
            assertThat(d.members()).as("the same two members, none of before left over").hasSize(2);
        }

        // The static member's consumer restarts: the new one gets the same partitions, the other
        // member keeps its own, nothing is owned twice.
        GroupMemberThread s1 =
                members.stream().filter(m -> m.name.equals("s1")).findFirst().orElseThrow();
        Set<Integer> staticOwned = new HashSet<>();
        before.forEach(
                (p, who) -> {
                    if (who.equals("s1")) {
                        staticOwned.add(p);
                    }
                });
        s1.close();
        members.add(
                new GroupMemberThread(
                        "s1-again",
                        server.bootstrap(),
                        "restart-group",
                        "consumer",
                        TOPIC,
                        o,
                        seen,
                        staticId));
        Await.until(
                "the restarted static member owns its partitions again",
                () -> o.ownedBy("s1-again") == staticOwned.size(),
                Duration.ofSeconds(30));
        Map<Integer, String> now = o.snapshot();
        now.forEach(
                (p, who) ->
                        assertThat(who)
                                .as("partition %d", p)
                                .isEqualTo(staticOwned.contains(p) ? "s1-again" : "d1"));
        produce(100);
        awaitSeen("the group reads on", seen, produced);
        assertThat(o.violations()).as("no partition owned twice").isEmpty();
        assertNoFailures();
        System.out.printf("consumption resumed %d ms after the server restart%n", tookMs);
    }

    @Test
    void aConsumerProtocolMemberThatStopsHeartbeatingIsExpiredAndItsPartitionsMove()
            throws Exception {
        // The silent member speaks the protocol by hand, so that it can die without a word: it
        // joins, acknowledges its assignment, then sends nothing more (a killed process).
        String ghost = org.apache.kafka.common.Uuid.randomUuid().toString();
        int epoch;
        java.util.List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned;
        try (RawClient raw = new RawClient(server.port())) {
            ConsumerGroupHeartbeatResponseData joined =
                    raw.call(
                            ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                            (short) 1,
                            new ConsumerGroupHeartbeatRequestData()
                                    .setGroupId("crash-group")
                                    .setMemberId(ghost)
                                    .setMemberEpoch(0)
                                    .setRebalanceTimeoutMs(30_000)
                                    .setSubscribedTopicNames(List.of(TOPIC))
                                    .setTopicPartitions(List.of()),
                            new ConsumerGroupHeartbeatResponseData());
            assertThat(joined.errorCode()).isZero();
            assertThat(joined.assignment().topicPartitions().get(0).partitions())
                    .hasSize(PARTITIONS);
            epoch = joined.memberEpoch();
            owned = new java.util.ArrayList<>();
            for (ConsumerGroupHeartbeatResponseData.TopicPartitions tp :
                    joined.assignment().topicPartitions()) {
                owned.add(
                        new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                                .setTopicId(tp.topicId())
                                .setPartitions(tp.partitions()));
            }
        }
        GroupMemberThread.Ownership o = new GroupMemberThread.Ownership();
        BitSet seen = new BitSet();
        member("a", "crash-group", "consumer", o, seen);
        try (Admin admin = Clients.admin(server.bootstrap())) {
            Await.until(
                    "a joins while the ghost still owns every partition",
                    () -> describe(admin, "crash-group").members().size() == 2,
                    Duration.ofMinutes(1));
            assertThat(o.snapshot())
                    .as("nothing for a while the ghost's session lasts (it owns all)")
                    .isEmpty();
            awaitOwners(
                    "a takes over the ghost's partitions once its session expired", o, Set.of("a"));
            assertThat(describe(admin, "crash-group").members()).hasSize(1);
        }
        try (RawClient raw = new RawClient(server.port())) {
            ConsumerGroupHeartbeatResponseData late =
                    raw.call(
                            ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                            (short) 1,
                            new ConsumerGroupHeartbeatRequestData()
                                    .setGroupId("crash-group")
                                    .setMemberId(ghost)
                                    .setMemberEpoch(epoch)
                                    .setTopicPartitions(owned),
                            new ConsumerGroupHeartbeatResponseData());
            assertThat(Errors.forCode(late.errorCode()))
                    .as("the expired member is no longer known")
                    .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        }
        produce(100);
        awaitSeen("a reads everything", seen, produced);
        assertThat(o.violations()).isEmpty();
        assertNoFailures();
    }

    /** A finished run of Kafka 4.4's kafka-consumer-groups: exit code and output. */
    private record Tool(int exit, String out) {}

    private Tool consumerGroups(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand");
        cmd.add("--bootstrap-server");
        cmd.add(server.bootstrap());
        cmd.addAll(List.of(args));
        Path out = java.nio.file.Files.createTempFile(dir, "cg-", ".out");
        Process p = io.tierlog.itests.kafka.KafkaBroker.javaProcess(cmd, out).start();
        if (!p.waitFor(3, java.util.concurrent.TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("kafka-consumer-groups did not finish: " + cmd);
        }
        Tool t = new Tool(p.exitValue(), java.nio.file.Files.readString(out));
        System.out.println(
                "kafka-consumer-groups " + String.join(" ", args) + " -> " + t.exit + "\n" + t.out);
        return t;
    }

    @Test
    void kafkaConsumerGroupsDescribesListsAndDeletesAConsumerGroup() throws Exception {
        GroupMemberThread.Ownership o = new GroupMemberThread.Ownership();
        BitSet seen = new BitSet();
        GroupMemberThread a = member("tool-member", "tooled", "consumer", o, seen);
        awaitSeen("the member reads everything", seen, produced);
        awaitOwners("the member owns every partition", o, Set.of("tool-member"));

        Tool offsets = consumerGroups("--describe", "--group", "tooled");
        assertThat(offsets.exit()).isZero();
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(offsets.out())
                    .containsPattern(
                            "tooled\\s+"
                                    + TOPIC
                                    + "\\s+"
                                    + p
                                    + "\\s+\\d+\\s+\\d+\\s+0\\s+\\S+\\s+/127.0.0.1\\s+tool-member");
        }
        Tool state = consumerGroups("--describe", "--group", "tooled", "--state");
        assertThat(state.exit()).isZero();
        assertThat(state.out())
                .containsPattern("tooled\\s+127.0.0.1:\\d+\\s+\\(0\\)\\s+uniform\\s+Stable\\s+1");
        Tool membersOut =
                consumerGroups("--describe", "--group", "tooled", "--members", "--verbose");
        assertThat(membersOut.exit()).isZero();
        assertThat(membersOut.out()).contains("tool-member").contains(TOPIC + ":0,1,2,3,4,5");
        Tool list = consumerGroups("--list", "--type");
        assertThat(list.exit()).isZero();
        assertThat(list.out()).containsPattern("tooled\\s+Consumer");

        Tool refused = consumerGroups("--delete", "--group", "tooled");
        assertThat(refused.out()).contains("GroupNotEmptyException: The group is not empty.");
        a.close();
        members.clear();
        Tool deleted = consumerGroups("--delete", "--group", "tooled");
        assertThat(deleted.exit()).isZero();
        assertThat(deleted.out())
                .contains("Deletion of requested consumer groups ('tooled') was successful.");
        try (Admin admin = Clients.admin(server.bootstrap())) {
            assertThat(admin.listGroups().all().get())
                    .extracting(GroupListing::groupId)
                    .doesNotContain("tooled");
        }
    }

    private static ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    }

    @Test
    void aGroupIdIsEitherClassicOrConsumerAndOffsetsCommittedAsOneAreReadByTheOther()
            throws Exception {
        GroupMemberThread.Ownership o = new GroupMemberThread.Ownership();
        BitSet seen = new BitSet();
        GroupMemberThread a = member("a", "switch", "consumer", o, seen);
        awaitSeen("a consumer-protocol member reads everything", seen, produced);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "switch");
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        try (KafkaConsumer<byte[], byte[]> classic =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            classic.subscribe(List.of(TOPIC));
            Throwable e = null;
            try {
                classic.poll(Duration.ofSeconds(10));
            } catch (Exception x) {
                e = x;
            }
            assertThat(e)
                    .as("a classic member may not join a consumer group with members")
                    .isInstanceOf(
                            org.apache.kafka.common.errors.InconsistentGroupProtocolException
                                    .class);
        }
        a.close();
        members.clear();
        // Now empty: the id may be used by a classic group, which sees the committed offsets.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        try (KafkaConsumer<byte[], byte[]> classic =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            classic.subscribe(List.of(TOPIC));
            produce(5);
            int[] read = {0};
            Await.until(
                    "the classic member resumes at the offsets committed by the consumer group",
                    () -> {
                        read[0] += classic.poll(Duration.ofMillis(200)).count();
                        return read[0] >= 5;
                    },
                    Duration.ofMinutes(1));
            assertThat(read[0]).isEqualTo(5);
            Map<TopicPartition, OffsetAndMetadata> committed =
                    classic.committed(new HashSet<>(Clients.partitions(TOPIC, PARTITIONS)));
            assertThat(committed.values()).doesNotContainNull();
        }
    }
}

package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Classic consumer groups with several kafka-clients 4.4 consumers over a 6-partition topic: each
 * partition owned exactly once through joins, leaves and a server restart, commits kept across
 * consumer and server restarts; static members (group.instance.id) that restart within their
 * session timeout keep their partitions with no rebalance (also across a server restart), a
 * duplicate instance fences the old one, AdminClient removes a member by instance id, and a silent
 * static member expires after its session timeout.
 */
class ConsumerGroupStaticIT {
    private static final String TOPIC = "six";
    private static final int PARTITIONS = 6;
    private static final int SESSION_MS = 10_000;

    @TempDir Path dir;
    private ServerHarness server;
    private final List<Member> open = new ArrayList<>();

    /** A consumer polled by the test thread, counting the rebalances it took part in. */
    private final class Member implements ConsumerRebalanceListener {
        final KafkaConsumer<byte[], byte[]> consumer;
        int assignedCalls;
        final Set<String> seen = new HashSet<>();

        Member(String group, String instance) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            if (instance != null) {
                p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
            }
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_MS);
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
            p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
            consumer =
                    new KafkaConsumer<>(
                            p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            consumer.subscribe(List.of(TOPIC), this);
            open.add(this);
        }

        void poll() {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                seen.add(new String(r.key()));
            }
        }

        int generation() {
            return consumer.groupMetadata().generationId();
        }

        Set<TopicPartition> owned() {
            return consumer.assignment();
        }

        void close() {
            open.remove(this);
            consumer.close();
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            assignedCalls++;
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir, Map.of());
        Clients.createTopic(server.bootstrap(), TOPIC, PARTITIONS);
        produce("a", 600);
    }

    @AfterEach
    void stop() {
        for (Member m : new ArrayList<>(open)) {
            m.close();
        }
        server.close();
    }

    private void produce(String tag, int n) {
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            for (int i = 0; i < n; i++) {
                p.send(
                        new ProducerRecord<>(
                                TOPIC, i % PARTITIONS, Clients.key(tag, i), Clients.value(tag, i)));
            }
            p.flush();
        }
    }

    /**
     * Polls every member until each of the 6 partitions is owned by exactly one of them and each
     * owns {@code 6 / members} (the range assignor's share).
     */
    private void awaitOwnedOnce(List<Member> members) {
        Await.until(
                "each partition owned exactly once by " + members.size() + " members",
                () -> {
                    members.forEach(Member::poll);
                    List<TopicPartition> all = new ArrayList<>();
                    for (Member m : members) {
                        if (m.owned().size() != PARTITIONS / members.size()) {
                            return false;
                        }
                        all.addAll(m.owned());
                    }
                    return new HashSet<>(all).size() == PARTITIONS && all.size() == PARTITIONS;
                },
                Duration.ofMinutes(1));
    }

    private static void commitUntilDone(Member m) {
        Await.until(
                "a commit outside a rebalance",
                () -> {
                    try {
                        m.consumer.commitSync();
                        return true;
                    } catch (RebalanceInProgressException | CommitFailedException e) {
                        m.poll();
                        return false;
                    }
                },
                Duration.ofMinutes(1));
    }

    private static Set<String> seen(List<Member> members) {
        Set<String> all = new HashSet<>();
        members.forEach(m -> all.addAll(m.seen));
        return all;
    }

    @Test
    void threeConsumersOwnEachPartitionOnceThroughJoinsLeavesAndRestartsAndKeepTheirCommits()
            throws Exception {
        Member a = new Member("three", null);
        awaitOwnedOnce(List.of(a));
        Member b = new Member("three", null);
        awaitOwnedOnce(List.of(a, b));
        Member c = new Member("three", null);
        awaitOwnedOnce(List.of(a, b, c));
        List<Member> all = List.of(a, b, c);
        Await.until(
                "every record read",
                () -> {
                    all.forEach(Member::poll);
                    return seen(all).size() == 600;
                },
                Duration.ofMinutes(1));
        all.forEach(ConsumerGroupStaticIT::commitUntilDone);

        int aRebalances = a.assignedCalls;
        c.close(); // a dynamic member leaves: the other two rebalance
        awaitOwnedOnce(List.of(a, b));
        assertThat(a.assignedCalls).as("a took part in a rebalance").isGreaterThan(aRebalances);

        server.restart();
        produce("b", 60);
        List<Member> two = List.of(a, b);
        Await.until(
                "the new records read after the server restart",
                () -> {
                    two.forEach(Member::poll);
                    return seen(two).stream().filter(k -> k.startsWith("b:")).count() == 60;
                },
                Duration.ofMinutes(1));
        try (Admin admin = Clients.admin(server.bootstrap())) {
            // A partition that changed owners is read again from its committed offset (eager
            // rebalance): poll and commit until every position committed is the end.
            Await.until(
                    "every partition committed at its end (110)",
                    () -> {
                        awaitOwnedOnce(two);
                        two.forEach(ConsumerGroupStaticIT::commitUntilDone);
                        Map<TopicPartition, OffsetAndMetadata> committed =
                                admin.listConsumerGroupOffsets("three")
                                        .partitionsToOffsetAndMetadata()
                                        .get();
                        return Clients.partitions(TOPIC, PARTITIONS).stream()
                                .allMatch(tp -> committed.get(tp).offset() == 110);
                    },
                    Duration.ofMinutes(1));
        }
        a.close();
        b.close();
        server.restart();
        try (Admin admin = Clients.admin(server.bootstrap())) {
            ConsumerGroupDescription emptied =
                    admin.describeConsumerGroups(List.of("three")).all().get().get("three");
            assertThat(emptied.groupState())
                    .as("the members left before the restart: none come back")
                    .isEqualTo(org.apache.kafka.common.GroupState.EMPTY);
            assertThat(emptied.members()).isEmpty();
        }
        produce("c", 6);
        Member d = new Member("three", null);
        Await.until(
                "the records produced after the last commit",
                () -> {
                    d.poll();
                    return d.seen.size() >= 6;
                },
                Duration.ofMinutes(1));
        assertThat(d.seen)
                .as("a new member starts from the committed offsets, after two restarts")
                .allMatch(k -> k.startsWith("c:"))
                .hasSize(6);
    }

    private static Map<String, MemberDescription> byInstance(Admin admin, String group)
            throws Exception {
        ConsumerGroupDescription d =
                admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        Map<String, MemberDescription> out = new HashMap<>();
        for (MemberDescription m : d.members()) {
            out.put(m.groupInstanceId().orElse(""), m);
        }
        return out;
    }

    /** Polls members for about {@code rounds} x 50 ms, while nothing is expected to happen. */
    private static void keepPolling(List<Member> members, int rounds) {
        for (int i = 0; i < rounds; i++) {
            members.forEach(Member::poll);
        }
    }

    @Test
    void staticMembersRestartWithoutARebalanceFenceDuplicatesAndLeaveByAdminOrTimeout()
            throws Exception {
        String g = "static";
        Member s1 = new Member(g, "s1");
        Member s2 = new Member(g, "s2");
        Member s3 = new Member(g, "s3");
        awaitOwnedOnce(List.of(s1, s2, s3));
        int generation = s1.generation();
        Set<TopicPartition> s3Owned = Set.copyOf(s3.owned());
        int s1Rebalances = s1.assignedCalls;
        try (Admin admin = Clients.admin(server.bootstrap())) {
            String s3Id = byInstance(admin, g).get("s3").consumerId();
            assertThat(byInstance(admin, g)).containsOnlyKeys("s1", "s2", "s3");

            // A static member closes without leaving and comes back within its session.
            s3.close();
            Member s3b = new Member(g, "s3");
            Await.until(
                    "the restarted static member has partitions",
                    () -> {
                        List.of(s1, s2, s3b).forEach(Member::poll);
                        return !s3b.owned().isEmpty();
                    },
                    Duration.ofMinutes(1));
            keepPolling(List.of(s1, s2, s3b), 40);
            assertThat(s3b.owned()).as("its partitions kept").isEqualTo(s3Owned);
            assertThat(s3b.generation()).isEqualTo(generation);
            assertThat(s1.generation()).as("no new generation").isEqualTo(generation);
            assertThat(s1.assignedCalls).as("no rebalance for the others").isEqualTo(s1Rebalances);
            assertThat(byInstance(admin, g).get("s3").consumerId())
                    .as("a new member id for the instance")
                    .isNotEqualTo(s3Id);

            // A second consumer with s1's instance id takes its place; the first is fenced.
            Set<TopicPartition> s1Owned = Set.copyOf(s1.owned());
            Member dup = new Member(g, "s1");
            Await.until(
                    "the duplicate instance holds s1's partitions",
                    () -> {
                        List.of(s2, s3b, dup).forEach(Member::poll);
                        return dup.owned().equals(s1Owned);
                    },
                    Duration.ofMinutes(1));
            assertThatThrownBy(
                            () -> {
                                Await.until(
                                        "the old s1 learns it is fenced",
                                        () -> {
                                            s1.poll();
                                            return false;
                                        },
                                        Duration.ofSeconds(30));
                            })
                    .isInstanceOf(FencedInstanceIdException.class);
            s1.close();
            assertThat(s2.generation()).as("still no rebalance").isEqualTo(generation);

            // Across a server restart: s2 is away while the server restarts and comes back.
            Set<TopicPartition> s2Owned = Set.copyOf(s2.owned());
            s2.close();
            server.restart();
            Member s2b = new Member(g, "s2");
            Await.until(
                    "s2 back after the server restart",
                    () -> {
                        List.of(dup, s3b, s2b).forEach(Member::poll);
                        return !s2b.owned().isEmpty();
                    },
                    Duration.ofMinutes(1));
            keepPolling(List.of(dup, s3b, s2b), 40);
            assertThat(s2b.owned()).isEqualTo(s2Owned);
            assertThat(List.of(dup.generation(), s3b.generation(), s2b.generation()))
                    .as("the membership survived the restart: no rebalance")
                    .containsOnly(generation);

            // An administrator removes s2 by its instance id (it is gone, so no session wait).
            s2b.close();
            admin.removeMembersFromConsumerGroup(
                            g,
                            new RemoveMembersFromConsumerGroupOptions(
                                    List.of(new MemberToRemove("s2"))))
                    .all()
                    .get();
            assertThat(byInstance(admin, g)).doesNotContainKey("s2");
            awaitOwnedOnce(List.of(dup, s3b));
            assertThat(dup.generation()).isGreaterThan(generation);

            // A static member that stays silent expires after its session timeout.
            s3b.close();
            long closedAt = System.nanoTime();
            awaitOwnedOnce(List.of(dup));
            assertThat(Duration.ofNanos(System.nanoTime() - closedAt))
                    .as("not before the session timeout")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(SESSION_MS - 1000));
            assertThat(byInstance(admin, g)).containsOnlyKeys("s1");
        }
    }
}

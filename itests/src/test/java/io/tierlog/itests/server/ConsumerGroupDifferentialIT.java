package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.common.testing.Property;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same seeded classic-group workload against Apache Kafka 4.4 (a real broker in a child JVM)
 * and tierlog, comparing what the clients see: consumers join, leave, restart as static members,
 * are fenced by a duplicate instance id and commit; after each step every partition is owned
 * exactly once and the observations (member counts and shares, whether a static restart caused a
 * rebalance, the exception a fenced consumer gets, committed offsets, DescribeGroups' state,
 * assignor and instance ids, kafka-consumer-groups' table headers, reset results and refusals) must
 * be identical. Ids and generations themselves are not compared (they differ by design).
 */
class ConsumerGroupDifferentialIT {
    private static final String TOPIC = "diff";
    private static final int PARTITIONS = 6;
    private static final int STEPS = 10;

    @TempDir Path dir;

    @Test
    void aSeededGroupWorkloadLooksTheSameOnKafkaAndOnTierlog() throws Exception {
        Property.forAll(
                1,
                random -> {
                    long seed = random.nextLong();
                    List<String> kafka;
                    try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
                        kafka = new Workload(broker.bootstrapServers(), seed).run();
                    }
                    List<String> tierlog;
                    try (ServerHarness server =
                            new ServerHarness(dir.resolve("tierlog"), Map.of())) {
                        tierlog = new Workload(server.bootstrap(), seed).run();
                    }
                    System.out.println("Kafka 4.4 observations:\n" + String.join("\n", kafka));
                    assertThat(tierlog).as("tierlog's observations").isEqualTo(kafka);
                });
    }

    /** One run of the workload against one server; {@link #run} returns what it observed. */
    private static final class Workload {
        final String bootstrap;
        final Random random;
        final List<String> seen = new ArrayList<>();
        final List<Member> members = new ArrayList<>();
        int nextInstance;
        int step;

        Workload(String bootstrap, long seed) {
            this.bootstrap = bootstrap;
            this.random = new Random(seed);
        }

        final class Member {
            final String instance;
            final KafkaConsumer<byte[], byte[]> consumer;

            Member(String instance) {
                this.instance = instance;
                Properties p = new Properties();
                p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                p.put(ConsumerConfig.GROUP_ID_CONFIG, "dg");
                if (instance != null) {
                    p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
                }
                p.put(
                        ConsumerConfig.CLIENT_ID_CONFIG,
                        "diff-" + (instance == null ? "dyn" : instance));
                p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
                p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
                p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
                consumer =
                        new KafkaConsumer<>(
                                p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                consumer.subscribe(List.of(TOPIC));
            }

            void poll() {
                consumer.poll(Duration.ofMillis(50));
            }

            int generation() {
                return consumer.groupMetadata().generationId();
            }
        }

        List<String> run() throws Exception {
            try (Admin admin = Clients.admin(bootstrap)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
                try (KafkaProducer<byte[], byte[]> p = Clients.producer(bootstrap, "none")) {
                    for (int i = 0; i < 600; i++) {
                        p.send(
                                new ProducerRecord<>(
                                        TOPIC,
                                        i % PARTITIONS,
                                        Clients.key("d", i),
                                        Clients.value("d", i)));
                    }
                }
                add(new Member(null));
                add(new Member("i" + nextInstance++));
                for (step = 0; step < STEPS; step++) {
                    step(admin);
                }
                describe(admin);
                finish(admin);
            } finally {
                members.forEach(m -> m.consumer.close(Duration.ofSeconds(5)));
            }
            return seen;
        }

        private void add(Member m) {
            members.add(m);
            awaitOwnedOnce();
            seen.add(
                    "join "
                            + (m.instance == null ? "dynamic" : "static")
                            + " -> members "
                            + members.size());
        }

        private void step(Admin admin) throws Exception {
            List<Member> statics = members.stream().filter(m -> m.instance != null).toList();
            List<Member> dynamics = members.stream().filter(m -> m.instance == null).toList();
            int choice = random.nextInt(5);
            if (choice == 0 && members.size() < 3) {
                add(new Member(random.nextBoolean() ? null : "i" + nextInstance++));
            } else if (choice == 1 && !dynamics.isEmpty() && members.size() > 1) {
                Member m = dynamics.get(random.nextInt(dynamics.size()));
                members.remove(m);
                m.consumer.close();
                awaitOwnedOnce();
                seen.add("dynamic leaves -> members " + members.size());
            } else if (choice == 2 && !statics.isEmpty()) {
                Member old = statics.get(random.nextInt(statics.size()));
                var owned = Set(old.consumer.assignment());
                List<Integer> generations = generations();
                old.consumer.close();
                replace(old, new Member(old.instance));
                seen.add(
                        "static restart: same partitions "
                                + owned.equals(
                                        Set(members.get(members.size() - 1).consumer.assignment()))
                                + ", rebalance "
                                + !generations.equals(generations()));
            } else if (choice == 3 && !statics.isEmpty()) {
                Member old = statics.get(random.nextInt(statics.size()));
                Member dup = new Member(old.instance);
                String fenced = "none";
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline) {
                    dup.poll();
                    members.stream().filter(m -> m != old).forEach(Member::poll);
                    try {
                        old.poll();
                    } catch (RuntimeException e) {
                        fenced = e.getClass().getSimpleName();
                        break;
                    }
                }
                old.consumer.close();
                replace(old, dup);
                seen.add("duplicate instance: old member gets " + fenced);
            } else {
                commit(admin);
            }
        }

        private void replace(Member old, Member now) {
            members.set(members.indexOf(old), now);
            members.add(members.remove(members.indexOf(now)));
            awaitOwnedOnce();
        }

        private List<Integer> generations() {
            return members.stream().map(Member::generation).toList();
        }

        private static java.util.Set<TopicPartition> Set(Collection<TopicPartition> c) {
            return new HashSet<>(c);
        }

        private void commit(Admin admin) throws Exception {
            for (Member m : members) {
                Map<TopicPartition, OffsetAndMetadata> offsets =
                        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
                for (TopicPartition tp : m.consumer.assignment()) {
                    offsets.put(tp, new OffsetAndMetadata((step * 7L + tp.partition()) % 100));
                }
                Await.until(
                        "a commit outside a rebalance",
                        () -> {
                            try {
                                m.consumer.commitSync(offsets);
                                return true;
                            } catch (RebalanceInProgressException | CommitFailedException e) {
                                members.forEach(Member::poll);
                                return false;
                            }
                        },
                        Duration.ofMinutes(1));
            }
            seen.add("commit -> " + committed(admin));
        }

        private String committed(Admin admin) throws Exception {
            Map<String, Long> out = new TreeMap<>();
            admin.listConsumerGroupOffsets("dg")
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .forEach((tp, o) -> out.put(tp.toString(), o.offset()));
            return out.toString();
        }

        /** Polls every member until the 6 partitions are owned once, 6 / members each. */
        private void awaitOwnedOnce() {
            Await.until(
                    "each partition owned exactly once by " + members.size() + " members",
                    () -> {
                        members.forEach(Member::poll);
                        List<TopicPartition> all = new ArrayList<>();
                        for (Member m : members) {
                            if (m.consumer.assignment().size() != PARTITIONS / members.size()) {
                                return false;
                            }
                            all.addAll(m.consumer.assignment());
                        }
                        return all.size() == PARTITIONS && new HashSet<>(all).size() == PARTITIONS;
                    },
                    Duration.ofMinutes(1));
        }

        private void describe(Admin admin) throws Exception {
            ConsumerGroupDescription d =
                    admin.describeConsumerGroups(List.of("dg")).all().get().get("dg");
            List<String> instances = new ArrayList<>();
            List<Integer> shares = new ArrayList<>();
            for (MemberDescription m : d.members()) {
                instances.add(m.groupInstanceId().orElse("-"));
                shares.add(m.assignment().topicPartitions().size());
            }
            instances.sort(null);
            shares.sort(null);
            seen.add(
                    "describe: "
                            + d.groupState()
                            + " "
                            + d.type()
                            + " "
                            + d.partitionAssignor()
                            + " instances "
                            + instances
                            + " shares "
                            + shares);
            for (String[] args :
                    List.of(
                            new String[] {"--describe", "--group", "dg"},
                            new String[] {"--describe", "--group", "dg", "--members"},
                            new String[] {"--describe", "--group", "dg", "--state"})) {
                ConsumerGroupsTool.Run r = ConsumerGroupsTool.run(bootstrap, args);
                List<String> lines = r.out().lines().filter(l -> !l.isBlank()).toList();
                seen.add(
                        String.join(" ", args)
                                + " -> exit "
                                + r.exit()
                                + ", header "
                                + String.join(" ", lines.get(0).trim().split("\\s+"))
                                + ", rows "
                                + (lines.size() - 1));
            }
            ConsumerGroupsTool.Run refused =
                    ConsumerGroupsTool.run(
                            bootstrap,
                            "--reset-offsets",
                            "--group",
                            "dg",
                            "--all-topics",
                            "--to-earliest",
                            "--execute");
            seen.add(
                    "reset while active -> "
                            + refused.out()
                                    .lines()
                                    .filter(l -> l.startsWith("Error"))
                                    .findFirst()
                                    .orElse("no error"));
        }

        /**
         * Everyone leaves (static members removed by the admin), then resets of the Empty group.
         */
        private void finish(Admin admin) throws Exception {
            try {
                admin.removeMembersFromConsumerGroup(
                                "dg",
                                new RemoveMembersFromConsumerGroupOptions(
                                        List.of(new MemberToRemove("no-such-instance"))))
                        .all()
                        .get();
                seen.add("remove unknown instance -> ok");
            } catch (ExecutionException e) {
                seen.add("remove unknown instance -> " + e.getCause().getClass().getSimpleName());
            }
            List<MemberToRemove> statics = new ArrayList<>();
            for (Member m : members) {
                m.consumer.close();
                if (m.instance != null) {
                    statics.add(new MemberToRemove(m.instance));
                }
            }
            members.clear();
            if (!statics.isEmpty()) {
                admin.removeMembersFromConsumerGroup(
                                "dg", new RemoveMembersFromConsumerGroupOptions(statics))
                        .all()
                        .get();
            }
            Await.until(
                    "the group is Empty",
                    () ->
                            admin.describeConsumerGroups(List.of("dg"))
                                            .all()
                                            .get()
                                            .get("dg")
                                            .groupState()
                                    == GroupState.EMPTY,
                    Duration.ofSeconds(30));
            seen.add("after everyone left -> Empty, offsets " + committed(admin));
            for (String[] args :
                    List.of(
                            new String[] {"--all-topics", "--to-earliest"},
                            new String[] {"--topic", TOPIC + ":0,1", "--shift-by", "30"},
                            new String[] {"--topic", TOPIC, "--to-offset", "150"},
                            new String[] {"--all-topics", "--to-latest"})) {
                List<String> all = new ArrayList<>(List.of("--reset-offsets", "--group", "dg"));
                all.addAll(List.of(args));
                all.add("--execute");
                ConsumerGroupsTool.Run r =
                        ConsumerGroupsTool.run(bootstrap, all.toArray(String[]::new));
                seen.add(
                        String.join(" ", args)
                                + " -> exit "
                                + r.exit()
                                + ", offsets "
                                + committed(admin));
            }
        }
    }
}

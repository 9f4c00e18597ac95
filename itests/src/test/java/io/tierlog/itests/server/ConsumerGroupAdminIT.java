package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer-group administration as an operator does it: a real kafka-clients consumer group, the
 * AdminClient's list / describe / delete-offsets / delete calls, and Apache Kafka 4.4's own {@code
 * kafka-consumer-groups} tool ({@code ConsumerGroupCommand}, in a child JVM) with its output and
 * exit code checked; deletions survive a server restart.
 */
class ConsumerGroupAdminIT {
    private static final String GROUP = "admin-group";
    private static final String TOPIC = "admin-t";
    private static final String OTHER = "admin-other";
    private static final int RECORDS = 10;

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir, Map.of());
        Clients.createTopic(server.bootstrap(), TOPIC, 2);
        Clients.createTopic(server.bootstrap(), OTHER, 1);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            for (int i = 0; i < RECORDS; i++) {
                p.send(
                        new ProducerRecord<>(
                                TOPIC, i % 2, Clients.key("a", i), Clients.value("a", i)));
            }
            p.flush();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private KafkaConsumer<byte[], byte[]> member() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "admin-it-consumer");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** A finished run of the tool: its exit code and output (stdout and stderr). */
    private record Tool(int exit, String out) {}

    private Tool consumerGroups(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand");
        cmd.add("--bootstrap-server");
        cmd.add(server.bootstrap());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "cg-", ".out");
        Process p = KafkaBroker.javaProcess(cmd, out).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("kafka-consumer-groups did not finish: " + cmd);
        }
        Tool t = new Tool(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        System.out.println(
                "kafka-consumer-groups " + String.join(" ", args) + " -> " + t.exit + "\n" + t.out);
        return t;
    }

    private static Throwable cause(Runnable call) {
        try {
            call.run();
            return null;
        } catch (RuntimeException e) {
            return e.getCause() instanceof ExecutionException x ? x.getCause() : e;
        }
    }

    @Test
    void adminClientAndKafkaConsumerGroupsToolListDescribeAndDeleteAClassicGroup()
            throws Exception {
        try (Admin admin = Clients.admin(server.bootstrap())) {
            try (KafkaConsumer<byte[], byte[]> c = member()) {
                c.subscribe(List.of(TOPIC));
                int[] read = {0};
                Await.until(
                        "the member reads every record",
                        () -> {
                            read[0] += c.poll(Duration.ofMillis(100)).count();
                            return read[0] >= RECORDS;
                        },
                        Duration.ofMinutes(1));
                c.commitSync();
                c.commitSync(Map.of(new TopicPartition(OTHER, 0), new OffsetAndMetadata(0)));

                Await.until(
                        "the group is listed as Stable",
                        () ->
                                admin.listGroups().all().get().stream()
                                        .anyMatch(
                                                g ->
                                                        g.groupId().equals(GROUP)
                                                                && g.groupState()
                                                                        .equals(
                                                                                java.util.Optional
                                                                                        .of(
                                                                                                GroupState
                                                                                                        .STABLE))),
                        Duration.ofSeconds(30));
                assertThat(admin.listConsumerGroups().all().get())
                        .extracting(l -> l.groupId())
                        .contains(GROUP);

                ConsumerGroupDescription d =
                        admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP);
                assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
                assertThat(d.partitionAssignor()).isEqualTo("range");
                assertThat(d.members()).hasSize(1);
                MemberDescription m = d.members().iterator().next();
                assertThat(m.clientId()).isEqualTo("admin-it-consumer");
                assertThat(m.host()).isEqualTo("/127.0.0.1");
                assertThat(m.assignment().topicPartitions())
                        .containsExactlyInAnyOrder(
                                new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));

                Tool list = consumerGroups("--list");
                assertThat(list.exit).isZero();
                assertThat(list.out.lines()).contains(GROUP);

                Tool describe = consumerGroups("--describe", "--group", GROUP);
                assertThat(describe.exit).isZero();
                assertThat(describe.out)
                        .contains("CURRENT-OFFSET", "LAG", "CONSUMER-ID", "/127.0.0.1")
                        .contains("admin-it-consumer");
                assertThat(
                                describe.out
                                        .lines()
                                        .filter(l -> l.startsWith(GROUP + " "))
                                        .filter(l -> l.contains(TOPIC)))
                        .as("both partitions, committed at the end: lag 0")
                        .hasSize(2)
                        .allMatch(l -> l.matches(".*\\s5\\s+5\\s+0\\s.*"));

                Throwable subscribed =
                        cause(
                                () -> {
                                    try {
                                        admin.deleteConsumerGroupOffsets(
                                                        GROUP, Set.of(new TopicPartition(TOPIC, 0)))
                                                .all()
                                                .get();
                                    } catch (Exception e) {
                                        throw new RuntimeException(e);
                                    }
                                });
                assertThat(subscribed).isInstanceOf(GroupSubscribedToTopicException.class);
                Tool refused =
                        consumerGroups(
                                "--delete-offsets", "--group", GROUP, "--topic", TOPIC + ":0");
                assertThat(refused.out)
                        .as("the tool shows the partition refused")
                        .containsPattern(
                                TOPIC + "\\s+0\\s+Error: .*GroupSubscribedToTopicException");
                admin.deleteConsumerGroupOffsets(GROUP, Set.of(new TopicPartition(OTHER, 0)))
                        .all()
                        .get();
                assertThat(
                                admin.listConsumerGroupOffsets(GROUP)
                                        .partitionsToOffsetAndMetadata()
                                        .get())
                        .containsOnlyKeys(
                                new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));

                Throwable nonEmpty =
                        cause(
                                () -> {
                                    try {
                                        admin.deleteConsumerGroups(List.of(GROUP)).all().get();
                                    } catch (Exception e) {
                                        throw new RuntimeException(e);
                                    }
                                });
                assertThat(nonEmpty).isInstanceOf(GroupNotEmptyException.class);
                Tool deleteActive = consumerGroups("--delete", "--group", GROUP);
                // Kafka 4.4's tool reports a failed deletion in its output (its exit code stays 0).
                assertThat(deleteActive.out)
                        .contains(
                                "Group '" + GROUP + "' could not be deleted due to:",
                                "GroupNotEmptyException");
            }

            Await.until(
                    "the group is Empty once its member left",
                    () ->
                            admin.describeConsumerGroups(List.of(GROUP))
                                            .all()
                                            .get()
                                            .get(GROUP)
                                            .groupState()
                                    == GroupState.EMPTY,
                    Duration.ofSeconds(30));
            Tool emptyDescribe = consumerGroups("--describe", "--group", GROUP);
            assertThat(emptyDescribe.exit).isZero();
            assertThat(emptyDescribe.out).contains("has no active members");

            Tool deleteOffsets =
                    consumerGroups("--delete-offsets", "--group", GROUP, "--topic", TOPIC + ":0");
            assertThat(deleteOffsets.exit).isZero();
            assertThat(deleteOffsets.out).contains(TOPIC).doesNotContain("Error");
            assertThat(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get())
                    .containsOnlyKeys(new TopicPartition(TOPIC, 1));

            Tool delete = consumerGroups("--delete", "--group", GROUP);
            assertThat(delete.exit).isZero();
            assertThat(delete.out)
                    .contains(
                            "Deletion of requested consumer groups ('"
                                    + GROUP
                                    + "') was successful.");
            assertThat(admin.listGroups().all().get())
                    .extracting(GroupListing::groupId)
                    .doesNotContain(GROUP);
        }

        server.restart();
        try (Admin admin = Clients.admin(server.bootstrap())) {
            assertThat(admin.listGroups().all().get())
                    .as("deleted durably")
                    .extracting(GroupListing::groupId)
                    .doesNotContain(GROUP);
            assertThat(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get())
                    .isEmpty();
            Throwable gone =
                    cause(
                            () -> {
                                try {
                                    admin.deleteConsumerGroups(List.of(GROUP)).all().get();
                                } catch (Exception e) {
                                    throw new RuntimeException(e);
                                }
                            });
            assertThat(gone).isInstanceOf(GroupIdNotFoundException.class);
        }
    }
}

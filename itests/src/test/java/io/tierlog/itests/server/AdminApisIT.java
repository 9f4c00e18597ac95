package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.testing.KafkaCli;
import io.tierlog.itests.testing.KafkaCli.Run;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin APIs as an operator uses them: Kafka 4.4's {@code kafka-topics --alter --partitions}
 * (exit code, describe after, new partitions that take records and survive a restart, refused
 * decreases and missing topics exiting non-zero), AdminClient {@code describeCluster} and {@code
 * describeProducers}, and {@code kafka-transactions describe-producers}.
 */
class AdminApisIT {
    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir.resolve("data"), Map.of());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Run topics(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = server.bootstrap();
        System.arraycopy(args, 0, all, 2, args.length);
        return KafkaCli.run(dir, KafkaCli.TOPICS, all);
    }

    private static String valueAt(String bootstrap, TopicPartition tp) {
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    return new String(r.value(), java.nio.charset.StandardCharsets.UTF_8);
                }
            }
            throw new AssertionError("no record in " + tp);
        }
    }

    @Test
    void kafkaTopicsAlterPartitionsAddsPartitionsThatTakeRecordsAndSurviveARestart()
            throws Exception {
        Clients.createTopic(server.bootstrap(), "grow", 1);
        Run alter = topics("--alter", "--topic", "grow", "--partitions", "3");
        assertThat(alter.exit()).as(alter.out()).isZero();
        Run describe = topics("--describe", "--topic", "grow");
        assertThat(describe.exit()).isZero();
        assertThat(describe.out()).contains("PartitionCount: 3").contains("Partition: 2");

        TopicPartition newest = new TopicPartition("grow", 2);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            p.send(new ProducerRecord<>("grow", 2, null, "in-new".getBytes())).get();
        }
        assertThat(valueAt(server.bootstrap(), newest)).isEqualTo("in-new");

        server.restart();
        try (Admin a = Clients.admin(server.bootstrap())) {
            assertThat(
                            a.describeTopics(List.of("grow"))
                                    .allTopicNames()
                                    .get()
                                    .get("grow")
                                    .partitions())
                    .hasSize(3);
        }
        assertThat(valueAt(server.bootstrap(), newest)).isEqualTo("in-new");
    }

    @Test
    void kafkaTopicsRefusesADecreaseAndAMissingTopicWithANonZeroExit() throws Exception {
        Clients.createTopic(server.bootstrap(), "fixed", 2);
        Run decrease = topics("--alter", "--topic", "fixed", "--partitions", "1");
        assertThat(decrease.exit()).isNotZero();
        assertThat(decrease.out())
                .contains("InvalidPartitionsException")
                .contains(
                        "The topic fixed currently has 2 partition(s); 1 would not be an increase.");
        Run same = topics("--alter", "--topic", "fixed", "--partitions", "2");
        assertThat(same.exit()).isNotZero();
        assertThat(same.out()).contains("Topic already has 2 partition(s).");
        Run missing = topics("--alter", "--topic", "nope", "--partitions", "4");
        assertThat(missing.exit()).isNotZero();
        assertThat(missing.out()).contains("nope");
        try (Admin a = Clients.admin(server.bootstrap())) {
            assertThat(a.listTopics().names().get()).doesNotContain("nope");
        }
    }

    @Test
    void describeClusterAndDescribeProducersThroughTheAdminClientAndKafkaTransactions()
            throws Exception {
        Clients.createTopic(server.bootstrap(), "prod", 1);
        // recent timestamps: producer state expires by its last record timestamp, as in Kafka
        long base = System.currentTimeMillis();
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            for (int i = 0; i < 10; i++) {
                p.send(new ProducerRecord<>("prod", 0, base + i, null, new byte[8]));
            }
            p.flush();
        }
        TopicPartition tp = new TopicPartition("prod", 0);
        long producerId;
        try (Admin a = Clients.admin(server.bootstrap())) {
            DescribeClusterResult c = a.describeCluster();
            Node node = c.nodes().get().iterator().next();
            assertThat(c.nodes().get()).hasSize(1);
            assertThat(c.controller().get().id()).isEqualTo(node.id());
            assertThat(node.port()).isEqualTo(server.port());
            assertThat(c.clusterId().get()).isNotBlank();

            List<ProducerState> producers =
                    a.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers();
            assertThat(producers)
                    .singleElement()
                    .satisfies(
                            s -> {
                                assertThat(s.producerEpoch()).isZero();
                                assertThat(s.lastSequence()).isEqualTo(9);
                                assertThat(s.lastTimestamp()).isEqualTo(base + 9);
                                assertThat(s.coordinatorEpoch()).isEmpty();
                                assertThat(s.currentTransactionStartOffset()).isEmpty();
                            });
            producerId = producers.get(0).producerId();
        }
        Run tool =
                KafkaCli.run(
                        dir,
                        KafkaCli.TRANSACTIONS,
                        "--bootstrap-server",
                        server.bootstrap(),
                        "describe-producers",
                        "--topic",
                        "prod",
                        "--partition",
                        "0");
        assertThat(tool.exit()).isZero();
        assertThat(tool.out()).contains("ProducerId").contains(Long.toString(producerId));
    }

    @Test
    void offsetForLeaderEpochOverTheWireAndAConsumerSeekingNeedsNoEpochValidation()
            throws Exception {
        Clients.createTopic(server.bootstrap(), "epochs", 1);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            for (int i = 0; i < 5; i++) {
                p.send(new ProducerRecord<>("epochs", 0, null, ("r" + i).getBytes())).get();
            }
        }
        try (RawClient c = new RawClient(server.port())) {
            assertThat(endOffset(c, 0)).containsExactly(0L, 5L);
            assertThat(endOffset(c, 3)).as("unknown epoch").containsExactly(-1L, -1L);
        }
        TopicPartition tp = new TopicPartition("epochs", 0);
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            c.assign(List.of(tp));
            c.seek(tp, 3);
            List<Long> offsets = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (offsets.size() < 2 && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> offsets.add(r.offset()));
            }
            assertThat(offsets).containsExactly(3L, 4L);
        }
    }

    /** Leader epoch and end offset OffsetForLeaderEpoch v4 answers for {@code epoch}. */
    private static long[] endOffset(RawClient c, int epoch) throws Exception {
        org.apache.kafka.common.message.OffsetForLeaderEpochRequestData
                        .OffsetForLeaderTopicCollection
                topics =
                        new org.apache.kafka.common.message.OffsetForLeaderEpochRequestData
                                .OffsetForLeaderTopicCollection();
        topics.add(
                new org.apache.kafka.common.message.OffsetForLeaderEpochRequestData
                                .OffsetForLeaderTopic()
                        .setTopic("epochs")
                        .setPartitions(
                                List.of(
                                        new org.apache.kafka.common.message
                                                        .OffsetForLeaderEpochRequestData
                                                        .OffsetForLeaderPartition()
                                                .setPartition(0)
                                                .setCurrentLeaderEpoch(-1)
                                                .setLeaderEpoch(epoch))));
        org.apache.kafka.common.message.OffsetForLeaderEpochResponseData r =
                c.call(
                        org.apache.kafka.common.protocol.ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                        (short) 4,
                        new org.apache.kafka.common.message.OffsetForLeaderEpochRequestData()
                                .setReplicaId(-1)
                                .setTopics(topics),
                        new org.apache.kafka.common.message.OffsetForLeaderEpochResponseData());
        var e = r.topics().iterator().next().partitions().get(0);
        assertThat(e.errorCode()).isZero();
        return new long[] {e.leaderEpoch(), e.endOffset()};
    }
}

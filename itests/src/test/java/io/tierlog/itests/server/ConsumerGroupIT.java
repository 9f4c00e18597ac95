package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.common.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups (classic protocol) with stock clients: two Java consumers share a topic's
 * partitions through JoinGroup/SyncGroup and commit offsets that survive a server restart; kcat's
 * balanced consumer (-G) reads a topic through a group.
 */
class ConsumerGroupIT {
    @TempDir Path dir;
    private ServerHarness server;
    private static final int N = 20_000;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir, Map.of());
        Clients.createTopic(server.bootstrap(), "grouped", 4);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "lz4")) {
            for (int i = 0; i < N; i++) {
                p.send(new ProducerRecord<>("grouped", Clients.key("g", i), Clients.value("g", i)));
            }
            p.flush();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private KafkaConsumer<byte[], byte[]> member(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Test
    void twoJavaConsumersShareTheTopicAndCommittedOffsetsSurviveARestart() throws Exception {
        BitSet seen = new BitSet(N);
        Set<Integer> partitionsA = new HashSet<>();
        Set<Integer> partitionsB = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> a = member("g1");
                KafkaConsumer<byte[], byte[]> b = member("g1")) {
            a.subscribe(List.of("grouped"));
            b.subscribe(List.of("grouped"));
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (seen.cardinality() < N && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : a.poll(Duration.ofMillis(100))) {
                    seen.set(Clients.index(r.key()));
                    partitionsA.add(r.partition());
                }
                commit(a);
                for (ConsumerRecord<byte[], byte[]> r : b.poll(Duration.ofMillis(100))) {
                    seen.set(Clients.index(r.key()));
                    partitionsB.add(r.partition());
                }
                commit(b);
            }
            assertThat(seen.cardinality()).isEqualTo(N);
            // Both members got work once the group settled on two members.
            assertThat(a.assignment()).isNotEmpty();
            assertThat(b.assignment()).isNotEmpty();
            Set<TopicPartition> union = new HashSet<>(a.assignment());
            union.addAll(b.assignment());
            assertThat(union).hasSize(4);
            assertThat(partitionsA).isNotEmpty();
            assertThat(partitionsB).isNotEmpty();
            // Every partition's position was committed while both were members.
            commitUntilDone(a);
            commitUntilDone(b);
        }
        server.restart();
        try (KafkaConsumer<byte[], byte[]> c = member("g1")) {
            List<TopicPartition> tps = Clients.partitions("grouped", 4);
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(tps));
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            for (TopicPartition tp : tps) {
                assertThat(committed.get(tp)).as("committed %s", tp).isNotNull();
                assertThat(committed.get(tp).offset()).isEqualTo(end.get(tp));
            }
        }
    }

    /** As with Kafka, a commit during a rebalance fails retriably; the next poll rejoins. */
    private static void commit(KafkaConsumer<byte[], byte[]> c) {
        try {
            c.commitSync();
        } catch (org.apache.kafka.common.errors.RebalanceInProgressException
                | org.apache.kafka.clients.consumer.CommitFailedException e) {
            // retried after the next poll
        }
    }

    private static void commitUntilDone(KafkaConsumer<byte[], byte[]> c) {
        Await.until(
                "a commit outside a rebalance",
                () -> {
                    try {
                        c.commitSync();
                        return true;
                    } catch (org.apache.kafka.common.errors.RebalanceInProgressException
                            | org.apache.kafka.clients.consumer.CommitFailedException e) {
                        c.poll(Duration.ofMillis(100));
                        return false;
                    }
                },
                Duration.ofSeconds(60));
    }

    @Test
    void kafkaPythonGroupConsumerReadsTheTopicAndCommits() throws Exception {
        assumeTrue(Proc.available("/usr/bin/python3"), "no /usr/bin/python3");
        String script =
                String.join(
                        "\n",
                        "import sys, time",
                        "from kafka import KafkaConsumer",
                        "c = KafkaConsumer('grouped', bootstrap_servers=sys.argv[1], group_id='py',",
                        "                  auto_offset_reset='earliest', enable_auto_commit=False)",
                        "seen = set()",
                        "deadline = time.time() + 90",
                        "while len(seen) < int(sys.argv[2]) and time.time() < deadline:",
                        "    for msgs in c.poll(timeout_ms=500).values():",
                        "        for m in msgs:",
                        "            seen.add(m.key)",
                        "c.commit()",
                        "c.close()",
                        "print(len(seen))");
        Proc.Result probe =
                Proc.run(
                        List.of("/usr/bin/python3", "-c", "import kafka, lz4"),
                        null,
                        Duration.ofSeconds(30));
        assumeTrue(probe.exit() == 0, "kafka-python or python3-lz4 missing: " + probe.stderr());
        Proc.Result r =
                Proc.run(
                        List.of(
                                "/usr/bin/python3",
                                "-c",
                                script,
                                server.bootstrap(),
                                Integer.toString(N)),
                        null,
                        Duration.ofMinutes(2));
        assertThat(r.exit()).as(r.stderr()).isZero();
        assertThat(r.stdout().trim()).isEqualTo(Integer.toString(N));
        try (KafkaConsumer<byte[], byte[]> c = member("py")) {
            List<TopicPartition> tps = Clients.partitions("grouped", 4);
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(tps));
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            for (TopicPartition tp : tps) {
                assertThat(committed.get(tp).offset()).isEqualTo(end.get(tp));
            }
        }
    }

    @Test
    void kcatBalancedConsumerReadsTheTopicThroughAGroup() throws Exception {
        assumeTrue(Proc.available("kcat"), "kcat is not installed (apt-get install kcat)");
        Proc.Result r =
                Proc.kcatToEnd(
                        server.bootstrap(),
                        "%k\\n",
                        Duration.ofMinutes(2),
                        "-G",
                        "kcat-group",
                        "grouped");
        assertThat(r.exit()).as(r.stderr()).isZero();
        BitSet seen = new BitSet(N);
        r.stdout().lines().forEach(l -> seen.set(Integer.parseInt(l.substring(2))));
        assertThat(seen.cardinality()).isEqualTo(N);
    }
}

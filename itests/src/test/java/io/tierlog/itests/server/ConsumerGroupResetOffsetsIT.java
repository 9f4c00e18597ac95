package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.engine.LogOffsets;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka 4.4's {@code kafka-consumer-groups --reset-offsets}, every option with {@code
 * --execute} (and {@code --dry-run}, {@code --export}), for {@code --topic t}, {@code t:p} and
 * {@code --all-topics}, on a topic whose partition 0 starts in the cold tier; after each run the
 * committed offsets are read back with AdminClient. Then {@code --describe} (offsets, log-end
 * offsets and lag across both tiers), {@code --describe --state} and {@code --members --verbose}
 * with an active member, whose group the tool refuses to reset, as Kafka does.
 */
class ConsumerGroupResetOffsetsIT {
    private static final String TOPIC = "reset";
    private static final String GROUP = "rg";
    private static final int N = 20_000;
    private static final int N1 = 100;
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @TempDir Path dir;
    private TierlogServer server;
    private String bootstrap;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        Map<String, String> s = TieredServers.settings(dir.resolve("data"), 0, 64 << 10);
        s.put("local.retention.bytes", Integer.toString(128 << 10));
        s.put("offload.target.object.bytes", Integer.toString(256 << 10));
        server = TierlogServer.start(Config.of(s));
        bootstrap = "127.0.0.1:" + server.port();
        admin = Clients.admin(bootstrap);
        admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
        produce(0, N);
        produce(1, N1);
        TieredWaits.awaitOffloaded(server, TOPIC, 192 << 10, Duration.ofMinutes(3));
        LogOffsets o = server.engine().offsets(P0);
        assertThat(o.logStartOffset()).isZero();
        assertThat(o.hotLogStartOffset())
                .as("the earliest offsets, and the one at the test's datetime, are cold only")
                .isGreaterThan(2_500);
    }

    @AfterEach
    void stop() {
        admin.close();
        server.close();
    }

    /** Record i of a partition has timestamp BASE_TS + i. */
    private void produce(int partition, int n) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        List<Future<?>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < n; i++) {
                byte[] v =
                        ("value-" + i + "-padding-to-fill-segments-quickly-" + (i * 7919))
                                .getBytes(StandardCharsets.UTF_8);
                acks.add(
                        producer.send(
                                new ProducerRecord<>(
                                        TOPIC, partition, TieredServers.BASE_TS + i, null, v)));
            }
        }
        for (Future<?> f : acks) {
            f.get();
        }
    }

    private ConsumerGroupsTool.Run tool(String... args) {
        return ConsumerGroupsTool.run(bootstrap, args);
    }

    /** Runs a --reset-offsets with {@code args} and --execute; returns the committed offsets. */
    private Map<TopicPartition, Long> reset(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--reset-offsets", "--group", GROUP));
        all.addAll(List.of(args));
        all.add("--execute");
        ConsumerGroupsTool.Run r = tool(all.toArray(String[]::new));
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out()).contains("NEW-OFFSET").doesNotContain("Error");
        return committed();
    }

    private Map<TopicPartition, Long> committed() throws Exception {
        Map<TopicPartition, Long> out = new java.util.HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e :
                admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get()
                        .entrySet()) {
            out.put(e.getKey(), e.getValue().offset());
        }
        return out;
    }

    @Test
    void everyResetOptionCommitsWhatKafkaWouldAcrossBothTiers() throws Exception {
        admin.alterConsumerGroupOffsets(
                        GROUP,
                        Map.of(P0, new OffsetAndMetadata(7_000), P1, new OffsetAndMetadata(50)))
                .all()
                .get();

        ConsumerGroupsTool.Run describe = tool("--describe", "--group", GROUP);
        assertThat(describe.exit()).isZero();
        assertThat(describe.out())
                .contains("has no active members")
                .containsPattern("CURRENT-OFFSET\\s+LOG-END-OFFSET\\s+LAG")
                .containsPattern(GROUP + "\\s+" + TOPIC + "\\s+0\\s+7000\\s+20000\\s+13000\\s")
                .containsPattern(GROUP + "\\s+" + TOPIC + "\\s+1\\s+50\\s+100\\s+50\\s");

        ConsumerGroupsTool.Run dry =
                tool(
                        "--reset-offsets",
                        "--group",
                        GROUP,
                        "--topic",
                        TOPIC,
                        "--to-earliest",
                        "--dry-run");
        assertThat(dry.exit()).isZero();
        assertThat(dry.out())
                .containsPattern(GROUP + "\\s+" + TOPIC + "\\s+0\\s+0\\s")
                .containsPattern(GROUP + "\\s+" + TOPIC + "\\s+1\\s+0\\s");
        assertThat(committed())
                .as("a dry run commits nothing")
                .isEqualTo(Map.of(P0, 7_000L, P1, 50L));

        assertThat(reset("--all-topics", "--to-earliest")).isEqualTo(Map.of(P0, 0L, P1, 0L));
        assertThat(reset("--topic", TOPIC + ":0", "--to-latest"))
                .isEqualTo(Map.of(P0, (long) N, P1, 0L));
        assertThat(reset("--topic", TOPIC, "--to-offset", "5000"))
                .as("beyond partition 1's end: its log-end offset")
                .isEqualTo(Map.of(P0, 5_000L, P1, (long) N1));
        assertThat(reset("--topic", TOPIC + ":0", "--shift-by", "-1500"))
                .isEqualTo(Map.of(P0, 3_500L, P1, (long) N1));
        assertThat(reset("--topic", TOPIC + ":1", "--shift-by", "-1000000"))
                .as("before the start: the earliest offset")
                .isEqualTo(Map.of(P0, 3_500L, P1, 0L));
        assertThat(reset("--all-topics", "--to-current")).isEqualTo(Map.of(P0, 3_500L, P1, 0L));
        // BASE_TS + 2500 ms; partition 1 has no record that late: its log-end offset.
        assertThat(reset("--topic", TOPIC, "--to-datetime", "2023-11-14T22:13:22.500"))
                .isEqualTo(Map.of(P0, 2_500L, P1, (long) N1));
        assertThat(reset("--topic", TOPIC + ":0,1", "--by-duration", "P10000D"))
                .as("a duration before every record: the earliest offsets, in the cold tier")
                .isEqualTo(Map.of(P0, 0L, P1, 0L));
        Path csv = dir.resolve("offsets.csv");
        Files.writeString(csv, TOPIC + ",0,1234\n" + TOPIC + ",1,7\n");
        assertThat(reset("--from-file", csv.toString())).isEqualTo(Map.of(P0, 1_234L, P1, 7L));

        ConsumerGroupsTool.Run export =
                tool(
                        "--reset-offsets",
                        "--group",
                        GROUP,
                        "--topic",
                        TOPIC,
                        "--to-offset",
                        "10",
                        "--dry-run",
                        "--export");
        assertThat(export.exit()).isZero();
        assertThat(export.out().lines()).contains(TOPIC + ",0,10", TOPIC + ",1,10");
        assertThat(committed()).isEqualTo(Map.of(P0, 1_234L, P1, 7L));

        try (KafkaConsumer<byte[], byte[]> member = activeMember()) {
            ConsumerGroupsTool.Run refused =
                    tool(
                            "--reset-offsets",
                            "--group",
                            GROUP,
                            "--all-topics",
                            "--to-earliest",
                            "--execute");
            assertThat(refused.out())
                    .contains(
                            "Assignments can only be reset if the group '"
                                    + GROUP
                                    + "' is inactive, but the current state is Stable");
            assertThat(committed()).as("nothing reset").isEqualTo(Map.of(P0, 1_234L, P1, 7L));

            ConsumerGroupsTool.Run active = tool("--describe", "--group", GROUP);
            assertThat(active.exit()).isZero();
            assertThat(active.out())
                    .containsPattern(
                            GROUP
                                    + "\\s+"
                                    + TOPIC
                                    + "\\s+0\\s+1234\\s+20000\\s+18766\\s+reset-it-\\S+\\s+/127.0.0.1\\s+reset-it")
                    .containsPattern(GROUP + "\\s+" + TOPIC + "\\s+1\\s+7\\s+100\\s+93\\s");
            ConsumerGroupsTool.Run state = tool("--describe", "--group", GROUP, "--state");
            assertThat(state.exit()).isZero();
            assertThat(state.out())
                    .containsPattern("ASSIGNMENT-STRATEGY\\s+STATE\\s+#MEMBERS")
                    .containsPattern(GROUP + "\\s+\\S+\\s+\\(\\d+\\)\\s+range\\s+Stable\\s+1");
            ConsumerGroupsTool.Run members =
                    tool("--describe", "--group", GROUP, "--members", "--verbose");
            assertThat(members.exit()).isZero();
            assertThat(members.out())
                    .containsPattern("#PARTITIONS\\s+CURRENT-EPOCH\\s+CURRENT-ASSIGNMENT")
                    .containsPattern(
                            "reset-it-\\S+\\s+/127.0.0.1\\s+reset-it\\s+2\\s+-\\s+"
                                    + TOPIC
                                    + ":0,1\\s");
        }
    }

    private KafkaConsumer<byte[], byte[]> activeMember() {
        KafkaConsumer<byte[], byte[]> c =
                TieredServers.consumer(
                        bootstrap,
                        Map.of(
                                ConsumerConfig.GROUP_ID_CONFIG,
                                GROUP,
                                ConsumerConfig.CLIENT_ID_CONFIG,
                                "reset-it",
                                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                                1));
        c.subscribe(List.of(TOPIC));
        Await.until(
                "the member holds both partitions",
                () -> {
                    c.poll(Duration.ofMillis(100));
                    return c.assignment().size() == 2;
                },
                Duration.ofMinutes(1));
        return c;
    }
}

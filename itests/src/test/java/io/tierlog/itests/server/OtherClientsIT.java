package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierlog.itests.faults.LogCapture;
import io.tierlog.itests.testing.TieredWaits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Independent client implementations against tierlog: kcat (librdkafka 2.0.2) and kafka-python
 * 2.0.2 each produce with every codec and consume, and read what the Java client wrote; kcat also
 * consumes in a balanced group ({@code -G}) and kafka-python runs its admin client (groups, group
 * offsets, topic configs). Skipped with a reason when the tool is not installed ({@code .ci/run}
 * installs both). kafkajs has its own test, {@link KafkajsIT}.
 */
class OtherClientsIT {
    private static final String PYTHON = "/usr/bin/python3";
    private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
    private static final int JAVA_COUNT = 500;

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir.resolve("data"), Map.of());
        Clients.createTopic(server.bootstrap(), "from-java", 1);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "zstd")) {
            for (int i = 0; i < JAVA_COUNT; i++) {
                p.send(
                        new ProducerRecord<>(
                                "from-java",
                                0,
                                Clients.BASE_TS + i,
                                Clients.key("j", i),
                                Clients.value("j", i),
                                List.of(
                                        new RecordHeader(
                                                "i",
                                                Integer.toString(i)
                                                        .getBytes(StandardCharsets.UTF_8)))));
            }
            p.flush();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String javaLine(int i) {
        return i
                + "\t"
                + new String(Clients.key("j", i))
                + "\t"
                + new String(Clients.value("j", i))
                + "\t"
                + (Clients.BASE_TS + i);
    }

    @Test
    void kcatProducesWithEveryCodecConsumesAndReadsWhatJavaWrote() throws Exception {
        assumeTrue(Proc.available("kcat"), "kcat is not installed (apt-get install kcat)");
        String b = server.bootstrap();
        Proc.Result java =
                Proc.kcatToEnd(
                        b,
                        "%o\\t%k\\t%s\\t%T\\t%h\\n",
                        Duration.ofSeconds(60),
                        "-C",
                        "-t",
                        "from-java",
                        "-p",
                        "0");
        assertThat(java.exit()).as(java.stderr()).isZero();
        List<String> lines = java.stdout().lines().toList();
        assertThat(lines).hasSize(JAVA_COUNT);
        for (int i = 0; i < JAVA_COUNT; i++) {
            assertThat(lines.get(i)).isEqualTo(javaLine(i) + "\ti=" + i);
        }

        List<String> sent = new ArrayList<>();
        for (String codec : CODECS) {
            StringBuilder in = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                String kv = codec + ":" + i + "\tkcat-" + codec + "-" + i;
                in.append(kv).append('\n');
                sent.add(kv);
            }
            Proc.Result r =
                    Proc.run(
                            List.of(
                                    "kcat",
                                    "-P",
                                    "-b",
                                    b,
                                    "-t",
                                    "from-kcat",
                                    "-p",
                                    "0",
                                    "-K",
                                    "\t",
                                    "-z",
                                    codec,
                                    "-H",
                                    "src=kcat",
                                    "-X",
                                    "enable.idempotence=true",
                                    "-X",
                                    "linger.ms=5"),
                            in.toString(),
                            Duration.ofSeconds(60));
            assertThat(r.exit()).as(codec + ": " + r.stderr()).isZero();
        }
        Proc.Result back =
                Proc.kcatToEnd(
                        b,
                        "%k\\t%s\\t%h\\n",
                        Duration.ofSeconds(60),
                        "-C",
                        "-t",
                        "from-kcat",
                        "-p",
                        "0");
        assertThat(back.exit()).as(back.stderr()).isZero();
        List<String> expected = sent.stream().map(s -> s + "\tsrc=kcat").toList();
        assertThat(back.stdout().lines().toList()).isEqualTo(expected);
        assertThat(javaReads("from-kcat", sent.size())).isEqualTo(sent);
    }

    @Test
    void kafkaPythonProducesWithEveryCodecConsumesAndReadsWhatJavaWrote() throws Exception {
        assumeTrue(Proc.available(PYTHON), "no " + PYTHON);
        Proc.Result probe =
                Proc.run(
                        List.of(PYTHON, "-c", "import kafka, lz4, snappy, zstandard"),
                        null,
                        Duration.ofSeconds(30));
        assumeTrue(
                probe.exit() == 0,
                "kafka-python or its codecs are missing (apt-get install python3-kafka"
                        + " python3-lz4 python3-snappy python3-zstandard): "
                        + probe.stderr());
        Path script = dir.resolve("kafka_python_roundtrip.py");
        try (var in = getClass().getResourceAsStream("/server/kafka_python_roundtrip.py")) {
            Files.copy(in, script);
        }
        int perCodec = 200;
        Proc.Result r =
                Proc.run(
                        List.of(
                                PYTHON,
                                script.toString(),
                                server.bootstrap(),
                                "from-python",
                                "from-java",
                                Integer.toString(JAVA_COUNT),
                                Integer.toString(perCodec)),
                        null,
                        Duration.ofMinutes(2));
        assertThat(r.exit()).as(r.stderr()).isZero();
        List<String> sent = new ArrayList<>();
        List<String> own = new ArrayList<>();
        List<String> java = new ArrayList<>();
        for (String line : r.stdout().lines().toList()) {
            String[] f = line.split("\t", 2);
            switch (f[0]) {
                case "sent" -> sent.add(f[1]);
                case "own" -> own.add(f[1]);
                case "java" -> java.add(f[1]);
                default -> {}
            }
        }
        assertThat(r.stdout()).endsWith("done\n");
        assertThat(sent).hasSize(perCodec * CODECS.size());
        assertThat(own).hasSize(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            String[] f = own.get(i).split("\t", -1);
            assertThat(f[0]).isEqualTo(Integer.toString(i));
            assertThat(f[1] + "\t" + f[2]).isEqualTo(sent.get(i));
            assertThat(f[4])
                    .isEqualTo(
                            "src="
                                    + "python"
                                            .chars()
                                            .mapToObj(c -> String.format("%02x", c))
                                            .reduce("", String::concat));
        }
        assertThat(java).hasSize(JAVA_COUNT);
        for (int i = 0; i < JAVA_COUNT; i++) {
            String hex =
                    Integer.toString(i)
                            .chars()
                            .mapToObj(c -> String.format("%02x", c))
                            .reduce("", String::concat);
            assertThat(java.get(i)).isEqualTo(javaLine(i) + "\ti=" + hex);
        }
        assertThat(javaReads("from-python", sent.size())).isEqualTo(sent);
    }

    @Test
    void kcatBalancedGroupReadsEveryPartitionOnceAndResumesFromItsCommitsAfterARestart()
            throws Exception {
        assumeTrue(Proc.available("kcat"), "kcat is not installed (apt-get install kcat)");
        String b = server.bootstrap();
        String topic = "kcat-group";
        Clients.createTopic(b, topic, 3);
        List<String> first = javaProduce(topic, "a", 90);
        Proc.Result r1 = kcatGroup(b, "kcat-g", topic);
        assertThat(r1.exit()).as(r1.stderr()).isZero();
        assertThat(r1.stdout().lines().sorted().toList())
                .isEqualTo(first.stream().sorted().toList());

        try (Admin admin = Clients.admin(b)) {
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets("kcat-g")
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, Long> ends =
                    new TreeMap<>(java.util.Comparator.comparing(TopicPartition::partition));
            for (var e :
                    admin.listOffsets(
                                    Map.of(
                                            new TopicPartition(topic, 0), OffsetSpec.latest(),
                                            new TopicPartition(topic, 1), OffsetSpec.latest(),
                                            new TopicPartition(topic, 2), OffsetSpec.latest()))
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .entrySet()) {
                ends.put(e.getKey(), e.getValue().offset());
            }
            assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(90);
            for (var e : ends.entrySet()) {
                assertThat(committed.get(e.getKey()))
                        .as("committed offset of " + e.getKey())
                        .isNotNull()
                        .extracting(OffsetAndMetadata::offset)
                        .isEqualTo(e.getValue());
            }
            ConsumerGroupDescription g =
                    admin.describeConsumerGroups(List.of("kcat-g"))
                            .describedGroups()
                            .get("kcat-g")
                            .get(30, TimeUnit.SECONDS);
            assertThat(g.groupState().toString()).isEqualTo("Empty");
        }

        // after a server restart, a new member starts where the group committed: only the new
        // records
        server.restart();
        List<String> second = javaProduce(topic, "b", 30);
        Proc.Result r2 = kcatGroup(b, "kcat-g", topic);
        assertThat(r2.exit()).as(r2.stderr()).isZero();
        assertThat(r2.stdout().lines().sorted().toList())
                .isEqualTo(second.stream().sorted().toList());
    }

    /** kcat in a balanced consumer group until the end of every assigned partition. */
    private static Proc.Result kcatGroup(String bootstrap, String group, String topic)
            throws Exception {
        return Proc.run(
                List.of(
                        "kcat",
                        "-b",
                        bootstrap,
                        "-G",
                        group,
                        "-X",
                        "auto.offset.reset=earliest",
                        "-e",
                        "-q",
                        "-f",
                        "%k\\t%s\\n",
                        topic),
                null,
                Duration.ofSeconds(90));
    }

    /** Produces {@code n} records spread over the partitions; returns their "key\tvalue". */
    private List<String> javaProduce(String topic, String tag, int n) {
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "lz4")) {
            for (int i = 0; i < n; i++) {
                p.send(
                        new ProducerRecord<>(
                                topic, i % 3, Clients.key(tag, i), Clients.value(tag, i)));
                sent.add(
                        new String(Clients.key(tag, i)) + "\t" + new String(Clients.value(tag, i)));
            }
            p.flush();
        }
        return sent;
    }

    @Test
    void kafkaPythonAdminListsAndDescribesGroupsOffsetsAndConfigs() throws Exception {
        JsonNode out;
        try (LogCapture logs = LogCapture.start()) {
            out = kafkaPythonAdmin("py-admin", "all");
            // the refused config is an operator-visible client mistake, logged by the server
            assertThat(
                            logs.lines(
                                    "ResponseErrorLog",
                                    "CreateTopics",
                                    "'kafka-python-admin'",
                                    "INVALID_CONFIG"))
                    .hasSize(1);
        }
        assertThat(out.at("/create/ok").asBoolean()).as(out.get("create").toString()).isTrue();
        assertThat(out.at("/create/value/0/1").asInt()).isZero();
        assertThat(out.at("/createBadConfig/ok").asBoolean()).isFalse();
        assertThat(out.at("/createBadConfig/error").asText()).contains("error_code=40");
        assertThat(out.get("consumed").asInt()).isEqualTo(40);

        assertThat(out.get("list").toString()).contains("[\"py-group\",\"consumer\"]");
        JsonNode g = out.at("/describe/0");
        assertThat(g.get("group").asText()).isEqualTo("py-group");
        assertThat(g.get("state").asText()).isEqualTo("Stable");
        assertThat(g.get("protocol_type").asText()).isEqualTo("consumer");
        assertThat(g.get("protocol").asText()).isEqualTo("range");
        assertThat(g.get("members")).hasSize(1);
        assertThat(g.at("/members/0/client_id").asText()).isEqualTo("kafka-python-consumer");
        assertThat(g.at("/members/0/partitions").toString()).isEqualTo("[0,1]");
        assertThat(out.get("offsets").toString())
                .isEqualTo("[[\"py-admin\",0,20],[\"py-admin\",1,20]]");

        assertThat(out.at("/describeConfigs/error_code").asInt()).isZero();
        assertThat(out.at("/describeConfigs/configs/segment.bytes").asText()).isEqualTo("1048576");
    }

    @Test
    void kafkaPythonCreatesATopicWithRetentionMs() throws Exception {
        JsonNode out = kafkaPythonAdmin("py-retention", "all");
        assertThat(out.at("/createRetention/ok").asBoolean())
                .as(out.get("createRetention").toString())
                .isTrue();
        assertThat(out.at("/createRetention/value/0/1").asInt()).isZero();
    }

    @Test
    void kafkaPythonAlterConfigsChangesRetentionMs() throws Exception {
        kafkaPythonAdmin("py-alter", "all");
        JsonNode out = kafkaPythonAdmin("py-alter", "alter");
        assertThat(out.at("/alter/ok").asBoolean()).as(out.get("alter").toString()).isTrue();
        assertThat(out.at("/alter/value/0/0").asInt()).isZero();
        assertThat(out.at("/describeConfigs/configs/retention.ms").asText()).isEqualTo("7200000");
    }

    /** Runs kafka_python_admin.py in {@code mode} on {@code topic}; its JSON output. */
    private JsonNode kafkaPythonAdmin(String topic, String mode) throws Exception {
        assumeTrue(Proc.available(PYTHON), "no " + PYTHON);
        Proc.Result probe =
                Proc.run(List.of(PYTHON, "-c", "import kafka.admin"), null, Duration.ofSeconds(30));
        assumeTrue(
                probe.exit() == 0,
                "kafka-python is missing (apt-get install python3-kafka): " + probe.stderr());
        Path script = dir.resolve("kafka_python_admin.py");
        if (!Files.exists(script)) {
            try (var in = getClass().getResourceAsStream("/server/kafka_python_admin.py")) {
                Files.copy(in, script);
            }
        }
        Proc.Result r =
                Proc.run(
                        List.of(
                                PYTHON,
                                script.toString(),
                                server.bootstrap(),
                                topic,
                                "py-group",
                                "40",
                                mode),
                        null,
                        Duration.ofMinutes(2));
        assertThat(r.exit()).as(r.stderr()).isZero();
        return new ObjectMapper().readTree(r.stdout());
    }

    /** "key\tvalue" of every record of partition 0, read with the Java consumer. */
    private List<String> javaReads(String topic, int expected) {
        List<String> out = new ArrayList<>();
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            TieredWaits.pollUntil(
                    c,
                    expected + " records of " + topic,
                    () -> out.size() >= expected,
                    Duration.ofSeconds(60),
                    r -> out.add(new String(r.key()) + "\t" + new String(r.value())));
        }
        return out;
    }
}

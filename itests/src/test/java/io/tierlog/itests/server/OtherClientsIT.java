package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.itests.testing.TieredWaits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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
 * 2.0.2 each produce with every codec and consume, and read what the Java client wrote. Skipped
 * with a reason when the tool is not installed ({@code .ci/run} installs both).
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

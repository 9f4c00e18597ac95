package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.engine.TieredLog;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic names of every length Kafka accepts (up to 249 characters) go through the whole life of a
 * topic on a tiered server with its embedded S3: create, produce, fetch (hot), offload, fetch
 * (cold), delete, restart. Before, a 241+ character name closed the connection on create and a 214+
 * character one left a {@code .deleting} marker that kept the server from starting. Every file name
 * derived from the topic (partition folders, deletion renames, metadata files, objects of the
 * embedded S3's file system) stays within 255 bytes.
 */
class BrickingInputsLongNamesIT {
    private static final long BASE_TS = 1_700_000_000_000L;
    private static final int RECORDS = 3_000;
    @TempDir Path dir;

    private Config config(int port) {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        s.put("schema.registry.listen", "");
        s.put("data.dir", dir.resolve("data").toString());
        s.put("num.network.threads", "2");
        s.put("segment.bytes", Integer.toString(64 << 10));
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "200");
        return Config.of(s);
    }

    static String name(int length, char c) {
        return (c + "-long.topic_").repeat(30).substring(0, length - 1) + c;
    }

    @Test
    void namesOf214241And249CharactersLiveThroughCreateProduceOffloadDeleteAndRestart()
            throws Exception {
        List<String> names = List.of(name(214, 'a'), name(241, 'b'), name(249, 'c'));
        TierlogServer server = TierlogServer.start(config(0));
        int port = server.port();
        String bootstrap = "127.0.0.1:" + port;
        try {
            try (Admin admin = admin(bootstrap)) {
                List<NewTopic> topics = new ArrayList<>();
                for (String n : names) {
                    topics.add(new NewTopic(n, 2, (short) 1));
                }
                admin.createTopics(topics).all().get();
                assertThat(admin.listTopics().names().get()).containsAll(names);
            }
            produce(bootstrap, names);
            for (String n : names) {
                assertThat(readAll(bootstrap, n))
                        .as("hot read of %s", n.length())
                        .isEqualTo(2 * RECORDS);
            }
            TieredLog tiered = server.engine();
            for (String n : names) {
                TopicPartition tp = new TopicPartition(n, 0);
                Await.until(
                        RECORDS / 2
                                + " offloaded offsets of the "
                                + n.length()
                                + "-character topic",
                        () -> tiered.offsets(tp).coldHighWatermark(),
                        hw -> hw >= RECORDS / 2,
                        Duration.ofMinutes(2));
            }
            // the cold objects are on the embedded S3's file system under names within limits
            assertEveryFileNameFits(dir.resolve("data"));
            assertThat(objectFilesOf(names.get(2))).isNotEmpty();

            server.close();
            server = TierlogServer.start(config(port));
            for (String n : names) {
                assertThat(readAll(bootstrap, n))
                        .as("read of %s after restart", n.length())
                        .isEqualTo(2 * RECORDS);
            }
            try (Admin admin = admin(bootstrap)) {
                admin.deleteTopics(names).all().get();
                assertThat(admin.listTopics().names().get()).doesNotContainAnyElementsOf(names);
            }
            assertEveryFileNameFits(dir.resolve("data"));
            server.close();
            server = TierlogServer.start(config(port));
            try (Admin admin = admin(bootstrap)) {
                assertThat(admin.listTopics().names().get()).doesNotContainAnyElementsOf(names);
            }
            for (String n : names) {
                try (Stream<Path> s = Files.list(dir.resolve("data/log"))) {
                    assertThat(s.map(p -> p.getFileName().toString()))
                            .as("partition folders of the deleted topic")
                            .noneMatch(f -> f.startsWith(n.substring(0, 40)));
                }
                Path markers = dir.resolve("data/meta/topics.deleting");
                if (Files.isDirectory(markers)) {
                    try (Stream<Path> s = Files.list(markers)) {
                        assertThat(s.map(p -> p.getFileName().toString()))
                                .as("deletion markers left behind")
                                .noneMatch(f -> f.startsWith(n.substring(0, 40)));
                    }
                }
            }
            // the server still creates and serves after all this
            try (Admin admin = admin(bootstrap)) {
                admin.createTopics(List.of(new NewTopic(names.get(2), 1, (short) 1))).all().get();
            }
        } finally {
            server.close();
        }
    }

    private List<Path> objectFilesOf(String topic) throws Exception {
        try (Stream<Path> s = Files.walk(dir.resolve("data"))) {
            return s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .filter(p -> p.toString().contains("/" + topic + "/"))
                    .toList();
        }
    }

    private static void assertEveryFileNameFits(Path root) throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            s.forEach(
                    p ->
                            assertThat(
                                            p.getFileName()
                                                    .toString()
                                                    .getBytes(StandardCharsets.UTF_8)
                                                    .length)
                                    .as("file name length of %s", p)
                                    .isLessThanOrEqualTo(255));
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return Admin.create(p);
    }

    private static void produce(String bootstrap, List<String> topics) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(p)) {
            for (String t : topics) {
                for (int part = 0; part < 2; part++) {
                    for (int i = 0; i < RECORDS; i++) {
                        prod.send(
                                new ProducerRecord<>(
                                        t,
                                        part,
                                        BASE_TS + i,
                                        ("k" + i).getBytes(StandardCharsets.UTF_8),
                                        ("v" + i + "-" + "x".repeat(60))
                                                .getBytes(StandardCharsets.UTF_8)));
                    }
                }
            }
            prod.flush();
        }
    }

    /** Reads both partitions from offset 0; checks every offset is there exactly once. */
    private static int readAll(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        int[] count = {0};
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps =
                    List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            c.assign(tps);
            c.seekToBeginning(tps);
            long[] next = new long[2];
            TieredWaits.pollUntil(
                    c,
                    2 * RECORDS + " records of " + topic,
                    () -> count[0] >= 2 * RECORDS,
                    Duration.ofMinutes(1),
                    r -> {
                        assertThat(r.offset()).isEqualTo(next[r.partition()]);
                        assertThat(new String(r.value(), StandardCharsets.UTF_8))
                                .startsWith("v" + r.offset() + "-");
                        next[r.partition()]++;
                        count[0]++;
                    });
        }
        return count[0];
    }
}

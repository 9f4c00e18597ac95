package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.TieredWaits;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 2 x 10,000 partitions on a server whose process may open only 1,024 descriptors ({@code ulimit -n
 * 1024} on a child JVM). Before, the descriptors ran out half-way: topics were advertised with
 * 10,000 partitions that did not exist, and the server could not start again. Now segment files are
 * opened lazily and idle ones closed ({@code log.open.files.max}, derived from the limit), so:
 * every creation either succeeds whole or fails with a Kafka error code and leaves nothing
 * advertised or on disk; the process never comes near its limit; after kill -9 the server starts
 * again (recovering all 20,000 partitions within the limit) and serves every acknowledged record.
 *
 * <p>{@code -Dtierlog.it.bricking.partitions=N} changes the partitions per topic (default 10,000).
 */
class BrickingInputsDescriptorsIT {
    private static final int FD_LIMIT = 1024;
    private static final int PARTITIONS =
            Integer.getInteger("tierlog.it.bricking.partitions", 10_000);
    private static final int PRODUCED_PARTITIONS = 150;
    private static final int RECORDS_PER_PARTITION = 20;

    @TempDir Path dir;

    @Test
    void twentyThousandPartitionsUnderUlimit1024AreAllOrNothingAndSurviveKillMinus9()
            throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = dir.resolve("data");
        String bootstrap = "127.0.0.1:" + port;
        Process server = start(port, data, "first.log");
        Process second = null;
        Map<TopicPartition, List<Long>> acked = new HashMap<>();
        List<String> created = new ArrayList<>();
        try {
            try (Admin admin = admin(bootstrap)) {
                for (String topic : List.of("wide-a", "wide-b")) {
                    Future<Void> f =
                            admin.createTopics(
                                            List.of(new NewTopic(topic, PARTITIONS, (short) 1)),
                                            new CreateTopicsOptions().timeoutMs(600_000))
                                    .all();
                    try {
                        f.get(10, TimeUnit.MINUTES);
                        created.add(topic);
                    } catch (ExecutionException e) {
                        // allowed only as a Kafka error code, never a dropped connection
                        assertThat(e.getCause()).isInstanceOf(ApiException.class);
                        assertThat(e.getCause())
                                .isNotInstanceOf(
                                        org.apache.kafka.common.errors.TimeoutException.class);
                    }
                    assertThat(openDescriptors(server))
                            .as("descriptors of the server after creating %s", topic)
                            .isLessThan(FD_LIMIT * 3 / 4);
                }
                // what cannot be created says so with an error code, and leaves nothing behind
                Files.writeString(data.resolve("log/blocked-777"), "in the way of a partition");
                assertThat(createError(admin, "blocked", 1_000))
                        .isInstanceOf(KafkaStorageException.class);
                assertThat(createError(admin, "too-wide", 10_001))
                        .isInstanceOf(InvalidPartitionsException.class);
                assertThat(admin.listTopics().names().get())
                        .containsAll(created)
                        .doesNotContain("blocked", "too-wide");
                assertThat(partitionFolders(data, "blocked-")).containsExactly("blocked-777");
                assertAdvertisedWhole(admin, created);
            }
            assertThat(created).as("with the derived bound both topics fit").hasSize(2);

            acked.putAll(produce(bootstrap, created));
            assertThat(openDescriptors(server)).isLessThan(FD_LIMIT * 3 / 4);

            server.destroyForcibly().waitFor();
            second = start(port, data, "second.log");
            assertThat(openDescriptors(second))
                    .as("descriptors after recovering %d partitions", 2 * PARTITIONS)
                    .isLessThan(FD_LIMIT * 3 / 4);
            try (Admin admin = admin(bootstrap)) {
                assertThat(admin.listTopics().names().get()).containsAll(created);
                assertAdvertisedWhole(admin, created);
            }
            assertEveryAckedRecordIsServed(bootstrap, acked);
            // and it keeps working: more produce on the recovered server
            Map<TopicPartition, List<Long>> more = produce(bootstrap, created);
            assertThat(more).isNotEmpty();
            assertThat(openDescriptors(second)).isLessThan(FD_LIMIT * 3 / 4);
        } finally {
            server.destroyForcibly();
            if (second != null) {
                second.destroy();
                second.waitFor(120, TimeUnit.SECONDS);
                second.destroyForcibly();
            }
        }
    }

    private Process start(int port, Path data, String logName) throws Exception {
        String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path cpFile = dir.resolve("classpath");
        Files.writeString(cpFile, System.getProperty("java.class.path"));
        String cmd =
                "ulimit -n "
                        + FD_LIMIT
                        + " && exec '"
                        + javaExe
                        + "' -Xmx1g -cp \"$(cat '"
                        + cpFile
                        + "')\" io.tierlog.server.cli.TierlogCli serve"
                        + " --set listeners=PLAINTEXT://127.0.0.1:"
                        + port
                        + " --set schema.registry.listen="
                        + " --set 'data.dir="
                        + data
                        + "'";
        Process p =
                new ProcessBuilder("bash", "-c", cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve(logName).toFile())
                        .start();
        boolean up = await(Duration.ofMinutes(10), () -> !p.isAlive() || accepts(port));
        assertThat(up && p.isAlive())
                .as("server listening; log: %s", tail(dir.resolve(logName)))
                .isTrue();
        return p;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** Descriptors the server process holds (it is the bash process, replaced by exec). */
    private static int openDescriptors(Process p) throws Exception {
        Path fds = Path.of("/proc", Long.toString(p.pid()), "fd");
        try (Stream<Path> s = Files.list(fds)) {
            return (int) s.count();
        }
    }

    private static Throwable createError(Admin admin, String topic, int partitions)
            throws Exception {
        try {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("creating " + topic + " should have failed");
    }

    private static List<String> partitionFolders(Path data, String prefix) throws Exception {
        try (Stream<Path> s = Files.list(data.resolve("log"))) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(prefix))
                    .toList();
        }
    }

    private static void assertAdvertisedWhole(Admin admin, List<String> topics) throws Exception {
        Map<String, TopicDescription> d = admin.describeTopics(topics).allTopicNames().get();
        for (String t : topics) {
            assertThat(d.get(t).partitions()).as("partitions of %s", t).hasSize(PARTITIONS);
        }
    }

    /** acks=all to partitions spread over every topic; returns the acknowledged offsets. */
    private static Map<TopicPartition, List<Long>> produce(String bootstrap, List<String> topics)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        Map<TopicPartition, List<Long>> acked = new HashMap<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(p)) {
            for (String t : topics) {
                for (int k = 0; k < PRODUCED_PARTITIONS; k++) {
                    int partition = (int) ((long) k * PARTITIONS / PRODUCED_PARTITIONS) + k % 7;
                    for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                        sent.add(
                                prod.send(
                                        new ProducerRecord<>(
                                                t,
                                                Math.min(partition, PARTITIONS - 1),
                                                null,
                                                value(t, partition, i))));
                    }
                }
            }
            prod.flush();
            for (Future<RecordMetadata> f : sent) {
                RecordMetadata md = f.get();
                acked.computeIfAbsent(
                                new TopicPartition(md.topic(), md.partition()),
                                x -> new ArrayList<>())
                        .add(md.offset());
            }
        }
        return acked;
    }

    private static byte[] value(String topic, int partition, int i) {
        return (topic + "/" + partition + "/" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static void assertEveryAckedRecordIsServed(
            String bootstrap, Map<TopicPartition, List<Long>> acked) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<TopicPartition, Set<Long>> seen = new HashMap<>();
        int expected = acked.values().stream().mapToInt(List::size).sum();
        int[] count = {0};
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.assign(acked.keySet());
            c.seekToBeginning(acked.keySet());
            TieredWaits.pollUntil(
                    c,
                    expected + " acknowledged records",
                    () -> count[0] >= expected,
                    Duration.ofMinutes(3),
                    r -> {
                        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                        assertThat(seen.computeIfAbsent(tp, x -> new HashSet<>()).add(r.offset()))
                                .as("offset %d of %s once", r.offset(), tp)
                                .isTrue();
                        assertThat(new String(r.value(), StandardCharsets.UTF_8))
                                .startsWith(r.topic() + "/");
                        count[0]++;
                    });
        }
        for (Map.Entry<TopicPartition, List<Long>> e : acked.entrySet()) {
            assertThat(seen.getOrDefault(e.getKey(), Set.of()))
                    .as("acknowledged offsets of %s", e.getKey())
                    .containsAll(e.getValue());
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "600000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "600000");
        return Admin.create(p);
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static boolean await(Duration timeout, BooleanSupplier condition) {
        return Await.atMost(timeout, condition::getAsBoolean, holds -> holds);
    }
}

package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteRecords and DescribeLogDirs as an operator runs them on the hot tier: Apache Kafka 4.4's
 * {@code kafka-delete-records} and {@code kafka-log-dirs} (in a child JVM, exit code and output
 * checked) and the AdminClient; a consumer from earliest then sees exactly the records from the new
 * log start, hot segments wholly below it are gone from disk, and all of it survives a restart.
 */
class DeleteRecordsIT {
    private static final String TOPIC = "dr";
    private static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);
    private static final int RECORDS = 1000;

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        // small segments, and no offload: the hot tier alone holds the log
        server =
                new ServerHarness(
                        dir.resolve("data"),
                        Map.of("segment.bytes", "4096", "offload.enabled", "false"));
        Clients.createTopic(server.bootstrap(), TOPIC, 2);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            for (int i = 0; i < RECORDS; i++) {
                p.send(new ProducerRecord<>(TOPIC, 0, Clients.key("a", i), Clients.value("a", i)));
                p.send(new ProducerRecord<>(TOPIC, 1, Clients.key("b", i), Clients.value("b", i)));
                if (i % 25 == 24) {
                    p.flush(); // many batches, so that segments roll
                }
            }
            p.flush();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** A finished run of a tool: its exit code and output (stdout and stderr). */
    private record Tool(int exit, String out) {}

    private Tool tool(String main, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(main);
        cmd.add("--bootstrap-server");
        cmd.add(server.bootstrap());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "tool-", ".out");
        Process p = KafkaBroker.javaProcess(cmd, out).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("tool did not finish: " + cmd);
        }
        Tool t = new Tool(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        System.out.println(main + " " + String.join(" ", args) + " -> " + t.exit + "\n" + t.out);
        return t;
    }

    private Tool deleteRecords(String json) throws Exception {
        Path f = Files.writeString(Files.createTempFile(dir, "offsets-", ".json"), json);
        return tool(
                "org.apache.kafka.tools.DeleteRecordsCommand", "--offset-json-file", f.toString());
    }

    /** Every record a fresh consumer from earliest reads of {@code tp} up to the end. */
    private List<ConsumerRecord<byte[], byte[]>> readFromEarliest(TopicPartition tp, long end) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            assertThat(
                            Clients.await(
                                    Duration.ofSeconds(60),
                                    () -> {
                                        c.poll(Duration.ofMillis(200)).forEach(out::add);
                                        return c.position(tp) >= end;
                                    }))
                    .as("a consumer from earliest reaches %d of %s", end, tp)
                    .isTrue();
        }
        return out;
    }

    private static long earliest(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                .partitionResult(tp)
                .get()
                .offset();
    }

    private long hotSegmentsOnDisk(TopicPartition tp) throws Exception {
        try (Stream<Path> s =
                Files.list(dir.resolve("data/log/" + tp.topic() + "-" + tp.partition()))) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).count();
        }
    }

    private static Throwable cause(ThrowingRunnable call) {
        try {
            call.run();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void
            kafkaDeleteRecordsMovesTheLowWatermarkAndAConsumerFromEarliestSeesExactlyTheRestAfterARestart()
                    throws Exception {
        long segmentsBefore = hotSegmentsOnDisk(TP0);
        assertThat(segmentsBefore).as("the test needs several segments").isGreaterThan(3);

        Tool t =
                deleteRecords(
                        "{\"partitions\":[{\"topic\":\""
                                + TOPIC
                                + "\",\"partition\":0,\"offset\":250},"
                                + "{\"topic\":\""
                                + TOPIC
                                + "\",\"partition\":1,\"offset\":-1}],\"version\":1}");
        assertThat(t.exit()).isZero();
        assertThat(t.out())
                .contains("Records delete operation completed:")
                .contains("partition: " + TOPIC + "-0\tlow_watermark: 250")
                .contains("partition: " + TOPIC + "-1\tlow_watermark: " + RECORDS);

        List<ConsumerRecord<byte[], byte[]>> got = readFromEarliest(TP0, RECORDS);
        assertThat(got).extracting(ConsumerRecord::offset).first().isEqualTo(250L);
        assertThat(got).hasSize(RECORDS - 250);
        for (ConsumerRecord<byte[], byte[]> r : got) {
            assertThat(Clients.index(r.key())).isEqualTo((int) r.offset());
        }
        assertThat(hotSegmentsOnDisk(TP0))
                .as("segments wholly below offset 250 are deleted")
                .isLessThan(segmentsBefore);
        try (Admin admin = Clients.admin(server.bootstrap())) {
            assertThat(earliest(admin, TP0)).isEqualTo(250);
            assertThat(earliest(admin, TP1)).isEqualTo(RECORDS);
        }

        server.restart();
        try (Admin admin = Clients.admin(server.bootstrap())) {
            assertThat(earliest(admin, TP0)).as("the log start survives a restart").isEqualTo(250);
            assertThat(earliest(admin, TP1)).isEqualTo(RECORDS);
        }
        got = readFromEarliest(TP0, RECORDS);
        assertThat(got).extracting(ConsumerRecord::offset).first().isEqualTo(250L);
        assertThat(got).hasSize(RECORDS - 250);
    }

    @Test
    void kafkaDeleteRecordsReportsOffsetOutOfRangeAboveTheHighWatermarkAndUnknownPartitions()
            throws Exception {
        Tool t =
                deleteRecords(
                        "{\"partitions\":[{\"topic\":\""
                                + TOPIC
                                + "\",\"partition\":0,\"offset\":"
                                + (RECORDS + 1)
                                + "}],\"version\":1}");
        // Kafka's tool reports a partition's failure in its output and still exits 0
        assertThat(t.exit()).isZero();
        assertThat(t.out())
                .contains("partition: " + TOPIC + "-0\terror: ")
                .contains("OffsetOutOfRangeException");

        try (Admin admin = Clients.admin(server.bootstrap())) {
            assertThat(
                            cause(
                                    () ->
                                            admin.deleteRecords(
                                                            Map.of(
                                                                    TP0,
                                                                    RecordsToDelete.beforeOffset(
                                                                            RECORDS + 1)))
                                                    .all()
                                                    .get()))
                    .isInstanceOf(OffsetOutOfRangeException.class);
            // An unknown partition the AdminClient retries (Metadata) until its timeout: the
            // server's answer is in StorageHandlersTest, the client's in the differential test.
            // nothing moved
            assertThat(earliest(admin, TP0)).isZero();

            // AdminClient: a start below the current one answers the current one, unchanged
            assertThat(
                            admin.deleteRecords(Map.of(TP0, RecordsToDelete.beforeOffset(100)))
                                    .lowWatermarks()
                                    .get(TP0)
                                    .get()
                                    .lowWatermark())
                    .isEqualTo(100);
            assertThat(
                            admin.deleteRecords(Map.of(TP0, RecordsToDelete.beforeOffset(40)))
                                    .lowWatermarks()
                                    .get(TP0)
                                    .get()
                                    .lowWatermark())
                    .isEqualTo(100);
            assertThat(earliest(admin, TP0)).isEqualTo(100);
        }
    }

    @Test
    void adminDescribeLogDirsAndKafkaLogDirsShowTheHotLogDirWithEachPartitionsHotBytes()
            throws Exception {
        Path logDir = dir.resolve("data/log").toAbsolutePath();
        long hotBytes0;
        try (Stream<Path> s = Files.list(logDir.resolve(TOPIC + "-0"))) {
            hotBytes0 =
                    s.filter(p -> p.getFileName().toString().endsWith(".log"))
                            .mapToLong(p -> p.toFile().length())
                            .sum();
        }
        assertThat(hotBytes0).isPositive();
        int node;
        try (Admin admin = Clients.admin(server.bootstrap())) {
            node = admin.describeCluster().nodes().get().iterator().next().id();
            Map<String, LogDirDescription> dirs =
                    admin.describeLogDirs(List.of(node)).allDescriptions().get().get(node);
            assertThat(dirs).containsOnlyKeys(logDir.toString());
            LogDirDescription d = dirs.get(logDir.toString());
            assertThat(d.error()).isNull();
            assertThat(d.totalBytes()).isPresent();
            assertThat(d.usableBytes().getAsLong())
                    .isPositive()
                    .isLessThanOrEqualTo(d.totalBytes().getAsLong());
            ReplicaInfo r0 = d.replicaInfos().get(TP0);
            assertThat(r0.size()).isEqualTo(hotBytes0);
            assertThat(r0.offsetLag()).isZero();
            assertThat(r0.isFuture()).isFalse();
            assertThat(d.replicaInfos()).containsKey(TP1);

            // DeleteRecords shrinks what DescribeLogDirs reports
            admin.deleteRecords(Map.of(TP0, RecordsToDelete.beforeOffset(-1))).all().get();
            long after =
                    admin.describeLogDirs(List.of(node))
                            .allDescriptions()
                            .get()
                            .get(node)
                            .get(logDir.toString())
                            .replicaInfos()
                            .get(TP0)
                            .size();
            assertThat(after).isLessThan(hotBytes0);
        }

        Tool t = tool("org.apache.kafka.tools.LogDirsCommand", "--describe", "--topic-list", TOPIC);
        assertThat(t.exit()).isZero();
        assertThat(t.out())
                .contains("Querying brokers for log directories information")
                .contains("Received log directory information from brokers " + node);
        String json = t.out().lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
        JsonNode brokers = new ObjectMapper().readTree(json).get("brokers");
        assertThat(brokers).hasSize(1);
        assertThat(brokers.get(0).get("broker").asInt()).isEqualTo(node);
        JsonNode logDirs = brokers.get(0).get("logDirs");
        assertThat(logDirs).hasSize(1);
        assertThat(logDirs.get(0).get("logDir").asText()).isEqualTo(logDir.toString());
        assertThat(logDirs.get(0).get("error").isNull()).isTrue();
        List<String> partitions = new ArrayList<>();
        for (JsonNode p : logDirs.get(0).get("partitions")) {
            partitions.add(p.get("partition").asText());
            assertThat(p.get("offsetLag").asLong()).isZero();
            assertThat(p.get("isFuture").asBoolean()).isFalse();
            assertThat(p.get("size").asLong()).isNotNegative();
        }
        assertThat(partitions).containsExactlyInAnyOrder(TOPIC + "-0", TOPIC + "-1");
    }

    @Test
    void aLogStartCommittedBeforeACrashIsAppliedToTheHotTierAtTheNextStart() throws Exception {
        long segmentsBefore = hotSegmentsOnDisk(TP0);
        server.close();
        // What a kill -9 right after DeleteRecords' commit point leaves: the catalog holds the
        // new start, the hot tier still has every segment.
        Path partition = dir.resolve("data/log/" + TOPIC + "-0");
        long floor;
        try (Stream<Path> s = Files.list(partition)) {
            floor =
                    s.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith(".log"))
                            .mapToLong(n -> Long.parseLong(n.substring(0, n.indexOf('.'))))
                            .filter(base -> base <= 250)
                            .max()
                            .orElseThrow();
        }
        try (io.tierlog.catalog.Catalog c =
                io.tierlog.catalog.Catalog.open("jdbc:sqlite:" + dir.resolve("data/catalog.db"))) {
            c.advanceLogStart(TOPIC, 0, 250, floor);
        }
        assertThat(hotSegmentsOnDisk(TP0)).isEqualTo(segmentsBefore);

        server =
                new ServerHarness(
                        dir.resolve("data"),
                        Map.of("segment.bytes", "4096", "offload.enabled", "false"));
        try (Admin admin = Clients.admin(server.bootstrap())) {
            assertThat(earliest(admin, TP0)).isEqualTo(250);
            assertThat(earliest(admin, TP1)).isZero();
        }
        assertThat(hotSegmentsOnDisk(TP0)).isLessThan(segmentsBefore);
        List<ConsumerRecord<byte[], byte[]>> got = readFromEarliest(TP0, RECORDS);
        assertThat(got).extracting(ConsumerRecord::offset).first().isEqualTo(250L);
        assertThat(got).hasSize(RECORDS - 250);
    }
}

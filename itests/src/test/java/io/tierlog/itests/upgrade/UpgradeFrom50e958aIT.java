package io.tierlog.itests.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.itests.server.RawClient;
import io.tierlog.server.TierlogServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data dir written by release 50e958a ({@code upgrade/50e958a/data.tar.gz}, made by {@link
 * FixtureGenerator}) opened by the current code's server with the embedded default (embedded S3
 * under {@code data.dir/s3}, SQLite {@code data.dir/catalog.db}): every topic with its id,
 * partition count and config overrides, every record of both tiers, the committed offsets of both
 * groups, and producer ids never handed out twice. Whatever the current code keeps its metadata in,
 * the old dir must read the same through Kafka clients. On a mismatch the failure lists every
 * differing key, expected against actual.
 */
class UpgradeFrom50e958aIT {
    private static final String FIXTURE = "/upgrade/50e958a/";

    @TempDir Path tmp;
    private Path dataDir;
    private TreeMap<String, String> expected;

    @BeforeEach
    void unpackFixture() throws Exception {
        dataDir = unpack(tmp);
        Path state = tmp.resolve(FixtureGenerator.STATE_FILE);
        try (InputStream in = resource(FixtureGenerator.STATE_FILE)) {
            Files.copy(in, state);
        }
        expected = ClusterState.read(state);
    }

    /** Unpacks the fixture's data dir into {@code tmp}; returns it ({@code tmp/data}). */
    static Path unpack(Path tmp) throws Exception {
        Path archive = tmp.resolve(FixtureGenerator.DATA_ARCHIVE);
        try (InputStream in = resource(FixtureGenerator.DATA_ARCHIVE)) {
            Files.copy(in, archive, StandardCopyOption.REPLACE_EXISTING);
        }
        Process tar =
                new ProcessBuilder("tar", "-C", tmp.toString(), "-xzf", archive.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor()).as("tar -xzf: %s", out).isZero();
        return tmp.resolve("data");
    }

    @Test
    void everyTopicRecordAndCommittedOffsetWrittenBy50e958aReadsTheSame() throws Exception {
        // Meaningful only if the old dir serves from both tiers: events-0 kept its oldest offsets
        // in the cold tier only, and orders has offloaded objects beside its hot segments.
        assertThat(lowestHotOffset("events-0"))
                .as("fixture: the first hot segment of events-0 (below it only the cold tier)")
                .isGreaterThan(0L);
        assertThat(coldObjects()).as("fixture: cold objects in the embedded bucket").isNotEmpty();
        try (TierlogServer server = start()) {
            assertSameState(server, "after opening the 50e958a dir");
        }
    }

    @Test
    void aSecondStartAfterTheUpgradeReadsTheSameAgain() throws Exception {
        try (TierlogServer server = start()) {
            ClusterState.capture(bootstrap(server), FixtureGenerator.GROUPS);
        }
        try (TierlogServer server = start()) {
            assertSameState(server, "after a second start on the upgraded dir");
        }
    }

    @Test
    void aNewIdempotentProducerGetsAnIdAboveEveryIdHandedOutBefore() throws Exception {
        long highest = Long.parseLong(expected.get("producer.highest.id"));
        try (TierlogServer server = start()) {
            try (RawClient c = new RawClient(server.port())) {
                InitProducerIdResponseData r =
                        c.call(
                                ApiKeys.INIT_PRODUCER_ID,
                                (short) 4,
                                new InitProducerIdRequestData()
                                        .setTransactionalId(null)
                                        .setTransactionTimeoutMs(60_000),
                                new InitProducerIdResponseData());
                assertThat(r.errorCode()).as("InitProducerId error").isZero();
                assertThat(r.producerId())
                        .as(
                                "InitProducerId after the upgrade (50e958a handed out up to %d)",
                                highest)
                        .isGreaterThan(highest);
            }
            TopicPartition tp = new TopicPartition("orders", 0);
            RecordMetadata m =
                    produce(server, tp, "after-upgrade".getBytes(StandardCharsets.UTF_8));
            assertThat(m.offset())
                    .as("offset of the first record produced after the upgrade")
                    .isEqualTo(Long.parseLong(expected.get(ClusterState.key(tp, "end"))));
            assertThat(producerIdOfBatchAt(tp, m.offset()))
                    .as("producer id in the batch of a new idempotent KafkaProducer")
                    .isGreaterThan(highest);
        }
    }

    @Test
    void newRecordsAndNewTopicsAreServedBesideTheUpgradedOnes() throws Exception {
        try (TierlogServer server = start()) {
            String bootstrap = bootstrap(server);
            try (Admin admin = ClusterState.admin(bootstrap)) {
                admin.createTopics(List.of(new NewTopic("after-upgrade", 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                assertThat(
                                admin.describeTopics(List.of("after-upgrade"))
                                        .allTopicNames()
                                        .get(30, TimeUnit.SECONDS)
                                        .get("after-upgrade")
                                        .topicId()
                                        .toString())
                        .as("id of a topic created after the upgrade")
                        .isNotIn(
                                expected.get("topic.orders.id"),
                                expected.get("topic.events.id"),
                                expected.get("topic.audit.id"));
            }
            for (TopicPartition tp :
                    List.of(
                            new TopicPartition("events", 0),
                            new TopicPartition("after-upgrade", 1))) {
                byte[] value = ("new in " + tp).getBytes(StandardCharsets.UTF_8);
                RecordMetadata m = produce(server, tp, value);
                try (KafkaConsumer<byte[], byte[]> c = ClusterState.consumer(bootstrap)) {
                    c.assign(List.of(tp));
                    c.seek(tp, m.offset());
                    ConsumerRecord<byte[], byte[]> read = pollOne(c, tp);
                    assertThat(read.offset())
                            .as("offset read back in %s", tp)
                            .isEqualTo(m.offset());
                    assertThat(read.value()).as("value read back in %s", tp).isEqualTo(value);
                }
            }
        }
    }

    private void assertSameState(TierlogServer server, String when) throws Exception {
        TreeMap<String, String> actual =
                ClusterState.capture(bootstrap(server), FixtureGenerator.GROUPS);
        TreeMap<String, String> want = new TreeMap<>(expected);
        want.remove("producer.highest.id");
        List<String> diff = differences(want, actual);
        assertThat(diff)
                .as(
                        "%s: what Kafka clients see differs from what 50e958a served"
                                + " (key: expected -> actual)",
                        when)
                .isEmpty();
    }

    /** One line per key that differs: missing, changed, or not there before. */
    static List<String> differences(Map<String, String> expected, Map<String, String> actual) {
        TreeSet<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            String e = expected.get(k);
            String a = actual.get(k);
            if (e == null) {
                out.add(k + ": (absent before) -> " + a);
            } else if (a == null) {
                out.add(k + ": " + e + " -> (missing)");
            } else if (!e.equals(a)) {
                out.add(k + ": " + e + " -> " + a);
            }
        }
        return out;
    }

    private TierlogServer start() throws IOException {
        return TierlogServer.start(
                Config.of(
                        Map.of(
                                "data.dir", dataDir.toString(),
                                "listeners", "PLAINTEXT://127.0.0.1:0",
                                "schema.registry.listen", "",
                                "num.network.threads", "2",
                                // The fixture's timestamps are from 2023 (as when it was made).
                                "retention.ms", "-1")));
    }

    private static String bootstrap(TierlogServer server) {
        return "127.0.0.1:" + server.port();
    }

    private static RecordMetadata produce(TierlogServer server, TopicPartition tp, byte[] value)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(server));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            return producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value))
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private static ConsumerRecord<byte[], byte[]> pollOne(
            KafkaConsumer<byte[], byte[]> c, TopicPartition tp) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                return r;
            }
        }
        throw new AssertionError("no record from " + tp + " within 60 s");
    }

    /**
     * The producer id of the hot-tier batch holding {@code offset}, read from the segment files.
     */
    private long producerIdOfBatchAt(TopicPartition tp, long offset) throws IOException {
        try (Stream<Path> files = Files.list(dataDir.resolve("log").resolve(tp.toString()))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                MemoryRecords records =
                        MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(f)));
                for (RecordBatch b : records.batches()) {
                    if (b.baseOffset() <= offset && offset <= b.lastOffset()) {
                        return b.producerId();
                    }
                }
            }
        }
        throw new AssertionError("no hot segment of " + tp + " holds offset " + offset);
    }

    private long lowestHotOffset(String partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(dataDir.resolve("log").resolve(partitionDir))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".log"))
                    .mapToLong(n -> Long.parseLong(n.substring(0, n.length() - 4)))
                    .min()
                    .orElseThrow();
        }
    }

    private List<Path> coldObjects() throws IOException {
        try (Stream<Path> files = Files.walk(dataDir.resolve("s3"))) {
            return files.filter(f -> f.toString().endsWith(".parquet")).toList();
        }
    }

    private static InputStream resource(String name) {
        InputStream in = UpgradeFrom50e958aIT.class.getResourceAsStream(FIXTURE + name);
        if (in == null) {
            throw new AssertionError(
                    "fixture resource " + FIXTURE + name + " not on the class path");
        }
        return in;
    }
}

package io.tierlog.itests.upgrade;

import io.tierlog.itests.server.RawClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the data dir of {@code upgrade/50e958a}: runs the {@code serve} of a built release as a
 * child process, creates a realistic state through Kafka clients, records what the clients see
 * ({@link ClusterState}), stops the server with SIGTERM and packs its data dir.
 *
 * <p>How the fixture in the resources was made (run again the same way to regenerate it):
 *
 * <pre>
 * git -C /work/main worktree add /tmp/rel50 50e958a
 * (cd /tmp/rel50 &amp;&amp; mvn -o -q -B -DskipTests -Dspotless.check.skip=true package)
 * mvn -o -q -B -pl itests -am test-compile dependency:build-classpath \
 *     -Dmdep.includeScope=test -Dmdep.outputFile=/tmp/itests.cp
 * java -cp itests/target/test-classes:$(cat /tmp/itests.cp) \
 *     io.tierlog.itests.upgrade.FixtureGenerator /tmp/rel50 itests/src/test/resources/upgrade/50e958a
 * git -C /work/main worktree remove --force /tmp/rel50
 * </pre>
 *
 * <p>The state: {@code orders} (4 partitions, {@code segment.bytes=16384}: many closed segments,
 * offloaded), {@code events} (1 partition, small segments and {@code local.retention.bytes}, so its
 * oldest offsets are in the cold tier only), {@code audit} (2 partitions, no overrides, a single
 * open segment: hot only). Records with and without keys, null and empty values, 0-3 headers, sizes
 * from 0 to 6 KiB, four compression codecs; idempotent producers (producer ids handed out) and a
 * non-idempotent one; committed offsets of a subscribing group ({@code billing}) and of a manually
 * assigning one ({@code analytics}). Server-wide settings: {@code retention.ms=-1} (the records'
 * timestamps are fixed in 2023, so time retention must not delete them, neither now nor when the
 * upgrade test opens the dir) and a short {@code offload.interval.ms}. Not thread-safe; a tool, not
 * a test.
 */
public final class FixtureGenerator {
    static final long BASE_TS = 1_700_000_000_000L;
    static final List<String> GROUPS = List.of("analytics", "billing");
    static final String STATE_FILE = "expected.properties";
    static final String DATA_ARCHIVE = "data.tar.gz";

    private final Path release;
    private final Path out;
    private final Random random = new Random(18);

    private FixtureGenerator(Path release, Path out) {
        this.release = release;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: FixtureGenerator <built release worktree> <fixture dir>");
            System.exit(2);
        }
        new FixtureGenerator(Path.of(args[0]), Path.of(args[1])).run();
    }

    private void run() throws Exception {
        Path work = Files.createTempDirectory("tierlog-fixture-");
        Path data = work.resolve("data");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        Process server =
                release(
                                work.resolve("serve.log"),
                                "serve",
                                "--set",
                                "data.dir=" + data,
                                "--set",
                                "listeners=PLAINTEXT://" + bootstrap,
                                "--set",
                                "retention.ms=-1",
                                "--set",
                                "offload.interval.ms=200",
                                "--set",
                                "num.network.threads=2")
                        .start();
        try {
            awaitPort(port, server);
            createTopics(bootstrap);
            produce(bootstrap);
            commitGroups(bootstrap);
            String inspect = awaitColdTier(data, work);
            long highestProducerId = initProducerId(port);
            TreeMap<String, String> state = ClusterState.capture(bootstrap, GROUPS);
            state.put("producer.highest.id", Long.toString(highestProducerId));
            Files.createDirectories(out);
            ClusterState.write(
                    out.resolve(STATE_FILE),
                    state,
                    "What Kafka clients saw of the data dir in "
                            + DATA_ARCHIVE
                            + ", written by tierlog 50e958a (FixtureGenerator).\n"
                            + "producer.highest.id: the last id InitProducerId handed out.\n"
                            + "Tiers at capture (tierlog inspect):\n"
                            + inspect.strip());
        } finally {
            server.destroy(); // SIGTERM: the graceful shutdown path of serve
            if (!server.waitFor(120, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                throw new IllegalStateException("serve did not stop within 120 s");
            }
        }
        Path archive = out.resolve(DATA_ARCHIVE);
        Process tar =
                new ProcessBuilder("tar", "-C", work.toString(), "-czf", archive.toString(), "data")
                        .inheritIO()
                        .start();
        if (tar.waitFor() != 0) {
            throw new IllegalStateException("tar failed");
        }
        System.out.println("fixture written to " + out + " (" + Files.size(archive) + " bytes)");
    }

    private ProcessBuilder release(Path log, String... cli) {
        Path server = release.resolve("server/target");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(server.resolve("classes") + ":" + server.resolve("lib") + "/*");
        cmd.add("io.tierlog.server.cli.TierlogCli");
        cmd.addAll(List.of(cli));
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    }

    private static void awaitPort(int port, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("serve is not listening on " + port, e);
                }
                Thread.sleep(100);
            }
        }
    }

    private static void createTopics(String bootstrap) throws Exception {
        try (Admin admin = ClusterState.admin(bootstrap)) {
            admin.createTopics(
                            List.of(
                                    new NewTopic("orders", 4, (short) 1)
                                            .configs(Map.of("segment.bytes", "16384")),
                                    new NewTopic("events", 1, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "segment.bytes", "8192",
                                                            "local.retention.bytes", "24576",
                                                            "index.interval.bytes", "1024",
                                                            "message.timestamp.type",
                                                                    "CreateTime")),
                                    new NewTopic("audit", 2, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private void produce(String bootstrap) throws Exception {
        send(producer(bootstrap, true, "zstd"), "orders", 0, 1200, 6144);
        send(producer(bootstrap, true, "none"), "orders", 1200, 900, 800);
        send(producer(bootstrap, true, "lz4"), "events", 0, 1500, 600);
        send(producer(bootstrap, false, "gzip"), "audit", 0, 500, 300);
        // A last idempotent producer whose id is the highest one used in a batch.
        send(producer(bootstrap, true, "snappy"), "audit", 500, 20, 100);
    }

    private void send(
            KafkaProducer<byte[], byte[]> p, String topic, int from, int n, int maxValueBytes)
            throws Exception {
        try (p) {
            for (int i = from; i < from + n; i++) {
                byte[] key =
                        random.nextInt(20) == 0
                                ? null
                                : (topic + "-key-" + random.nextInt(200))
                                        .getBytes(StandardCharsets.UTF_8);
                byte[] value = value(i, maxValueBytes);
                RecordHeaders headers = new RecordHeaders();
                int nh = random.nextInt(4);
                for (int h = 0; h < nh; h++) {
                    headers.add(
                            h == 0 ? "trace-id" : "h" + h,
                            random.nextInt(5) == 0
                                    ? null
                                    : ("t" + random.nextLong()).getBytes(StandardCharsets.UTF_8));
                }
                p.send(new ProducerRecord<>(topic, null, BASE_TS + i * 50L, key, value, headers));
            }
            p.flush();
        }
    }

    /** Text-like values (so the archive stays small), null and empty ones now and then. */
    private byte[] value(int i, int maxBytes) {
        int kind = random.nextInt(50);
        if (kind == 0) {
            return null;
        }
        if (kind == 1) {
            return new byte[0];
        }
        int size = random.nextInt(8) == 0 ? random.nextInt(maxBytes) : random.nextInt(200);
        StringBuilder b = new StringBuilder(size + 16);
        b.append("{\"i\":").append(i).append(",\"pad\":\"");
        while (b.length() < size) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static KafkaProducer<byte[], byte[]> producer(
            String bootstrap, boolean idempotent, String compression) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
        p.put(ProducerConfig.ACKS_CONFIG, idempotent ? "all" : "1");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * billing subscribes (JoinGroup/SyncGroup) and commits half of each orders partition; analytics
     * assigns by hand and commits without a generation.
     */
    private static void commitGroups(String bootstrap) throws Exception {
        Map<String, Long> ends = new HashMap<>();
        try (Admin admin = ClusterState.admin(bootstrap)) {
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> specs = new HashMap<>();
            for (TopicPartition tp :
                    List.of(
                            new TopicPartition("orders", 0),
                            new TopicPartition("orders", 1),
                            new TopicPartition("orders", 2),
                            new TopicPartition("orders", 3),
                            new TopicPartition("events", 0),
                            new TopicPartition("audit", 0),
                            new TopicPartition("audit", 1))) {
                specs.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest());
            }
            admin.listOffsets(specs)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp.toString(), info.offset()));
        }
        try (KafkaConsumer<byte[], byte[]> c = groupConsumer(bootstrap, "billing")) {
            c.subscribe(List.of("orders"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.assignment().size() < 4) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("billing got no assignment");
                }
                c.poll(java.time.Duration.ofMillis(200));
            }
            Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
            for (TopicPartition tp : c.assignment()) {
                commit.put(tp, new OffsetAndMetadata(ends.get(tp.toString()) / 2, "billing@" + tp));
            }
            c.commitSync(commit);
        }
        try (KafkaConsumer<byte[], byte[]> c = groupConsumer(bootstrap, "analytics")) {
            TopicPartition events = new TopicPartition("events", 0);
            TopicPartition audit0 = new TopicPartition("audit", 0);
            TopicPartition audit1 = new TopicPartition("audit", 1);
            c.assign(List.of(events, audit0, audit1));
            c.commitSync(
                    Map.of(
                            events, new OffsetAndMetadata(7, ""),
                            audit0, new OffsetAndMetadata(ends.get("audit-0"), "done"),
                            audit1, new OffsetAndMetadata(ends.get("audit-1") - 1, "almost")));
        }
    }

    private static KafkaConsumer<byte[], byte[]> groupConsumer(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Waits until {@code inspect} shows cold objects in every partition of orders and events, and
     * events' hot tier starting above offset 0 (its oldest offsets are in the cold tier only).
     */
    private String awaitColdTier(Path data, Path work) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (true) {
            Path log = work.resolve("inspect.txt");
            Files.deleteIfExists(log);
            Process p = release(log, "inspect", "--set", "data.dir=" + data).start();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("inspect failed: " + Files.readString(log));
            }
            List<String> lines = new ArrayList<>();
            for (String l : Files.readAllLines(log)) {
                if (l.startsWith("orders-") || l.startsWith("events-") || l.startsWith("audit-")) {
                    lines.add(l);
                }
            }
            boolean cold =
                    lines.stream()
                                    .filter(l -> !l.startsWith("audit-"))
                                    .filter(l -> l.contains(" objects "))
                                    .count()
                            == 5;
            boolean eventsTrimmed =
                    lines.stream()
                            .anyMatch(l -> l.startsWith("events-0") && !l.contains("hot [0,"));
            if (cold && eventsTrimmed) {
                return String.join("\n", lines);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cold tier not filled in time:\n" + lines);
            }
            Thread.sleep(1000);
        }
    }

    private static long initProducerId(int port) throws IOException {
        try (RawClient c = new RawClient(port)) {
            InitProducerIdResponseData r =
                    c.call(
                            ApiKeys.INIT_PRODUCER_ID,
                            (short) 4,
                            new InitProducerIdRequestData()
                                    .setTransactionalId(null)
                                    .setTransactionTimeoutMs(60_000),
                            new InitProducerIdResponseData());
            if (r.errorCode() != 0) {
                throw new IllegalStateException("InitProducerId error " + r.errorCode());
            }
            return r.producerId();
        }
    }
}

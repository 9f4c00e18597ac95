package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No Netty event-loop thread of the server ever blocks: a realistic workload through real
 * kafka-clients (produce acks=1 and acks=all, fetch from the hot tier and from the cold tier after
 * offload, ListOffsets earliest/latest/by timestamp, Metadata, DescribeConfigs, a consumer group
 * joining, committing and fetching offsets, CreateTopics and DeleteTopics) runs against an
 * in-process tiered server (embedded default: s3proxy and SQLite) while {@link
 * EventLoopBlockingCalls} watches every event-loop thread; any blocking call (file or socket I/O,
 * fsync, JDBC, sleep, park) fails the test with each distinct call site and its stack. The report
 * is also written to {@code target/event-loop-blocking-calls.txt}.
 *
 * <p><b>The policy</b> (also in {@code docs/architecture.md}, "Threads"). Never on an event loop:
 * JDBC (the catalog), fsync/force, creating, opening, renaming or deleting a file, listing a
 * folder, pre-allocating index pages, waiting for a lock whose holder may do I/O, sleeping, any
 * wait for S3. So InitProducerId (it may reserve producer ids on disk) runs on the blocking
 * executor; a produce is appended on the event loop only when the engine can do it without blocking
 * ({@code TieredLog.appendWithoutBlocking}), and a partition whose append would roll a segment (new
 * files, a producer snapshot), allocate index pages, reopen a file or wait for the partition's lock
 * is appended on the blocking executor instead; ListOffsets by timestamp and a Metadata that may
 * create a topic leave the event loop; offsets are served from the engine's memory. Allowed on an
 * event loop by design, each matched by its exact frames ({@link
 * EventLoopBlockingCalls#BY_DESIGN}): a produce's write into the active segment's page cache (no
 * fsync) and a fetch's read of batch headers through the page cache, then sendfile itself (not
 * watched). That is tierlog's zero-copy design: the event loop serves hot data and appends without
 * a thread hop; a page-cache miss can stall that loop, the documented trade-off.
 *
 * <p>Deterministic: the watched produce rolls {@code cold-0} many times (16 KiB segments) and
 * starts an idempotent producer on a server that has reserved no producer ids yet, and the test
 * checks both happened; it also checks that the acks=1 append did run on the event loop.
 *
 * <p>A control first proves the watch works: a Netty event loop of the test's own that reads a
 * file, sleeps and runs a SQLite query must be caught on all three.
 */
class EventLoopNeverBlocksIT {
    /** Record timestamps: recent, as the broker accepts CreateTime only up to 1 h ahead. */
    private static final long BASE_TS = System.currentTimeMillis() - 600_000;

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeAll
    static void installBlockHound() {
        EventLoopBlockingCalls.install();
    }

    @AfterEach
    void stop() {
        EventLoopBlockingCalls.disarm();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void noEventLoopThreadBlocksUnderAProduceFetchOffsetsGroupsAndAdminWorkload() throws Exception {
        watchCatchesFileIoSleepAndJdbcOnANettyEventLoop();

        Map<String, String> settings = new HashMap<>();
        settings.put("offload.interval.ms", "200");
        settings.put("retention.ms", "-1");
        server = new ServerHarness(dir.resolve("data"), settings);
        try (Admin admin = Clients.admin(server.bootstrap())) {
            admin.createTopics(
                            List.of(
                                    new NewTopic("hot", 2, (short) 1),
                                    new NewTopic("cold", 1, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "internal.segment.bytes", "16384",
                                                            "local.retention.bytes", "32768"))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        // Today a topic's overrides reach its partitions only from the next start on (the
        // partitions open before the registry knows the topic); CreateTopics is watched below.
        server.restart();
        String bootstrap = server.bootstrap();
        EventLoopBlockingCalls.arm();
        produce(bootstrap, "hot", "1", 600);
        Path producerIds = dir.resolve("data").resolve("meta").resolve("producer-ids.properties");
        assertThat(producerIds).as("no producer id reserved before the watch").doesNotExist();
        produce(bootstrap, "cold", "all", 3000);
        TopicPartition cold = new TopicPartition("cold", 0);
        Path coldDir = dir.resolve("data").resolve("log").resolve("cold-0");
        assertThat(producerIds)
                .as("InitProducerId reserved a block of producer ids while watched")
                .exists();
        assertThat(highestSegmentBase(coldDir))
                .as("cold-0 rolled while watched (its segments start above offset 0)")
                .isPositive();
        assertThat(Clients.await(Duration.ofSeconds(180), () -> lowestHotOffset(coldDir) > 0))
                .as("cold-0 offloaded and its oldest hot segments deleted (local retention)")
                .isTrue();
        // The reads run on a server with the default offload interval, as in production: the
        // engine's cached cold-tier state then ages as it would between offload rounds.
        server.close();
        server = new ServerHarness(dir.resolve("data"), Map.of("retention.ms", "-1"));
        bootstrap = server.bootstrap();

        assertThat(readAll(bootstrap, cold, true))
                .as("records of cold-0 (cold, then hot)")
                .isEqualTo(3000);
        assertThat(
                        readAll(bootstrap, new TopicPartition("hot", 0), false)
                                + readAll(bootstrap, new TopicPartition("hot", 1), false))
                .as("records of hot")
                .isEqualTo(600);
        fetchOverBudgetAndOutOfRange(bootstrap, cold);
        listOffsetsAndMetadata(bootstrap, cold);
        consumerGroup(bootstrap);
        createAndDeleteTopic(bootstrap);
        partitionsProducersClusterAclsAndTieredOffsets(bootstrap, cold);

        Map<EventLoopBlockingCalls.Allowance, Long> byDesign =
                EventLoopBlockingCalls.allowedByDesign();
        List<EventLoopBlockingCalls.Call> calls = EventLoopBlockingCalls.disarm();
        List<Thread> loops =
                Thread.getAllStackTraces().keySet().stream()
                        .filter(EventLoopNeverBlocksIT::runsAnEventLoop)
                        .toList();
        assertThat(loops).as("Netty event-loop threads of the server").isNotEmpty();
        assertThat(
                        loops.stream()
                                .filter(t -> !EventLoopBlockingCalls.watched(t))
                                .map(Thread::getName))
                .as("Netty event-loop threads the watch does not cover")
                .isEmpty();
        String report = EventLoopBlockingCalls.report(calls);
        StringBuilder allowedLines = new StringBuilder();
        byDesign.forEach(
                (a, n) ->
                        allowedLines.append(
                                String.format(
                                        "%n  %s from %s: %d times (%s)",
                                        a.nativeMethod(), a.frames(), n, a.why())));
        Path out = Path.of("target", "event-loop-blocking-calls.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(
                out,
                (calls.isEmpty() ? "none" : report)
                        + System.lineSeparator()
                        + "allowed by design:"
                        + allowedLines);
        if (!calls.isEmpty()) {
            fail("blocking calls on the server's event loops (distinct call sites):" + report);
        }
        assertThat(byDesign.get(EventLoopBlockingCalls.APPEND_TO_PAGE_CACHE))
                .as("produced batches appended on the event loop (the page-cache write)")
                .isPositive();
    }

    /**
     * CreatePartitions, DescribeProducers, DescribeCluster, DescribeAcls and ListOffsets -3 to -6
     * through the AdminClient.
     */
    private static void partitionsProducersClusterAclsAndTieredOffsets(
            String bootstrap, TopicPartition cold) throws Exception {
        try (Admin admin = Clients.admin(bootstrap)) {
            admin.createPartitions(
                            Map.of(
                                    "hot",
                                    org.apache.kafka.clients.admin.NewPartitions.increaseTo(3)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            assertThat(admin.describeCluster().nodes().get(60, TimeUnit.SECONDS)).hasSize(1);
            admin.describeProducers(List.of(cold, new TopicPartition("hot", 0)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            for (org.apache.kafka.clients.admin.OffsetSpec spec :
                    List.of(
                            org.apache.kafka.clients.admin.OffsetSpec.maxTimestamp(),
                            org.apache.kafka.clients.admin.OffsetSpec.earliestLocal(),
                            org.apache.kafka.clients.admin.OffsetSpec.latestTiered(),
                            org.apache.kafka.clients.admin.OffsetSpec.earliestPendingUpload())) {
                admin.listOffsets(Map.of(cold, spec)).all().get(60, TimeUnit.SECONDS);
            }
            assertThatThrownBy(
                            () ->
                                    admin.describeAcls(
                                                    org.apache.kafka.common.acl.AclBindingFilter
                                                            .ANY)
                                            .values()
                                            .get(60, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(
                            org.apache.kafka.common.errors.SecurityDisabledException.class);
        }
    }

    private static long highestSegmentBase(Path partitionDir) throws java.io.IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".log"))
                    .mapToLong(n -> Long.parseLong(n.substring(0, n.length() - 4)))
                    .max()
                    .orElse(0);
        }
    }

    /** The watch catches file I/O, sleep and SQLite JDBC on an event loop of our own. */
    private void watchCatchesFileIoSleepAndJdbcOnANettyEventLoop() throws Exception {
        Path file = dir.resolve("control.txt");
        Files.writeString(file, "x");
        String db = "jdbc:sqlite:" + dir.resolve("control.db");
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            EventLoopBlockingCalls.arm();
            loop.submit(
                            () -> {
                                Files.readAllBytes(file);
                                Thread.sleep(1);
                                try (Connection c = DriverManager.getConnection(db);
                                        ResultSet r =
                                                c.createStatement().executeQuery("SELECT 1")) {
                                    r.next();
                                }
                                return null;
                            })
                    .get(60, TimeUnit.SECONDS);
            List<String> caught =
                    EventLoopBlockingCalls.disarm().stream()
                            .map(EventLoopBlockingCalls.Call::method)
                            .toList();
            assertThat(caught)
                    .as("control: blocking calls caught on a Netty event loop")
                    .anyMatch(m -> m.contains("FileDispatcherImpl") || m.contains("open0"))
                    .anyMatch(m -> m.contains("sleep"))
                    .anyMatch(m -> m.contains("org.sqlite.core.NativeDB"));
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static boolean runsAnEventLoop(Thread t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().startsWith("io.netty.channel.")
                    && e.getClassName().contains("IoEventLoop")) {
                return true;
            }
        }
        return false;
    }

    private static void produce(String bootstrap, String topic, String acks, int n)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, acks.equals("all"));
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 4096);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sent.add(
                        producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        null,
                                        BASE_TS + i,
                                        Clients.key(topic, i),
                                        (new String(Clients.value(topic, i), StandardCharsets.UTF_8)
                                                        + "-".repeat(i % 300))
                                                .getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** Reads {@code tp} from the earliest offset to its end; returns the number of records. */
    private static int readAll(String bootstrap, TopicPartition tp, boolean keysInOrder) {
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            int n = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (keysInOrder) {
                        assertThat(Clients.index(r.key())).as("key at %s", r.offset()).isEqualTo(n);
                    }
                    n++;
                }
            }
            return n;
        }
    }

    /**
     * Fetches whose response fills before every partition is read (the rest answer with their
     * offsets only) and a fetch out of range (answered with the partition's offsets, then reset).
     */
    private static void fetchOverBudgetAndOutOfRange(String bootstrap, TopicPartition cold) {
        List<TopicPartition> all =
                List.of(cold, new TopicPartition("hot", 0), new TopicPartition("hot", 1));
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 1024);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1024);
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(all);
            Map<TopicPartition, Long> ends = c.endOffsets(all);
            // Several passes: the engine refreshes its cached cold-tier state every second, and
            // an offsets-only answer meets a stale one only now and then.
            for (int pass = 0; pass < 3; pass++) {
                c.seekToBeginning(all);
                int read = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
                while (all.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))
                        && System.nanoTime() < deadline) {
                    read += c.poll(Duration.ofMillis(500)).count();
                }
                assertThat(read).as("records read with a 1 KiB fetch budget").isEqualTo(3600);
            }
            c.seek(cold, 1_000_000);
            long deadline2 = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.position(cold) >= 1_000_000 && System.nanoTime() < deadline2) {
                c.poll(Duration.ofMillis(200));
            }
            assertThat(c.position(cold)).as("position reset after out of range").isLessThan(3000);
        }
    }

    private static void listOffsetsAndMetadata(String bootstrap, TopicPartition cold)
            throws Exception {
        try (Admin admin = Clients.admin(bootstrap)) {
            for (OffsetSpec spec :
                    List.of(
                            OffsetSpec.earliest(),
                            OffsetSpec.latest(),
                            OffsetSpec.maxTimestamp(),
                            OffsetSpec.forTimestamp(BASE_TS + 10),
                            OffsetSpec.forTimestamp(BASE_TS + 2990))) {
                Map<TopicPartition, OffsetSpec> q = new HashMap<>();
                q.put(cold, spec);
                q.put(new TopicPartition("hot", 0), spec);
                admin.listOffsets(q).all().get(60, TimeUnit.SECONDS);
            }
            admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
            admin.listTopics().names().get(60, TimeUnit.SECONDS);
            admin.describeTopics(List.of("hot", "cold")).allTopicNames().get(60, TimeUnit.SECONDS);
            admin.describeConfigs(
                            List.of(
                                    new ConfigResource(ConfigResource.Type.TOPIC, "cold"),
                                    new ConfigResource(ConfigResource.Type.BROKER, "0")))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
            c.partitionsFor("cold");
            Map<TopicPartition, OffsetAndTimestamp> at =
                    c.offsetsForTimes(Map.of(cold, BASE_TS + 5));
            assertThat(at.get(cold).offset())
                    .as("offset for a timestamp in the cold tier")
                    .isEqualTo(5);
        }
    }

    private static void consumerGroup(String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "watched");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        int read = 0;
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of("hot", "cold"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (read < 3600 && System.nanoTime() < deadline) {
                read += c.poll(Duration.ofMillis(500)).count();
                c.commitSync();
            }
            assertThat(read).as("records read by the group").isEqualTo(3600);
            c.committed(c.assignment());
        }
        try (Admin admin = Clients.admin(bootstrap)) {
            assertThat(
                            admin.listConsumerGroupOffsets("watched")
                                    .partitionsToOffsetAndMetadata()
                                    .get(60, TimeUnit.SECONDS))
                    .as("committed offsets of the group")
                    .hasSize(3);
        }
    }

    private static void createAndDeleteTopic(String bootstrap) throws Exception {
        try (Admin admin = Clients.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic("scratch", 3, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            // A fetch out of range on partitions just created: answered with their offsets.
            List<TopicPartition> scratch = Clients.partitions("scratch", 3);
            try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
                c.assign(scratch);
                scratch.forEach(tp -> c.seek(tp, 1_000_000));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (scratch.stream().anyMatch(tp -> c.position(tp) >= 1_000_000)
                        && System.nanoTime() < deadline) {
                    c.poll(Duration.ofMillis(200));
                }
                assertThat(scratch.stream().mapToLong(c::position).max().orElseThrow())
                        .as("positions of scratch reset after out of range")
                        .isZero();
            }
            produce(bootstrap, "scratch", "all", 10);
            // topic and dynamic broker configs: a catalog update and a durable file write
            admin.incrementalAlterConfigs(
                            Map.of(
                                    new org.apache.kafka.common.config.ConfigResource(
                                            org.apache.kafka.common.config.ConfigResource.Type
                                                    .TOPIC,
                                            "scratch"),
                                    List.of(
                                            new org.apache.kafka.clients.admin.AlterConfigOp(
                                                    new org.apache.kafka.clients.admin.ConfigEntry(
                                                            "retention.ms", "600000"),
                                                    org.apache.kafka.clients.admin.AlterConfigOp
                                                            .OpType.SET)),
                                    new org.apache.kafka.common.config.ConfigResource(
                                            org.apache.kafka.common.config.ConfigResource.Type
                                                    .BROKER,
                                            ""),
                                    List.of(
                                            new org.apache.kafka.clients.admin.AlterConfigOp(
                                                    new org.apache.kafka.clients.admin.ConfigEntry(
                                                            "log.flush.interval.ms", "600000"),
                                                    org.apache.kafka.clients.admin.AlterConfigOp
                                                            .OpType.SET))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            admin.deleteTopics(List.of("scratch")).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static long lowestHotOffset(Path partitionDir) {
        try (Stream<Path> files = Files.list(partitionDir)) {
            List<Long> bases = new ArrayList<>();
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".log"))
                    .forEach(n -> bases.add(Long.parseLong(n.substring(0, n.length() - 4))));
            return bases.stream().mapToLong(Long::longValue).min().orElse(0);
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}

package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.InProcessCli;
import io.tierlog.itests.testing.ServeProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka Connect 4.4 in distributed mode, run in this JVM as {@code connect-distributed} runs
 * it, against a tiered tierlog server with small segments and a small local retention (so Connect's
 * reads of its internal topics from offset 0 after a restart come partly from the cold tier).
 * Connect creates its three internal topics itself (compacted, which Connect checks with
 * describeConfigs at startup); the connectors are configured through Connect's REST API, as users
 * do. A FileStreamSource reads a file into a topic and a FileStreamSink writes it back out.
 *
 * <p>What Connect promises, and what is asserted: delivery is at least once, and a restarted worker
 * resumes from the last committed positions (the source task's file position in the offsets topic,
 * the sink's consumer-group offset). Duplicates may only be records after the last commit. A
 * graceful stop commits both, so once the test has read back that the committed source position is
 * the whole file and the sink group's committed offset is the topic's end, at-least-once allows no
 * duplicate at all: the sink file must equal the source file line for line. A lost source offset
 * would replay the file from byte 0 (duplicates); a lost connector config would deliver nothing
 * after the restart.
 */
class KafkaConnectDistributedIT {
    private static final String TOPIC = "lines";
    private static final String SOURCE = "file-source";
    private static final String SINK = "file-sink";
    private static final String CONFIGS = "connect-configs";
    private static final String OFFSETS = "connect-offsets";
    private static final String STATUS = "connect-status";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir Path dir;
    private ServerHarness server;
    private Process serve;
    private String bootstrap;
    private Connect<DistributedHerder> connect;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @AfterEach
    void stop() {
        if (connect != null) {
            connect.stop();
        }
        if (server != null) {
            server.close();
        }
        if (serve != null) {
            serve.destroyForcibly();
        }
    }

    @Test
    void aFileRoundTripsThroughConnectsOwnCompactedTopicsAcrossRestartsOfConnectAndTierlog()
            throws Exception {
        Map<String, String> s = new HashMap<>();
        s.put("num.partitions", "1");
        s.put("segment.bytes", "1024");
        s.put("local.retention.bytes", "512");
        s.put("retention.check.interval.ms", "200");
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "200");
        s.put("offload.target.object.bytes", "1024");
        server = new ServerHarness(dir.resolve("data"), s);
        bootstrap = server.bootstrap();
        Path source = dir.resolve("source.txt");
        Path sink = dir.resolve("sink.txt");
        List<String> lines = lines(0, 300);
        Files.write(source, lines, StandardCharsets.UTF_8);

        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        connect = startConnect();
        URI rest = connect.rest().serverUrl();
        post(
                rest,
                SOURCE,
                Map.of(
                        "connector.class", "FileStreamSource",
                        "tasks.max", "1",
                        "file", source.toString(),
                        "topic", TOPIC,
                        "batch.size", "50"));
        post(
                rest,
                SINK,
                Map.of(
                        "connector.class",
                        "FileStreamSink",
                        "tasks.max",
                        "1",
                        "file",
                        sink.toString(),
                        "topics",
                        TOPIC));
        awaitSinkHolds(sink, lines);

        try (Admin admin = admin()) {
            for (String t : List.of(CONFIGS, OFFSETS, STATUS)) {
                assertThat(cleanupPolicy(admin, t))
                        .as("Connect created %s compacted", t)
                        .isEqualTo("compact");
            }
        }

        connect.stop();
        connect = null;
        for (String t : List.of(CONFIGS, TOPIC)) {
            Await.until(
                    t + "-0 starts in the cold tier only",
                    () -> server.server().engine().inspect(Optional.of(t)).get(0),
                    r -> r.coldObjects() > 0 && r.hotLogStartOffset() > r.coldLogStartOffset(),
                    TIMEOUT);
        }
        InProcessCli.Cli inspect =
                InProcessCli.run("inspect", "--set", "data.dir=" + dir.resolve("data"), OFFSETS);
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out())
                .as("tierlog inspect shows how far compaction got on Connect's compacted topic")
                .contains(OFFSETS + "-0", "\n    compaction  hot dirty ratio ");
        long committedPosition = committedSourcePosition(source);
        assertThat(committedPosition)
                .as("a graceful stop commits the source task's position: the whole file")
                .isEqualTo(Files.size(source));
        try (Admin admin = admin()) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            long end =
                    admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                            .partitionResult(tp)
                            .get(30, TimeUnit.SECONDS)
                            .offset();
            assertThat(end).as("one record per line").isEqualTo(lines.size());
            Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets("connect-" + SINK)
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS);
            assertThat(committed.get(tp).offset())
                    .as("a graceful stop commits the sink's consumer offset: the topic's end")
                    .isEqualTo(end);
        }

        server.restart();
        List<String> more = lines(300, 450);
        Files.write(source, more, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        List<String> all = new ArrayList<>(lines);
        all.addAll(more);

        connect = startConnect();
        URI rest2 = connect.rest().serverUrl();
        JsonNode names =
                Await.until(
                        "the connectors, read back from Connect's config topic",
                        () -> getJson(rest2, "/connectors"),
                        n -> n != null && n.size() == 2,
                        TIMEOUT);
        assertThat(names.toString()).contains(SOURCE, SINK);
        awaitSinkHolds(sink, all);
        assertThat(status(rest2, SOURCE)).isEqualTo("RUNNING");
        assertThat(status(rest2, SINK)).isEqualTo("RUNNING");
    }

    /**
     * tierlog killed with SIGKILL while Connect streams a file through it, then started again on
     * the same port and data dir; Connect's clients reconnect by themselves. At least once: every
     * line reaches the sink, in order; a line may come again only as part of a replayed run (the
     * sink's consumer resumes from its last committed offset, the source from its last committed
     * file position), never skipped and never out of order.
     */
    @Test
    void aKillMinus9OfTierlogMidStreamLosesNoLineAndOnlyReplaysRuns() throws Exception {
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path data = dir.resolve("data");
        String[] sets = {"segment.bytes=4096", "offload.interval.ms=200", "num.partitions=1"};
        Path logs = Files.createDirectories(Path.of("target", "connect-kill-logs"));
        serve = ServeProcess.start(logs.resolve("serve-1.log"), port, data, sets);
        bootstrap = "127.0.0.1:" + port;
        Path source = dir.resolve("source.txt");
        Path sink = dir.resolve("sink.txt");
        List<String> all = lines(0, 2000);
        Files.write(source, all.subList(0, 200), StandardCharsets.UTF_8);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        connect = startConnect();
        URI rest = connect.rest().serverUrl();
        post(
                rest,
                SOURCE,
                Map.of(
                        "connector.class", "FileStreamSource",
                        "tasks.max", "1",
                        "file", source.toString(),
                        "topic", TOPIC,
                        "batch.size", "20"));
        post(
                rest,
                SINK,
                Map.of(
                        "connector.class",
                        "FileStreamSink",
                        "tasks.max",
                        "1",
                        "file",
                        sink.toString(),
                        "topics",
                        TOPIC));
        awaitSinkHolds(sink, all.subList(0, 200));

        Files.write(
                source,
                all.subList(200, all.size()),
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        Await.until(
                "the sink part way through the appended lines",
                () -> completeLines(sink).size() >= 400,
                TIMEOUT);
        serve.destroyForcibly().waitFor();
        int atKill = completeLines(sink).size();
        serve = ServeProcess.start(logs.resolve("serve-2.log"), port, data, sets);

        Await.atMost(
                TIMEOUT,
                () -> new java.util.HashSet<>(completeLines(sink)).size(),
                n -> n >= all.size());
        List<String> got = completeLines(sink);
        java.util.Set<String> missing = new java.util.TreeSet<>(all);
        missing.removeAll(got);
        if (!missing.isEmpty()) {
            java.util.Set<String> inTopic = new java.util.HashSet<>();
            Map<String, Object> cc = new HashMap<>();
            cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(cc, new StringDeserializer(), new StringDeserializer())) {
                TopicPartition tp = new TopicPartition(TOPIC, 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long end = consumer.endOffsets(List.of(tp)).get(tp);
                List<String> offsets = new ArrayList<>();
                while (consumer.position(tp) < end) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        for (String m : missing) {
                            if (r.value().contains(m.substring(0, 10))) {
                                offsets.add(r.offset() + ":" + m.substring(0, 10));
                            }
                        }
                    }
                }
                // A line the source task's committed position covers was acknowledged to Connect:
                // missing from the topic, tierlog lost it. A line after that position was never
                // acknowledged: Connect had to send it again (its restarted task did not).
                long position = committedSourcePosition(source);
                List<String> acknowledged = new ArrayList<>();
                long end0 = 0;
                for (String line : all) {
                    end0 += line.getBytes(StandardCharsets.UTF_8).length + 1;
                    if (end0 <= position && missing.contains(line)) {
                        acknowledged.add(line.substring(0, 10));
                    }
                }
                try (Admin admin = admin()) {
                    throw new AssertionError(
                            "missing from the sink: "
                                    + missing
                                    + "; of them acknowledged to Connect (before the committed"
                                    + " source position): "
                                    + acknowledged
                                    + "; in the topic at "
                                    + offsets
                                    + "; end "
                                    + end
                                    + "; sink group "
                                    + admin.listConsumerGroupOffsets("connect-" + SINK)
                                            .partitionsToOffsetAndMetadata()
                                            .get()
                                    + "; committed source position "
                                    + position
                                    + " of "
                                    + Files.size(source));
                }
            }
        }
        int replays = assertAtLeastOnceOrder(got, all);
        System.out.printf(
                "sink: %d lines at the kill, %d in the end for %d distinct, %d replayed runs%n",
                atKill, got.size(), all.size(), replays);
        assertThat(status(rest, SOURCE)).isEqualTo("RUNNING");
        assertThat(status(rest, SINK)).isEqualTo("RUNNING");
    }

    /**
     * Asserts that {@code sink} is {@code source} delivered at least once in order: each line is a
     * source line, the next new line is never skipped, and a repeat only starts a replayed run that
     * goes on in source order. Returns the number of replayed runs.
     */
    private static int assertAtLeastOnceOrder(List<String> sink, List<String> source) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < source.size(); i++) {
            index.put(source.get(i), i);
        }
        int next = 0;
        int previous = -1;
        int replays = 0;
        for (int i = 0; i < sink.size(); i++) {
            Integer k = index.get(sink.get(i));
            assertThat(k).as("sink line %d is a source line: %s", i, sink.get(i)).isNotNull();
            assertThat(k).as("sink line %d skips no source line", i).isLessThanOrEqualTo(next);
            if (k != previous + 1) {
                assertThat(k).as("sink line %d: a repeat starts a replay", i).isLessThan(next);
                replays++;
            }
            next = Math.max(next, k + 1);
            previous = k;
        }
        assertThat(next).as("every source line delivered").isEqualTo(source.size());
        return replays;
    }

    private static List<String> lines(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(String.format("line %05d: the quick brown fox %d", i, i * 7919));
        }
        return out;
    }

    private Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", bootstrap));
    }

    private Connect<DistributedHerder> startConnect() {
        Map<String, String> w = new HashMap<>();
        w.put("bootstrap.servers", bootstrap);
        w.put("group.id", "connect-it");
        w.put("listeners", "http://127.0.0.1:0");
        w.put("rest.advertised.host.name", "127.0.0.1");
        w.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        w.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        w.put("config.storage.topic", CONFIGS);
        w.put("offset.storage.topic", OFFSETS);
        w.put("status.storage.topic", STATUS);
        w.put("config.storage.replication.factor", "1");
        w.put("offset.storage.replication.factor", "1");
        w.put("status.storage.replication.factor", "1");
        w.put("offset.storage.partitions", "3");
        w.put("status.storage.partitions", "2");
        w.put("offset.flush.interval.ms", "1000");
        // A restarted worker is a new member: without this its old assignment would wait out the
        // default five-minute delay of incremental cooperative rebalancing.
        w.put("scheduled.rebalance.max.delay.ms", "0");
        w.put("plugin.discovery", "service_load");
        w.put("consumer.reconnect.backoff.max.ms", "200");
        w.put("producer.reconnect.backoff.max.ms", "200");
        return new ConnectDistributed().startConnect(w);
    }

    private void post(URI rest, String name, Map<String, String> config) throws Exception {
        String body =
                json.writeValueAsString(Map.of("name", name, "config", new HashMap<>(config)));
        HttpResponse<String> r =
                Await.until(
                        "Connect accepts connector " + name,
                        () ->
                                http.send(
                                        HttpRequest.newBuilder(rest.resolve("/connectors"))
                                                .header("Content-Type", "application/json")
                                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString()),
                        res -> res.statusCode() != 503 && res.statusCode() != 409,
                        TIMEOUT);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private JsonNode getJson(URI rest, String path) throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(rest.resolve(path)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? json.readTree(r.body()) : null;
    }

    private String status(URI rest, String connector) throws Exception {
        JsonNode st =
                Await.until(
                        connector + " and its task running",
                        () -> getJson(rest, "/connectors/" + connector + "/status"),
                        n ->
                                n != null
                                        && n.path("connector")
                                                .path("state")
                                                .asText()
                                                .equals("RUNNING")
                                        && n.path("tasks").size() == 1
                                        && n.path("tasks")
                                                .get(0)
                                                .path("state")
                                                .asText()
                                                .equals("RUNNING"),
                        TIMEOUT);
        return st.path("tasks").get(0).path("state").asText();
    }

    /**
     * Waits until the sink file holds {@code expected}: its first {@code expected.size()} lines are
     * awaited, then the whole file must be exactly {@code expected} (no duplicate, nothing extra).
     */
    private static void awaitSinkHolds(Path sink, List<String> expected) throws IOException {
        List<String> got =
                Await.until(
                        "the sink file holds " + expected.size() + " lines",
                        () -> Files.exists(sink) ? completeLines(sink) : List.<String>of(),
                        l -> l.size() >= expected.size(),
                        TIMEOUT);
        assertThat(got).as("the sink file, line for line").containsExactlyElementsOf(expected);
    }

    /** The lines of {@code file} that end with a newline (the sink may be mid-write). */
    private static List<String> completeLines(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n", -1));
    }

    private static String cleanupPolicy(Admin admin, String topic) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
        ConfigEntry e = c.get("cleanup.policy");
        assertThat(e.source())
                .as("set by Connect at creation")
                .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        return e.value();
    }

    /**
     * The file position FileStreamSource last committed for {@code file}: the latest value of its
     * key in Connect's offsets topic, read from offset 0 as Connect reads it.
     */
    private long committedSourcePosition(Path file) throws Exception {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(OFFSETS)
                    .forEach(p -> parts.add(new TopicPartition(OFFSETS, p.partition())));
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long[] position = {-1};
            Await.until(
                    "Connect's offsets topic read to its end",
                    () -> {
                        for (ConsumerRecord<String, String> r :
                                consumer.poll(Duration.ofMillis(200))) {
                            JsonNode key = json.readTree(r.key());
                            if (key.get(0).asText().equals(SOURCE)
                                    && key.get(1).path("filename").asText().equals(file.toString())
                                    && r.value() != null) {
                                position[0] = json.readTree(r.value()).path("position").asLong();
                            }
                        }
                        for (TopicPartition tp : parts) {
                            if (consumer.position(tp) < end.get(tp)) {
                                return false;
                            }
                        }
                        return true;
                    },
                    TIMEOUT);
            return position[0];
        }
    }
}

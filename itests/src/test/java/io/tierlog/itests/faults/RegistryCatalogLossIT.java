package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.itests.testing.InProcessCli;
import io.tierlog.itests.testing.InProcessCli.Cli;
import io.tierlog.itests.testing.ServeProcess;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema registry survives a lost catalog: schemas registered over the REST API (Avro with a
 * reference, JSON Schema, Protobuf, a soft and a hard delete), Avro values produced and offloaded,
 * the catalog deleted and rebuilt from the bucket with {@code tierlog catalog rebuild}: the same
 * ids and versions answer, a new registration gets an id above every old one, and a consumer
 * reading the cold tier gets the produced bytes. And a {@code serve} killed with kill -9 while
 * registering leaves nothing acknowledged out of the bucket's copy once a server ran again. Real
 * servers (in process and a child for kill -9), embedded S3 in the data dir, SQLite catalog, real
 * HTTP.
 */
class RegistryCatalogLossIT {
    private static final String TOPIC = "orders";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final String CT = "application/vnd.schemaregistry.v1+json";
    private static final String ADDRESS =
            "{\"type\":\"record\",\"name\":\"Address\",\"namespace\":\"com.acme\",\"fields\":"
                    + "[{\"name\":\"city\",\"type\":\"string\"}]}";
    private static final String ORDER =
            "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.acme\",\"fields\":"
                    + "[{\"name\":\"id\",\"type\":\"long\"},"
                    + "{\"name\":\"to\",\"type\":\"com.acme.Address\"}]}";

    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir Path dir;

    private Path dataDir() {
        return dir.resolve("data");
    }

    private Config config(int port) {
        Map<String, String> s = TieredServers.settings(dataDir(), port, 64 << 10);
        s.put("local.retention.bytes", Integer.toString(128 << 10));
        return Config.of(s);
    }

    @Test
    void aCatalogRebuiltFromTheBucketServesTheSameIdsAndVersionsAndNumbersOnAboveThem()
            throws Exception {
        int n = 20_000;
        Map<String, String> before = new TreeMap<>();
        int orderId;
        TierlogServer server = TierlogServer.start(config(0));
        int port = server.port();
        try {
            URI r = server.schemaRegistryUri().orElseThrow();
            int address = register(r, "address", avro(ADDRESS, ""));
            orderId =
                    register(
                            r,
                            TOPIC + "-value",
                            avro(
                                    ORDER,
                                    ",\"references\":[{\"name\":\"com.acme.Address\","
                                            + "\"subject\":\"address\",\"version\":1}]"));
            register(
                    r,
                    "json-value",
                    "{\"schemaType\":\"JSON\",\"schema\":"
                            + quote(
                                    "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}")
                            + "}");
            register(
                    r,
                    "proto-value",
                    "{\"schemaType\":\"PROTOBUF\",\"schema\":"
                            + quote("syntax = \"proto3\";\nmessage Click {\n  string url = 1;\n}\n")
                            + "}");
            int gone =
                    register(
                            r,
                            "gone-value",
                            avro("{\"type\":\"record\",\"name\":\"Gone\",\"fields\":[]}", ""));
            assertThat(call(r, "DELETE", "/subjects/proto-value/versions/1", null)).isEqualTo("1");
            call(r, "DELETE", "/subjects/gone-value", null);
            call(r, "DELETE", "/subjects/gone-value?permanent=true", null);
            assertThat(address).isEqualTo(1);
            assertThat(gone).isEqualTo(5);
            for (int id = 1; id <= 4; id++) { // 5 is served again only once re-registered
                before.put("/schemas/ids/" + id, call(r, "GET", "/schemas/ids/" + id, null));
            }
            for (String path :
                    List.of(
                            "/subjects?deleted=true",
                            "/subjects/" + TOPIC + "-value/versions/1",
                            "/subjects/proto-value/versions?deleted=true",
                            "/schemas/ids/2/versions")) {
                before.put(path, call(r, "GET", path, null));
            }
            int id = orderId;
            TieredServers.produce("127.0.0.1:" + port, TOPIC, 0, n, i -> value(id, i));
            TieredWaits.awaitOffloaded(server, TOPIC, 192 << 10, Duration.ofMinutes(3));
            io.micrometer.core.instrument.Counter once =
                    server.engine()
                            .meterRegistry()
                            .find(io.tierlog.engine.MetricNames.OFFLOAD_TYPED_RECORDS)
                            .tags("part", "value", "stored", "once")
                            .counter();
            assertThat(once == null ? 0 : once.count())
                    .as(
                            "values were stored once (typed only): after the rebuild they can"
                                    + " only come back through the restored schemas")
                    .isPositive();
            server.engine().logManager().runHousekeeping();
            assertThat(server.engine().offsets(TP).hotLogStartOffset())
                    .as("local retention deleted offloaded segments: the start is only cold")
                    .isPositive();
        } finally {
            server.close();
        }
        for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
            Files.deleteIfExists(dataDir().resolve("catalog.db" + suffix));
        }

        Cli rebuild = InProcessCli.run("catalog", "rebuild", "--set", "data.dir=" + dataDir());
        assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
        assertThat(rebuild.out())
                .contains("schema registry copy: 5 schemas (highest id 5)")
                .contains("schema registry imported: 5 schemas");
        Cli verify = InProcessCli.run("verify", "--set", "data.dir=" + dataDir());
        assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();

        server = TierlogServer.start(config(port));
        try {
            URI r = server.schemaRegistryUri().orElseThrow();
            for (Map.Entry<String, String> e : before.entrySet()) {
                assertThat(call(r, "GET", e.getKey(), null)).as(e.getKey()).isEqualTo(e.getValue());
            }
            assertThat(register(r, "fresh-value", avro("{\"type\":\"string\"}", "")))
                    .as("above every id handed out before the loss")
                    .isEqualTo(6);
            assertThat(
                            call(
                                    r,
                                    "POST",
                                    "/subjects/gone-value/versions",
                                    avro(
                                            "{\"type\":\"record\",\"name\":\"Gone\",\"fields\":[]}",
                                            "")))
                    .as("the hard-deleted schema keeps its id")
                    .isEqualTo("{\"id\":5}");
            assertThat(call(r, "GET", "/subjects/gone-value/versions", null))
                    .as("the hard-deleted subject's version 1 is never reused")
                    .isEqualTo("[2]");
            try (KafkaConsumer<byte[], byte[]> c =
                    TieredServers.consumer(
                            "127.0.0.1:" + port,
                            Map.of(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 10))) {
                c.assign(List.of(TP));
                c.seekToBeginning(List.of(TP));
                int id = orderId;
                assertThat(
                                TieredWaits.readInOrder(
                                        c,
                                        0,
                                        n,
                                        Duration.ofMinutes(3),
                                        TieredServers.produced(i -> value(id, i))))
                        .isEqualTo(n);
            }
        } finally {
            server.close();
        }
    }

    @Test
    void aServeKilledWhileRegisteringLeavesEveryAcknowledgedIdInTheBucketOnceAServerRanAgain()
            throws Exception {
        int kafka = freePort();
        int registry = freePort();
        URI r = URI.create("http://127.0.0.1:" + registry);
        Process p =
                ServeProcess.start(
                        dir.resolve("serve.log"),
                        kafka,
                        dataDir(),
                        "schema.registry.listen=127.0.0.1:" + registry);
        Map<Integer, String> acknowledged = new TreeMap<>();
        try {
            // record names change from one registration to the next: no compatibility to keep
            call(r, "PUT", "/config", "{\"compatibility\":\"NONE\"}");
            for (int i = 0; i < 40; i++) {
                String schema = "{\"type\":\"record\",\"name\":\"R" + i + "\",\"fields\":[]}";
                acknowledged.put(register(r, "s" + (i % 7) + "-value", avro(schema, "")), schema);
            }
            // more in flight when the process dies: some are committed, none acknowledged
            Thread t =
                    new Thread(
                            () -> {
                                for (int i = 40; i < 400; i++) {
                                    try {
                                        register(
                                                r,
                                                "s" + (i % 7) + "-value",
                                                avro(
                                                        "{\"type\":\"record\",\"name\":\"R"
                                                                + i
                                                                + "\",\"fields\":[]}",
                                                        ""));
                                    } catch (Exception e) {
                                        return;
                                    }
                                }
                            });
            t.start();
            p.destroyForcibly(); // SIGKILL
            p.waitFor(30, TimeUnit.SECONDS);
            t.join(60_000);
        } finally {
            p.destroyForcibly();
        }
        TierlogServer server = TierlogServer.start(config(0));
        int max;
        try {
            URI again = server.schemaRegistryUri().orElseThrow();
            // answered after this process's copy pass, which copies whatever the bucket lacks
            max = register(again, "after-value", avro("{\"type\":\"int\"}", ""));
        } finally {
            server.close();
        }
        assertThat(max).isGreaterThan(acknowledged.size());
        Cli verify = InProcessCli.run("verify", "--set", "data.dir=" + dataDir());
        assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
        for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
            Files.deleteIfExists(dataDir().resolve("catalog.db" + suffix));
        }
        Cli rebuild = InProcessCli.run("catalog", "rebuild", "--set", "data.dir=" + dataDir());
        assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
        assertThat(rebuild.out()).contains("(highest id " + max + ")");
        server = TierlogServer.start(config(0));
        try {
            URI after = server.schemaRegistryUri().orElseThrow();
            for (Map.Entry<Integer, String> e : acknowledged.entrySet()) {
                assertThat(call(after, "GET", "/schemas/ids/" + e.getKey() + "/schema", null))
                        .as("schema " + e.getKey())
                        .isEqualTo(e.getValue());
            }
            assertThat(register(after, "new-value", avro("{\"type\":\"long\"}", "")))
                    .isEqualTo(max + 1);
            assertThat(call(after, "GET", "/config", null)).contains("\"NONE\"");
        } finally {
            server.close();
        }
    }

    // ---------------------------------------------------------------------------------------

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A Confluent wire-format Avro value of Order{id: i, to: {city: "city-i"}}. */
    private static byte[] value(int schemaId, long i) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0);
        b.write(schemaId >>> 24);
        b.write(schemaId >>> 16);
        b.write(schemaId >>> 8);
        b.write(schemaId);
        zigzag(b, i);
        byte[] city = ("city-" + i).getBytes(StandardCharsets.UTF_8);
        zigzag(b, city.length);
        b.writeBytes(city);
        return b.toByteArray();
    }

    private static void zigzag(ByteArrayOutputStream b, long v) {
        long z = (v << 1) ^ (v >> 63);
        while ((z & ~0x7FL) != 0) {
            b.write((int) ((z & 0x7F) | 0x80));
            z >>>= 7;
        }
        b.write((int) z);
    }

    private static String avro(String schema, String more) {
        return "{\"schema\":" + quote(schema) + more + "}";
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private int register(URI r, String subject, String body) throws Exception {
        String out = call(r, "POST", "/subjects/" + subject + "/versions", body);
        Matcher m = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private String call(URI r, String method, String path, String body) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(r.resolve(path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", CT);
        b.method(
                method,
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> resp = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IOException(
                    method + " " + path + ": " + resp.statusCode() + " " + resp.body());
        }
        return resp.body();
    }
}

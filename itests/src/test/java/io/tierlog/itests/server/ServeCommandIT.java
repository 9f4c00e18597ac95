package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.testing.ServeProcess;
import io.tierlog.itests.testing.TieredWaits;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlog serve} as its own process: configured by {@code --config FILE} and {@code --set},
 * serves clients, and on SIGTERM shuts down cleanly (clean-shutdown marker written), after which a
 * new server on the same data dir serves every acknowledged record.
 */
class ServeCommandIT {
    @TempDir Path dir;

    @Test
    void serveRunsUntilSigtermThenShutsDownCleanlyKeepingEveryRecord() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = dir.resolve("data");
        Path props = dir.resolve("server.properties");
        Files.writeString(props, "num.partitions=2\nlisteners=PLAINTEXT://127.0.0.1:1\n");
        String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd =
                List.of(
                        javaExe,
                        "-Xmx512m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.tierlog.server.cli.TierlogCli",
                        "serve",
                        "--config",
                        props.toString(),
                        "--set",
                        "listeners=PLAINTEXT://127.0.0.1:" + port,
                        "--set",
                        "schema.registry.listen=",
                        "--set",
                        "data.dir=" + data);
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("serve.log").toFile())
                        .start();
        try {
            assertThat(Clients.await(Duration.ofSeconds(60), () -> ServeProcess.accepts(port)))
                    .as("server listening; log: %s", dir.resolve("serve.log"))
                    .isTrue();
            String bootstrap = "127.0.0.1:" + port;
            try (KafkaProducer<byte[], byte[]> prod = Clients.producer(bootstrap, "snappy")) {
                for (int i = 0; i < 1000; i++) {
                    prod.send(
                                    new ProducerRecord<>(
                                            "served", Clients.key("s", i), Clients.value("s", i)))
                            .get();
                }
            }
        } finally {
            p.destroy(); // SIGTERM
        }
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        String log = Files.readString(dir.resolve("serve.log"));
        assertThat(log).contains("tierlog stopped");
        assertThat(data.resolve("log/.kafka_cleanshutdown")).exists();

        try (ServerHarness again = new ServerHarness(data, Map.of())) {
            List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(again.bootstrap())) {
                List<TopicPartition> tps = Clients.partitions("served", 2);
                c.assign(tps);
                c.seekToBeginning(tps);
                TieredWaits.pollUntil(
                        c,
                        "1000 records",
                        () -> all.size() >= 1000,
                        Duration.ofSeconds(60),
                        all::add);
            }
            assertThat(all).hasSize(1000);
            assertThat(all.stream().map(r -> Clients.index(r.key())).distinct().count())
                    .isEqualTo(1000);
        }
    }

    /**
     * Produce goes through the engine's append: the hot bytes-in counter that {@code serve} exports
     * equals what the producer sent (its per-topic byte total, batch bytes as written) and what the
     * segment files hold.
     */
    @Test
    void hotBytesInCountsExactlyTheBytesProducedThroughServe() throws Exception {
        int port = freePort();
        int metricsPort = freePort();
        Path data = dir.resolve("data");
        Process server =
                startServe(port, data, "metered.log", "metrics.listen=127.0.0.1:" + metricsPort);
        double sent;
        try {
            String bootstrap = "127.0.0.1:" + port;
            Clients.createTopic(bootstrap, "metered", 2);
            try (KafkaProducer<byte[], byte[]> prod = Clients.producer(bootstrap, "lz4")) {
                for (int i = 0; i < 5000; i++) {
                    prod.send(
                            new ProducerRecord<>(
                                    "metered", Clients.key("m", i), Clients.value("m", i)));
                }
                prod.flush();
                sent =
                        prod.metrics().entrySet().stream()
                                .filter(
                                        e ->
                                                e.getKey().name().equals("byte-total")
                                                        && e.getKey()
                                                                .group()
                                                                .equals("producer-topic-metrics")
                                                        && "metered"
                                                                .equals(
                                                                        e.getKey()
                                                                                .tags()
                                                                                .get("topic")))
                                .mapToDouble(
                                        e -> ((Number) e.getValue().metricValue()).doubleValue())
                                .sum();
            }
            assertThat(sent).isGreaterThan(5000);
            assertThat(hotBytesIn(metricsPort)).isEqualTo(sent);
        } finally {
            server.destroy();
        }
        assertThat(server.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        long stored = 0;
        try (var files = Files.walk(data.resolve("log"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                if (f.getParent().getFileName().toString().startsWith("metered-")) {
                    stored += Files.size(f);
                }
            }
        }
        assertThat((double) stored).isEqualTo(sent);
    }

    /** The value of {@code tierlog_bytes_in_total{tier="hot"}} as the endpoint exports it. */
    private static double hotBytesIn(int metricsPort) throws Exception {
        java.net.http.HttpResponse<String> r =
                java.net.http.HttpClient.newHttpClient()
                        .send(
                                java.net.http.HttpRequest.newBuilder(
                                                java.net.URI.create(
                                                        "http://127.0.0.1:"
                                                                + metricsPort
                                                                + "/metrics"))
                                        .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString());
        for (String line : r.body().split("\n")) {
            if (line.startsWith("tierlog_bytes_in_total{") && line.contains("tier=\"hot\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no hot bytes-in counter in:\n" + r.body());
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void killMinus9DuringIdempotentProduceLosesNothingAcknowledgedAndDuplicatesNothing()
            throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = dir.resolve("data");
        Process server = startServe(port, data, "first.log");
        int n = Integer.getInteger("tierlog.it.crashRecords", 60_000);
        java.util.BitSet acked = new java.util.BitSet(n);
        java.util.concurrent.atomic.AtomicInteger ackedCount =
                new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Exception> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        String bootstrap = "127.0.0.1:" + port;
        Clients.createTopic(bootstrap, "crash", 2);
        Thread producer =
                new Thread(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> p =
                                    Clients.producer(bootstrap, "lz4")) {
                                for (int i = 0; i < n; i++) {
                                    int id = i;
                                    p.send(
                                            new ProducerRecord<>(
                                                    "crash",
                                                    Clients.key("c", i),
                                                    Clients.value("c", i)),
                                            (md, e) -> {
                                                if (e != null) {
                                                    failure.compareAndSet(null, e);
                                                } else {
                                                    synchronized (acked) {
                                                        acked.set(id);
                                                    }
                                                    ackedCount.incrementAndGet();
                                                }
                                            });
                                }
                                p.flush();
                            }
                        });
        Process second = null;
        try {
            producer.start();
            assertThat(Clients.await(Duration.ofMinutes(1), () -> ackedCount.get() > n / 3))
                    .isTrue();
            server.destroyForcibly().waitFor();
            second = startServe(port, data, "second.log");
            producer.join(Duration.ofMinutes(3).toMillis());
            assertThat(producer.isAlive()).isFalse();
            assertThat(failure.get()).as("send failure").isNull();
            assertThat(ackedCount.get()).isEqualTo(n);

            java.util.BitSet seen = new java.util.BitSet(n);
            int[] count = {0};
            try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
                List<TopicPartition> tps = Clients.partitions("crash", 2);
                c.assign(tps);
                c.seekToBeginning(tps);
                TieredWaits.pollUntil(
                        c,
                        n + " records",
                        () -> count[0] >= n,
                        Duration.ofSeconds(90),
                        r -> {
                            int i = Clients.index(r.key());
                            assertThat(seen.get(i)).as("duplicate %d", i).isFalse();
                            seen.set(i);
                            count[0]++;
                        });
                assertThat(c.poll(Duration.ofMillis(300))).isEmpty();
            }
            java.util.BitSet lost = (java.util.BitSet) acked.clone();
            lost.andNot(seen);
            assertThat(lost.cardinality()).as("acknowledged but lost").isZero();
            assertThat(count[0]).isEqualTo(n);
        } finally {
            server.destroyForcibly();
            if (second != null) {
                second.destroy();
                second.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    private Process startServe(int port, Path data, String logName, String... sets)
            throws Exception {
        return ServeProcess.start(dir.resolve(logName), port, data, sets);
    }
}

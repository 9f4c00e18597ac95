package io.tierlog.itests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.iceberg.TableReader.LiveFile;
import io.tierlog.itests.iceberg.TableReader.TableView;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's freshness contract: with {@code iceberg.freshness.target.ms=10000} and a trickle
 * producer (about 1 record/s to each of 3 partitions, for {@code tierlog.iceberg.freshness.seconds}
 * s, default 45), every acknowledged record becomes queryable in the Iceberg table (a live data
 * file of its partition covers its offset, read from {@code iceberg.db} every 500 ms) less than the
 * target after it was sent, including the last ones of an idle partition (the wall-clock roll
 * drives them out); the exported breach counter stays at zero. Prints p50/p99/max lag.
 */
class IcebergFreshnessIT {
    private static final String TOPIC = "fresh";
    private static final long TARGET_MS = 10_000;
    private static final int SECONDS = Integer.getInteger("tierlog.iceberg.freshness.seconds", 45);

    @TempDir Path dir;

    @Test
    void trickleProducerRecordsAreQueryableInTheTableWithinTheFreshnessTarget() throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.iceberg", "warn");
        Path data = dir.resolve("data");
        int port;
        int metricsPort;
        try (ServerSocket a = new ServerSocket(0);
                ServerSocket b = new ServerSocket(0)) {
            port = a.getLocalPort();
            metricsPort = b.getLocalPort();
        }
        Map<String, String> s = new HashMap<>();
        s.put("data.dir", data.toString());
        s.put("schema.registry.listen", "");
        s.put("num.network.threads", "2");
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "200");
        s.put("metrics.listen", "127.0.0.1:" + metricsPort);
        s.put("iceberg.freshness.target.ms", Long.toString(TARGET_MS));
        ServerChild server = new ServerChild(port, s, dir.resolve("serve.log"));
        TableReader reader = new TableReader(data, "tierlog");
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            tps.add(new TopicPartition(TOPIC, p));
        }
        TrickleProducer producer = new TrickleProducer(server.bootstrap(), tps, 3, 100);
        // per partition: offset -> first time (ms) a poll saw it queryable
        Map<Integer, Long> registeredNext = new HashMap<>();
        List<long[]> queryable = new ArrayList<>(); // [partition, nextOffset, atMs]
        try {
            server.startListening();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", server.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
            }
            producer.start();
            long stopAt = System.nanoTime() + SECONDS * 1_000_000_000L;
            while (System.nanoTime() < stopAt) {
                poll(reader, registeredNext, queryable);
                Thread.sleep(500); // the poll interval the issue asks for
            }
            producer.stop();
            // the tail: the last records of each partition, then idle, must come out too
            long deadline = System.currentTimeMillis() + 3 * TARGET_MS;
            while (System.currentTimeMillis() < deadline
                    && !allQueryable(producer, registeredNext)) {
                poll(reader, registeredNext, queryable);
                Thread.sleep(500);
            }
            List<Long> lags = new ArrayList<>();
            List<String> late = new ArrayList<>();
            for (TopicPartition tp : tps) {
                for (var e : producer.acks(tp).entrySet()) {
                    long offset = e.getValue().offset();
                    Optional<Long> at = firstQueryable(queryable, tp.partition(), offset);
                    if (at.isEmpty()) {
                        late.add(tp + "@" + offset + " never queryable");
                        continue;
                    }
                    long lag = at.get() - e.getValue().sentAtMs();
                    lags.add(lag);
                    if (lag >= TARGET_MS) {
                        late.add(tp + "@" + offset + " after " + lag + " ms");
                    }
                }
            }
            lags.sort(Long::compare);
            assertThat(lags).as("acknowledged records measured").isNotEmpty();
            System.out.printf(
                    "freshness (target %d ms, poll 500 ms): %d records, lag p50 %d ms, p99 %d ms,"
                            + " max %d ms%n",
                    TARGET_MS,
                    lags.size(),
                    lags.get(lags.size() / 2),
                    lags.get(Math.min(lags.size() - 1, (int) (lags.size() * 0.99))),
                    lags.get(lags.size() - 1));
            String metrics = metrics(metricsPort);
            List<String> freshness =
                    metrics.lines().filter(l -> l.startsWith("tierlog_iceberg_freshness")).toList();
            System.out.println("freshness metrics:\n  " + String.join("\n  ", freshness));
            assertThat(late).as("records past the target (log %s)", server.log()).isEmpty();
            List<String> breaches =
                    freshness.stream()
                            .filter(
                                    l ->
                                            l.contains("breach")
                                                    && l.contains("topic=\"" + TOPIC + "\""))
                            .toList();
            assertThat(breaches).as("the exported breach counter of %s", TOPIC).isNotEmpty();
            for (String l : breaches) {
                assertThat(Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                        .as("breaches: %s", l)
                        .isZero();
            }
        } finally {
            server.kill();
        }
    }

    private static void poll(
            TableReader reader, Map<Integer, Long> registeredNext, List<long[]> queryable) {
        Optional<TableView> t;
        try {
            t = reader.read("tierlog", TOPIC);
        } catch (RuntimeException e) {
            return; // a metadata file replaced under the read: the next poll
        }
        if (t.isEmpty()) {
            return;
        }
        long now = System.currentTimeMillis();
        Map<Integer, Long> next = new HashMap<>();
        for (LiveFile f : t.get().files()) {
            next.merge(f.partition(), f.maxOffset() + 1, Math::max);
        }
        next.forEach(
                (p, n) -> {
                    if (n > registeredNext.getOrDefault(p, 0L)) {
                        registeredNext.put(p, n);
                        queryable.add(new long[] {p, n, now});
                    }
                });
    }

    private static boolean allQueryable(TrickleProducer producer, Map<Integer, Long> next) {
        for (TopicPartition tp : producer.partitions()) {
            var last = producer.acks(tp).lastEntry();
            if (last != null && next.getOrDefault(tp.partition(), 0L) <= last.getValue().offset()) {
                return false;
            }
        }
        return true;
    }

    private static Optional<Long> firstQueryable(List<long[]> queryable, int p, long offset) {
        for (long[] q : queryable) {
            if (q[0] == p && q[1] > offset) {
                return Optional.of(q[2]);
            }
        }
        return Optional.empty();
    }

    private static String metrics(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        return Await.until(
                "the metrics endpoint",
                () -> {
                    try {
                        HttpResponse<String> r =
                                http.send(
                                        HttpRequest.newBuilder(
                                                        URI.create(
                                                                "http://127.0.0.1:"
                                                                        + port
                                                                        + "/metrics"))
                                                .timeout(Duration.ofSeconds(5))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                        return r.statusCode() == 200 ? r.body() : null;
                    } catch (java.io.IOException e) {
                        return null;
                    }
                },
                b -> b != null,
                Duration.ofSeconds(20));
    }
}

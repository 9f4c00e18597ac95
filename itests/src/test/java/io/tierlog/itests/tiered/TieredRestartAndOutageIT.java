package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.TieredLog;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import io.tierlog.server.cli.TierlogCli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server restarted in the middle of a cold read (the consumer resumes; nothing lost or
 * duplicated), then the object store down for a while (an s3proxy this test owns, stopped and
 * started on the same port): hot produce and consume go on, cold reads fail with a retriable error
 * (the consumer just retries), local retention pauses, and everything catches up when S3 returns;
 * {@code tierlog verify} passes at the end.
 */
class TieredRestartAndOutageIT {
    private static final long BASE_TS = TieredServers.BASE_TS;
    private static final String TOPIC = "restart";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir Path dir;
    private ColdTierFixture cold;
    private int port;

    @AfterEach
    void stopS3() throws Exception {
        if (cold != null) {
            cold.close();
        }
    }

    private Config config(int listenerPort) {
        Map<String, String> s =
                cold.engineSettings(
                        cold.endpoint(),
                        TieredServers.settings(cold.dataDir(), listenerPort, 256 << 10));
        s.put("s3.retry.max.attempts", "2");
        s.put("s3.retry.backoff.ms", "20");
        s.put("s3.request.timeout.ms", "3000");
        s.put("offload.retry.timeout.ms", "1000");
        s.put("local.retention.bytes", Integer.toString(512 << 10));
        return Config.of(s);
    }

    private static byte[] value(long i) {
        return ("value-" + i + "-" + "y".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void consumerSurvivesRestartMidColdReadAndTheTiersCatchUpAfterAnS3Outage() throws Exception {
        cold = ColdTierFixture.start(dir);
        int n = Integer.getInteger("tiered.restart.records", 100_000);
        TierlogServer server = TierlogServer.start(config(0));
        port = server.port();
        try {
            produce(0, n);
            awaitOffloaded(server);
            assertThat(server.engine().offsets(TP).hotLogStartOffset()).isGreaterThan(n / 4);

            // A consumer from 0 reads part of the cold range, the server restarts, it resumes.
            try (KafkaConsumer<byte[], byte[]> c = consumer()) {
                c.assign(List.of(TP));
                c.seekToBeginning(List.of(TP));
                long next = readUpTo(c, 0, n / 8);
                server.close();
                server = TierlogServer.start(config(port));
                next = readUpTo(c, next, n);
                assertThat(next).isEqualTo(n);
            }

            // S3 down: hot goes on, cold fails retriably, local retention pauses.
            cold.stopS3();
            TieredLog tiered = server.engine();
            LogOffsets before = tiered.offsets(TP);
            produce(n, n / 5);
            try (KafkaConsumer<byte[], byte[]> c = consumer()) {
                c.assign(List.of(TP));
                c.seek(TP, n);
                assertThat(readUpTo(c, n, n + n / 5)).isEqualTo(n + n / 5);
            }
            // Wait (with a deadline) until the offload loop has tried to upload and failed.
            io.micrometer.core.instrument.Counter putErrors =
                    tiered.meterRegistry()
                            .counter(io.tierlog.engine.MetricNames.S3_ERRORS, "op", "put");
            double errorsBefore = putErrors.count();
            Await.until(
                    "an S3 put error counted",
                    putErrors::count,
                    c -> c > errorsBefore,
                    Duration.ofMinutes(2));
            tiered.logManager().runHousekeeping();
            LogOffsets during = tiered.offsets(TP);
            assertThat(during.coldHighWatermark()).isEqualTo(before.coldHighWatermark());
            assertThat(during.hotLogStartOffset()).isLessThanOrEqualTo(during.coldHighWatermark());
            try (KafkaConsumer<byte[], byte[]> c = consumer()) {
                c.assign(List.of(TP));
                c.seek(TP, 0);
                // Retriable errors: the consumer gets nothing and throws nothing.
                assertThat(c.poll(Duration.ofSeconds(3)).count()).isZero();
            }

            // S3 back: everything catches up and a consumer from 0 reads it all.
            cold.startS3();
            awaitOffloaded(server);
            assertThat(tiered.offsets(TP).hotLogStartOffset())
                    .isGreaterThan(during.hotLogStartOffset());
            try (KafkaConsumer<byte[], byte[]> c = consumer()) {
                c.assign(List.of(TP));
                c.seek(TP, 0);
                assertThat(readUpTo(c, 0, n + n / 5)).isEqualTo(n + n / 5);
            }
        } finally {
            server.close();
        }
        Map<String, String> cli = new HashMap<>(config(0).asMap());
        String[] args = {"verify", "--deep", "--set", "data.dir=" + dir.resolve("data")};
        List<String> all = new java.util.ArrayList<>(List.of(args));
        for (Map.Entry<String, String> e : cli.entrySet()) {
            if (e.getKey().startsWith("s3.")) {
                all.add("--set");
                all.add(e.getKey() + "=" + e.getValue());
            }
        }
        assertThat(TierlogCli.commandLine().execute(all.toArray(String[]::new))).isZero();
    }

    private static void awaitOffloaded(TierlogServer server) {
        TieredWaits.awaitOffloaded(server, TOPIC, (512 << 10) + (256 << 10), Duration.ofMinutes(3));
    }

    /** Polls until the position reaches {@code until}, checking every record; returns it. */
    private static long readUpTo(KafkaConsumer<byte[], byte[]> c, long next, long until) {
        return TieredWaits.readInOrder(
                c,
                next,
                until,
                Duration.ofMinutes(3),
                TieredServers.produced(TieredRestartAndOutageIT::value));
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        return TieredServers.consumer(
                "127.0.0.1:" + port,
                Map.of(
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 10,
                        ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 10));
    }

    private void produce(long from, int count) throws Exception {
        TieredServers.produce(
                "127.0.0.1:" + port, TOPIC, from, count, TieredRestartAndOutageIT::value);
    }
}

package io.tierlog.itests.faults;

import io.micrometer.core.instrument.Counter;
import io.tierlog.common.Config;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.MetricNames;
import io.tierlog.engine.PartitionReport;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A tiered server in this JVM over the embedded s3proxy (optionally through a fault-injecting
 * proxy), with small segments so that produced records go cold quickly, and the producer, consumer
 * and metric helpers the bounded-time and cold-read-error tests share. Not thread-safe.
 */
final class BoundedColdFixture {
    static final long BASE_TS = TieredServers.BASE_TS;
    static final int SEGMENT_BYTES = 64 << 10;

    /** Fetches of at most 64 KiB, so that a read of a range takes many fetches. */
    static final Map<String, Object> SMALL_FETCHES =
            Map.of(
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 10,
                    ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 10);

    private BoundedColdFixture() {}

    /** Server settings over {@code cold}'s S3 server, reached through {@code endpoint}. */
    static Map<String, String> settings(ColdTierFixture cold, URI endpoint) {
        return cold.engineSettings(
                endpoint, TieredServers.settings(cold.dataDir(), 0, SEGMENT_BYTES));
    }

    static TierlogServer start(Map<String, String> settings) throws Exception {
        return TierlogServer.start(Config.of(settings));
    }

    static byte[] value(long i) {
        return ("value-" + i + "-" + "z".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }

    static void produce(TierlogServer server, String topic, long from, int count) throws Exception {
        TieredServers.produce(
                "127.0.0.1:" + server.port(), topic, from, count, BoundedColdFixture::value);
    }

    static KafkaConsumer<byte[], byte[]> consumer(TierlogServer server) {
        // request.timeout.ms stays at its default (30 s): answers must come well inside it.
        return TieredServers.consumer("127.0.0.1:" + server.port(), SMALL_FETCHES);
    }

    /** Waits (with a deadline) until everything closed is offloaded and local retention ran. */
    static PartitionReport awaitOffloaded(TierlogServer server, String topic, long hotBytesAtMost)
            throws InterruptedException {
        return TieredWaits.awaitOffloaded(server, topic, hotBytesAtMost, Duration.ofMinutes(2));
    }

    /**
     * Polls {@code c} from {@code next} until {@code until}, every record the one {@link #produce}
     * wrote at its offset; returns the position reached.
     */
    static long readInOrder(KafkaConsumer<byte[], byte[]> c, long next, long until, Duration t) {
        return TieredWaits.readInOrder(
                c, next, until, t, TieredServers.produced(BoundedColdFixture::value));
    }

    /** Sum of {@link MetricNames#COLD_READ_ERRORS} with {@code cause}. */
    static double coldReadErrors(TierlogServer server, String cause) {
        return count(server, MetricNames.COLD_READ_ERRORS, "cause", cause);
    }

    static double s3Errors(TierlogServer server, String op) {
        return count(server, MetricNames.S3_ERRORS, "op", op);
    }

    /** The server's counter {@code name} with tag {@code key=value}, 0 before its first count. */
    private static double count(TierlogServer server, String name, String key, String value) {
        Counter c = server.engine().meterRegistry().find(name).tag(key, value).counter();
        return c == null ? 0 : c.count();
    }

    /** The consumer's count of fetch responses received (errors included). */
    static double fetchResponses(KafkaConsumer<?, ?> c) {
        return c.metrics().entrySet().stream()
                .filter(
                        e ->
                                e.getKey().name().equals("fetch-total")
                                        && e.getKey()
                                                .group()
                                                .equals("consumer-fetch-manager-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}

package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.tierlog.common.Config;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.MetricNames;
import io.tierlog.engine.PartitionReport;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A tiered server in this JVM over the embedded s3proxy (optionally through a fault-injecting
 * proxy), with small segments so that produced records go cold quickly, and the producer, consumer
 * and metric helpers the bounded-time and cold-read-error tests share. Not thread-safe.
 */
final class BoundedColdFixture {
    static final long BASE_TS = 1_700_000_000_000L;
    static final int SEGMENT_BYTES = 64 << 10;

    private BoundedColdFixture() {}

    /** Server settings over {@code cold}'s S3 server, reached through {@code endpoint}. */
    static Map<String, String> settings(ColdTierFixture cold, URI endpoint) {
        Map<String, String> s = cold.engineSettings(endpoint, Map.of());
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("num.network.threads", "2");
        s.put("num.partitions", "1");
        s.put("segment.bytes", Integer.toString(SEGMENT_BYTES));
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "200");
        return s;
    }

    static TierlogServer start(Map<String, String> settings) throws Exception {
        return TierlogServer.start(Config.of(settings));
    }

    static byte[] value(long i) {
        return ("value-" + i + "-" + "z".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }

    static void produce(TierlogServer server, String topic, long from, int count) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, BASE_TS + i, null, value(i)));
            }
            producer.flush();
        }
    }

    static KafkaConsumer<byte[], byte[]> consumer(TierlogServer server) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 10);
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 << 10);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        // request.timeout.ms stays at its default (30 s): answers must come well inside it.
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
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
                c,
                next,
                until,
                t,
                r -> {
                    assertThat(r.timestamp()).isEqualTo(BASE_TS + r.offset());
                    assertThat(r.value()).isEqualTo(value(r.offset()));
                });
    }

    /** Sum of {@link MetricNames#COLD_READ_ERRORS} with {@code cause}. */
    static double coldReadErrors(TierlogServer server, String cause) {
        Counter c =
                server.broker()
                        .tiered()
                        .get()
                        .meterRegistry()
                        .find(MetricNames.COLD_READ_ERRORS)
                        .tag("cause", cause)
                        .counter();
        return c == null ? 0 : c.count();
    }

    static double s3Errors(TierlogServer server, String op) {
        Counter c =
                server.broker()
                        .tiered()
                        .get()
                        .meterRegistry()
                        .find(MetricNames.S3_ERRORS)
                        .tag("op", op)
                        .counter();
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

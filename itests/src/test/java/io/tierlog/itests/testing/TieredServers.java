package io.tierlog.itests.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the end-to-end tests of a tiered server share: its settings (small segments so that records
 * go cold quickly), and the producer and consumer they talk to it with. Thread-safe: stateless.
 */
public final class TieredServers {
    /** Record {@code i} of a test carries timestamp {@code BASE_TS + i}. */
    public static final long BASE_TS = 1_700_000_000_000L;

    private TieredServers() {}

    /**
     * A tiered server on loopback {@code port} (0: any) over {@code dataDir}: two network threads,
     * one partition per topic, segments of {@code segmentBytes}, no time retention, an offload pass
     * every 200 ms. A mutable map, for the test's own additions.
     */
    public static Map<String, String> settings(Path dataDir, int port, int segmentBytes) {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        s.put("schema.registry.listen", "127.0.0.1:0"); // any free port: tests run side by side
        s.put("data.dir", dataDir.toString());
        s.put("num.network.threads", "2");
        s.put("num.partitions", "1");
        s.put("segment.bytes", Integer.toString(segmentBytes));
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "200");
        return s;
    }

    /**
     * A consumer of raw bytes without auto-commit that reconnects quickly (servers restart in these
     * tests), with {@code extra} consumer settings on top; the caller closes it.
     */
    public static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Map<String, ?> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.putAll(extra);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * A check for {@link TieredWaits#readInOrder}: the record is the one {@link #produce} wrote at
     * its offset with {@code value}.
     */
    public static Consumer<ConsumerRecord<byte[], byte[]>> produced(LongFunction<byte[]> value) {
        return r -> {
            assertThat(r.timestamp())
                    .as("timestamp of offset %d", r.offset())
                    .isEqualTo(BASE_TS + r.offset());
            assertThat(r.value())
                    .as("value of offset %d", r.offset())
                    .isEqualTo(value.apply(r.offset()));
        };
    }

    /**
     * Produces records {@code from .. from + count - 1} to partition 0 of {@code topic} with an
     * idempotent acks=all producer: record {@code i} has timestamp {@code BASE_TS + i}, no key and
     * {@code value.apply(i)}. Returns once every send is acknowledged (and fails if one is not).
     */
    public static void produce(
            String bootstrap, String topic, long from, int count, LongFunction<byte[]> value)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        List<Future<?>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = from; i < from + count; i++) {
                acks.add(
                        producer.send(
                                new ProducerRecord<>(topic, 0, BASE_TS + i, null, value.apply(i))));
            }
            producer.flush();
        }
        for (Future<?> f : acks) {
            f.get();
        }
    }
}

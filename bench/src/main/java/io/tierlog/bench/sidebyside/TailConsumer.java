package io.tierlog.bench.sidebyside;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The harness's consumer: an {@code assign()} consumer (no group, so it needs no coordinator) that
 * reads partition 0 of a topic from the beginning up to its end offset at start and prints one line
 * {@code RESULT records=N bytes=B seconds=S} (bytes = serialized key + value sizes).
 *
 * <p>Usage: {@code TailConsumer BOOTSTRAP TOPIC [ISOLATION]} ({@code read_uncommitted}, the
 * default, or {@code read_committed}: the end offset is then the last stable offset). Exits 1 if no
 * record arrives for 60 s.
 *
 * <p>Thread-safety: a single-threaded program.
 */
public final class TailConsumer {
    private static final Duration STALL = Duration.ofSeconds(60);

    private TailConsumer() {}

    public static void main(String[] args) {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: TailConsumer BOOTSTRAP TOPIC [ISOLATION]");
            System.exit(2);
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                args.length == 3 ? args[2] : "read_uncommitted");
        TopicPartition tp = new TopicPartition(args[1], 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            Map<TopicPartition, Long> end = consumer.endOffsets(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long target = end.get(tp);
            long records = 0;
            long bytes = 0;
            long start = System.nanoTime();
            long lastProgress = start;
            while (consumer.position(tp) < target) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    records++;
                    bytes +=
                            Math.max(0, r.serializedKeySize())
                                    + Math.max(0, r.serializedValueSize());
                }
                long now = System.nanoTime();
                if (!batch.isEmpty()) {
                    lastProgress = now;
                } else if (now - lastProgress > STALL.toNanos()) {
                    System.err.println("no progress for " + STALL + " at " + consumer.position(tp));
                    System.exit(1);
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("RESULT records=%d bytes=%d seconds=%.3f%n", records, bytes, seconds);
        }
    }
}

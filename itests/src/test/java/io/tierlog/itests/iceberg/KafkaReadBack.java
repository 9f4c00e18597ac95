package io.tierlog.itests.iceberg;

import io.tierlog.itests.testing.TieredServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads partitions from their log start to their end with a fresh consumer and checks that every
 * acknowledged send of a {@link TrickleProducer} at or above the log start is there once, at the
 * offset it was acknowledged at. Stateless, so thread-safe.
 */
final class KafkaReadBack {
    /** What one read-back found. */
    record Result(long read, long checked, List<String> problems) {}

    private KafkaReadBack() {}

    static Result check(String bootstrap, TrickleProducer producer, Duration timeout) {
        List<String> problems = new ArrayList<>();
        long read = 0;
        long checked = 0;
        List<TopicPartition> tps = producer.partitions();
        Map<TopicPartition, Map<Long, Long>> seen = new HashMap<>(); // seq -> offset
        Map<TopicPartition, Long> begin;
        try (KafkaConsumer<byte[], byte[]> c =
                TieredServers.consumer(
                        bootstrap,
                        Map.of(
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                256 << 10))) {
            c.assign(tps);
            begin = c.beginningOffsets(tps, Duration.ofSeconds(30));
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + timeout.toNanos();
            List<TopicPartition> pending = new ArrayList<>(tps);
            pending.removeIf(tp -> end.get(tp) <= begin.get(tp));
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    read++;
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    var seq = producer.decode(tp, r.value());
                    if (seq.isEmpty()) {
                        problems.add("a record no send produced at " + tp + "@" + r.offset());
                        continue;
                    }
                    Long before =
                            seen.computeIfAbsent(tp, x -> new HashMap<>())
                                    .putIfAbsent(seq.get(), r.offset());
                    if (before != null) {
                        problems.add(
                                "seq "
                                        + seq.get()
                                        + " of "
                                        + tp
                                        + " twice: "
                                        + before
                                        + ", "
                                        + r.offset());
                    }
                }
                pending.removeIf(tp -> c.position(tp) >= end.get(tp));
            }
            for (TopicPartition tp : pending) {
                problems.add(tp + " not read to its end " + end.get(tp) + " in time");
            }
        }
        for (TopicPartition tp : tps) {
            long start = begin.get(tp);
            for (var e : producer.acks(tp).entrySet()) {
                if (e.getValue().offset() < start) {
                    continue; // retained away
                }
                checked++;
                Long at = seen.getOrDefault(tp, Map.of()).get(e.getKey());
                if (at == null) {
                    problems.add(
                            "acknowledged "
                                    + tp
                                    + " seq "
                                    + e.getKey()
                                    + " at offset "
                                    + e.getValue().offset()
                                    + " lost");
                } else if (at != e.getValue().offset()) {
                    problems.add(
                            "acknowledged "
                                    + tp
                                    + " seq "
                                    + e.getKey()
                                    + " at "
                                    + e.getValue().offset()
                                    + ", read at "
                                    + at);
                }
            }
        }
        producer.doubleAssigned()
                .forEach((tp, n) -> problems.add(n + " offsets of " + tp + " acknowledged twice"));
        return new Result(read, checked, problems);
    }
}

package io.tierlog.itests.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The campaign's check after a schedule, against a freshly started server: a new consumer reads
 * every partition from offset 0 to its end, and each acknowledged record (from the {@link
 * CampaignLedger}) must be there exactly once, at the offset it was acknowledged at; no two
 * acknowledged records may share an offset; the log must start at 0 (nothing is retained away);
 * every value read must be one this schedule sent, and only once. The only records excused are
 * those the simulation itself destroyed ({@link CampaignLedger#destroyedBySimulation}).
 *
 * <p>Not thread-safe (one check per instance).
 */
final class CampaignChecker {
    /** Problems by kind, with the first few examples of each. */
    static final class Problems {
        private final Map<String, List<String>> examples = new LinkedHashMap<>();
        private final Map<String, Long> counts = new LinkedHashMap<>();

        void add(String kind, String example) {
            counts.merge(kind, 1L, Long::sum);
            List<String> e = examples.computeIfAbsent(kind, k -> new ArrayList<>());
            if (e.size() < 3) {
                e.add(example);
            }
        }

        boolean isEmpty() {
            return counts.isEmpty();
        }

        Map<String, Long> counts() {
            return counts;
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            counts.forEach(
                    (k, n) ->
                            b.append("\n    ")
                                    .append(k)
                                    .append(" x")
                                    .append(n)
                                    .append(": ")
                                    .append(String.join("; ", examples.get(k))));
            return b.toString();
        }
    }

    /** Counts of one check. */
    record Counts(long ackedChecked, long recordsRead, long excused) {}

    private final CampaignLedger ledger;
    private final String topic;
    private final int partitions;

    CampaignChecker(CampaignLedger ledger, String topic, int partitions) {
        this.ledger = ledger;
        this.topic = topic;
        this.partitions = partitions;
    }

    Counts check(String bootstrap, Duration timeout, Problems problems) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        List<Map<Long, Long>> seen = new ArrayList<>(); // per partition: seq -> offset read
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            c.assign(tps);
            Map<TopicPartition, Long> begin = c.beginningOffsets(tps, Duration.ofSeconds(30));
            Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
            for (TopicPartition tp : tps) {
                seen.add(new HashMap<>());
                if (begin.get(tp) != 0 && !ledger.ackedSeqs(tp.partition()).isEmpty()) {
                    problems.add("log does not start at 0", tp + " starts at " + begin.get(tp));
                }
                Map.Entry<Long, Long> maxAcked = ledger.ackedByOffset(tp.partition()).lastEntry();
                if (maxAcked != null
                        && end.get(tp) <= maxAcked.getKey()
                        && !ledger.destroyedBySimulation(
                                tp.partition(), maxAcked.getKey(), maxAcked.getValue())) {
                    problems.add(
                            "log ends below an acknowledged offset",
                            tp
                                    + " ends at "
                                    + end.get(tp)
                                    + ", offset "
                                    + maxAcked.getKey()
                                    + " was acked");
                }
            }
            c.seekToBeginning(tps);
            long[] last = new long[partitions];
            java.util.Arrays.fill(last, -1);
            long deadline = System.nanoTime() + timeout.toNanos();
            List<TopicPartition> pending = new ArrayList<>(tps);
            while (!pending.isEmpty() && System.nanoTime() < deadline) {
                try {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(300))) {
                        read++;
                        inspect(r, last, seen, problems);
                    }
                } catch (KafkaException e) {
                    // A corrupt batch (CRC), or a fetch error: the consumer cannot go past it.
                    TopicPartition stuck = pending.get(0);
                    for (TopicPartition tp : pending) {
                        if (e.getMessage() != null && e.getMessage().contains(tp.toString())) {
                            stuck = tp;
                        }
                    }
                    problems.add(
                            "fetch failed", stuck + " at position " + c.position(stuck) + ": " + e);
                    pending.remove(stuck);
                    c.pause(List.of(stuck));
                    continue;
                }
                pending.removeIf(tp -> c.position(tp) >= end.get(tp));
            }
            for (TopicPartition tp : pending) {
                problems.add(
                        "could not read to the end in time",
                        tp + " stuck at " + c.position(tp) + " of " + end.get(tp));
            }
        }
        long checked = 0;
        long excused = 0;
        for (int p = 0; p < partitions; p++) {
            for (Map.Entry<Long, Long> a : ledger.ackedSeqs(p).entrySet()) {
                long seq = a.getKey();
                long offset = a.getValue();
                checked++;
                Long found = seen.get(p).get(seq);
                if (found == null) {
                    if (ledger.destroyedBySimulation(p, offset, seq)) {
                        excused++;
                    } else {
                        problems.add(
                                "acknowledged record lost",
                                topic + "-" + p + " seq " + seq + " acked at offset " + offset);
                    }
                } else if (found != offset) {
                    problems.add(
                            "acknowledged record at another offset",
                            topic
                                    + "-"
                                    + p
                                    + " seq "
                                    + seq
                                    + " acked at "
                                    + offset
                                    + ", read at "
                                    + found);
                }
            }
        }
        for (CampaignLedger.DoubleAssignment d : ledger.doubleAssignments()) {
            if (!ledger.destroyedBySimulation(d.partition(), d.offset(), d.firstSeq())) {
                problems.add(
                        "offset assigned twice",
                        topic
                                + "-"
                                + d.partition()
                                + " offset "
                                + d.offset()
                                + " acked for seq "
                                + d.firstSeq()
                                + " and seq "
                                + d.secondSeq());
            }
        }
        return new Counts(checked, read, excused);
    }

    private void inspect(
            ConsumerRecord<byte[], byte[]> r,
            long[] last,
            List<Map<Long, Long>> seen,
            Problems problems) {
        int p = r.partition();
        if (r.offset() <= last[p]) {
            problems.add(
                    "offsets not increasing",
                    r.topic() + "-" + p + " offset " + r.offset() + " after " + last[p]);
        }
        last[p] = r.offset();
        Optional<long[]> d = ledger.decode(r.value());
        if (d.isEmpty() || d.get()[0] != p) {
            problems.add(
                    "a record no send produced",
                    r.topic()
                            + "-"
                            + p
                            + " offset "
                            + r.offset()
                            + " value "
                            + (r.value() == null ? "null" : r.value().length + " bytes"));
            return;
        }
        long seq = d.get()[1];
        Long before = seen.get(p).putIfAbsent(seq, r.offset());
        if (before != null) {
            problems.add(
                    "record duplicated",
                    r.topic()
                            + "-"
                            + p
                            + " seq "
                            + seq
                            + " at offsets "
                            + before
                            + " and "
                            + r.offset());
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 256 << 10);
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 1 << 20);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}

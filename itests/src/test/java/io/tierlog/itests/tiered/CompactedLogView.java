package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What a consumer reading a compacted partition from offset 0 to its end sees, reduced to what
 * Kafka's compaction promises: for every key the last record read (value, or {@code null} for a
 * tombstone, with its offset and timestamp), and every tombstone still present. Comparing two views
 * compares two cleaners' answers; a text form makes a difference read plainly.
 *
 * @param latest key -> its last record in the log
 * @param tombstones {@code key@offset} of every tombstone read
 * @param records how many records the consumer read
 */
record CompactedLogView(
        SortedMap<String, Latest> latest, SortedSet<String> tombstones, int records) {

    /** The last record of a key: {@code value} is {@code null} for a tombstone. */
    record Latest(String value, long offset, long timestamp) {
        @Override
        public String toString() {
            return (value == null ? "<tombstone>" : abbreviate(value))
                    + "@"
                    + offset
                    + "/"
                    + timestamp;
        }

        private static String abbreviate(String v) {
            return v.length() <= 24 ? v : v.substring(0, 24) + "..(" + v.length() + ")";
        }
    }

    /**
     * Reads partition {@code tp} from offset 0 to its end offset on {@code bootstrap}, asserting on
     * the way that offsets strictly ascend.
     */
    static CompactedLogView read(String bootstrap, TopicPartition tp, Duration timeout) {
        SortedMap<String, Latest> latest = new TreeMap<>();
        SortedSet<String> tombstones = new TreeSet<>();
        int[] count = {0};
        long[] last = {-1};
        try (KafkaConsumer<String, String> c =
                new KafkaConsumer<>(
                        Map.of(
                                "bootstrap.servers",
                                bootstrap,
                                "enable.auto.commit",
                                false,
                                "max.partition.fetch.bytes",
                                64 << 10),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            c.assign(List.of(tp));
            c.seek(tp, 0);
            long end = c.endOffsets(List.of(tp), timeout).get(tp);
            Await.until(
                    "read " + tp + " from offset 0 to its end " + end + " on " + bootstrap,
                    () -> {
                        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                            assertThat(r.offset()).as("offsets ascend").isGreaterThan(last[0]);
                            last[0] = r.offset();
                            count[0]++;
                            latest.put(r.key(), new Latest(r.value(), r.offset(), r.timestamp()));
                            if (r.value() == null) {
                                tombstones.add(r.key() + "@" + r.offset());
                            }
                        }
                        return c.position(tp) >= end;
                    },
                    timeout);
        }
        return new CompactedLogView(latest, tombstones, count[0]);
    }

    /** Whether both views hold the same latest records and the same tombstones. */
    boolean sameAnswer(CompactedLogView other) {
        return latest.equals(other.latest) && tombstones.equals(other.tombstones);
    }

    /** Offsets of the latest records, for "part of this came from the cold tier". */
    long lowestLatestOffset() {
        return latest.values().stream().mapToLong(Latest::offset).min().orElse(-1);
    }

    /** Lines naming the keys whose latest record differs, and the tombstones in only one view. */
    String differences(CompactedLogView other) {
        StringBuilder s = new StringBuilder();
        TreeSet<String> keys = new TreeSet<>(latest.keySet());
        keys.addAll(other.latest.keySet());
        int shown = 0;
        for (String k : keys) {
            Latest a = latest.get(k);
            Latest b = other.latest.get(k);
            if (!Objects.equals(a, b) && shown++ < 40) {
                s.append("  key ")
                        .append(k)
                        .append(": ")
                        .append(a)
                        .append(" vs ")
                        .append(b)
                        .append('\n');
            }
        }
        TreeSet<String> onlyHere = new TreeSet<>(tombstones);
        onlyHere.removeAll(other.tombstones);
        TreeSet<String> onlyThere = new TreeSet<>(other.tombstones);
        onlyThere.removeAll(tombstones);
        if (!onlyHere.isEmpty() || !onlyThere.isEmpty()) {
            s.append("  tombstones only in the first: ").append(onlyHere).append('\n');
            s.append("  tombstones only in the second: ").append(onlyThere).append('\n');
        }
        return s.toString();
    }

    /** A value of {@code size} bytes for a record: its index first, then filler. */
    static String value(long index, int size) {
        StringBuilder s = new StringBuilder("v").append(index).append('-');
        while (s.length() < size) {
            s.append((char) ('a' + (s.length() * 7 + index) % 26));
        }
        return s.toString();
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}

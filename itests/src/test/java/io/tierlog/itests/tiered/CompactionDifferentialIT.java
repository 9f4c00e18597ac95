package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.PartitionState;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.common.testing.Property;
import io.tierlog.engine.PartitionReport;
import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.itests.testing.CleanerCheckpoint;
import io.tierlog.itests.testing.InProcessCli;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential test of compaction against Apache Kafka 4.4.0's log cleaner: one seeded sequence of
 * keyed updates and tombstones, in many small segments, goes to a Kafka broker (child JVM) and to a
 * tiered tierlog server whose local retention is tiny, so that most of tierlog's log lives in the
 * cold tier and is compacted there. After both have cleaned, what a consumer reads from offset 0
 * (the latest value per key with its offset and timestamp, and the tombstones still there) must be
 * the same on both, and must be what the sequence implies.
 *
 * <p>Two phases, so that tombstones both expire and do not: phase 1 writes updates and tombstones
 * and both servers clean it; then more than {@code delete.retention.ms} passes; phase 2 writes more
 * updates and tombstones and both clean again. Phase 1's tombstones are then past their delete
 * horizon and gone (with every older value of their key), phase 2's are within it and still there.
 * Each phase ends with a sentinel record written after {@code segment.ms}, which rolls the segment
 * on both, so the whole phase is in closed (cleanable) segments.
 *
 * <p>"Cleaned" is a polled condition, never a sleep: on Kafka, its {@code
 * cleaner-offset-checkpoint} has reached the sentinel; on tierlog, the hot cleaner's checkpoint (or
 * the hot log start) has, and the catalog holds no dirty cold object ({@code coldCleanedOffset} at
 * the cold high watermark) and a cold cleaning pass ran after the phase began.
 */
class CompactionDifferentialIT {
    private static final String TOPIC = "diff-compacted";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long DELETE_RETENTION_MS = 15_000;
    private static final long SEGMENT_MS = 1_500;
    private static final Duration CLEAN_TIMEOUT = Duration.ofMinutes(2);

    @TempDir Path dir;

    /** One write of the sequence: {@code value} null is a tombstone. */
    private record Op(String key, String value, long timestamp) {}

    /** A server under comparison: its bootstrap and its "cleaned up to here" condition. */
    private interface Side {
        String name();

        String bootstrap();

        /**
         * Whether everything below {@code offset} is cleaned by a pass that started after {@code
         * sinceMs}.
         */
        boolean cleaned(long offset, long sinceMs) throws Exception;
    }

    @Test
    void latestValuePerKeyAndRemainingTombstonesAreKafka44sAcrossBothTiers() throws Exception {
        try (KafkaBroker kafka =
                        KafkaBroker.start(
                                dir.resolve("kafka"),
                                Map.of(
                                        "log.cleaner.backoff.ms", "200",
                                        "log.cleaner.threads", "1"));
                TierlogServer tierlog = TierlogServer.start(Config.of(tierlogSettings()))) {
            Side kafkaSide =
                    new Side() {
                        public String name() {
                            return "kafka";
                        }

                        public String bootstrap() {
                            return kafka.bootstrapServers();
                        }

                        public boolean cleaned(long offset, long sinceMs) throws Exception {
                            return CleanerCheckpoint.cleanedTo(kafka.logDir(), TOPIC, 0, offset);
                        }
                    };
            Side tierlogSide =
                    new Side() {
                        public String name() {
                            return "tierlog";
                        }

                        public String bootstrap() {
                            return "127.0.0.1:" + tierlog.port();
                        }

                        public boolean cleaned(long offset, long sinceMs) throws Exception {
                            return tierlogCleaned(tierlog, offset, sinceMs);
                        }
                    };
            createTopic(kafkaSide.bootstrap(), Map.of());
            createTopic(tierlogSide.bootstrap(), Map.of("local.retention.bytes", "32768"));
            Property.forAll(1, random -> compare(random, kafkaSide, tierlogSide, tierlog));
        }
    }

    /** Keys written once at the start of phase 1 (see {@link #compare}). */
    private static final int ANCHOR_KEYS = 10;

    private void compare(Random random, Side kafka, Side tierlog, TierlogServer server)
            throws Exception {
        int keySpace = Property.between(random, 50, 400);
        List<Op> all = new ArrayList<>();
        try (Producer both = new Producer(kafka.bootstrap(), tierlog.bootstrap())) {
            long phase1 = System.currentTimeMillis();
            // keys written once, first, and never again: their latest values lie at the lowest
            // offsets, so the comparison always covers records only the cold tier still holds
            List<Op> first = new ArrayList<>();
            for (int i = 0; i < ANCHOR_KEYS; i++) {
                first.add(new Op("anchor" + i, CompactedLogView.value(i, 50), phase1));
            }
            first.addAll(ops(random, ANCHOR_KEYS, 2500 + random.nextInt(1500), keySpace, phase1));
            both.send(random, first, 0);
            all.addAll(first);
            all.add(both.sentinel("sentinel-1", all.size(), all.get(all.size() - 1).timestamp()));
            awaitCleaned(kafka, all.size() - 1, phase1);
            awaitCleaned(tierlog, all.size() - 1, phase1);
            long phase1Cleaned = System.currentTimeMillis();

            // phase 1's tombstones got their delete horizon at the latest now: let it pass
            Await.until(
                    "delete.retention.ms passed since phase 1 was cleaned",
                    () -> System.currentTimeMillis() > phase1Cleaned + DELETE_RETENTION_MS + 500,
                    Duration.ofMillis(DELETE_RETENTION_MS + 5_000));

            long phase2 = System.currentTimeMillis();
            List<Op> second = ops(random, all.size(), 600 + random.nextInt(600), keySpace, phase2);
            both.send(random, second, all.size());
            all.addAll(second);
            all.add(both.sentinel("sentinel-2", all.size(), all.get(all.size() - 1).timestamp()));
            awaitCleaned(kafka, all.size() - 1, phase2);
            awaitCleaned(tierlog, all.size() - 1, phase2);

            CompactedLogView kafkaView =
                    CompactedLogView.read(kafka.bootstrap(), TP, CLEAN_TIMEOUT);
            CompactedLogView tierlogView =
                    CompactedLogView.read(tierlog.bootstrap(), TP, CLEAN_TIMEOUT);
            long readDone = System.currentTimeMillis();
            assertThat(readDone - phase2)
                    .as(
                            "phase 2 was written, cleaned and read within delete.retention.ms, so its"
                                    + " tombstones must still be there")
                    .isLessThan(DELETE_RETENTION_MS);

            CompactedLogView expected = expected(all, first.size() + 1);
            System.out.printf(
                    "keys %d, ops %d: kafka read %d records (%d keys, %d tombstones),"
                            + " tierlog read %d records (%d keys, %d tombstones)%n",
                    keySpace,
                    all.size(),
                    kafkaView.records(),
                    kafkaView.latest().size(),
                    kafkaView.tombstones().size(),
                    tierlogView.records(),
                    tierlogView.latest().size(),
                    tierlogView.tombstones().size());
            assertThat(kafkaView.sameAnswer(expected))
                    .as(
                            "Kafka's answer is what the sequence implies (a check of the test):%n%s",
                            expected.differences(kafkaView))
                    .isTrue();
            assertThat(tierlogView.sameAnswer(kafkaView))
                    .as(
                            "tierlog (first) vs Kafka 4.4 (second):%n%s",
                            tierlogView.differences(kafkaView))
                    .isTrue();
            assertThat(kafkaView.records())
                    .as("Kafka compacted: it serves far fewer records than were written")
                    .isLessThan(all.size() / 2);

            // the comparison covered the cold tier: tierlog's oldest surviving records are there
            long earliestLocal = earliestLocal(tierlog.bootstrap());
            PartitionReport report = server.engine().inspect(Optional.of(TOPIC)).get(0);
            System.out.println("tierlog: " + report.format() + ", earliest local " + earliestLocal);
            assertThat(earliestLocal).as("ListOffsets earliest-local").isGreaterThan(0);
            InProcessCli.Cli verify =
                    InProcessCli.run(
                            "verify", "--deep", "--set", "data.dir=" + dir.resolve("tierlog"));
            assertThat(verify.exit())
                    .as("tierlog verify --deep of both tiers: %s", verify.out() + verify.err())
                    .isZero();
            assertThat(tierlogView.lowestLatestOffset())
                    .as("some latest values were read from the cold tier")
                    .isLessThan(earliestLocal);
        }
    }

    /** tierlog: hot cleaned up to {@code offset}, no dirty cold object, a cold pass since. */
    private static boolean tierlogCleaned(TierlogServer server, long offset, long sinceMs)
            throws Exception {
        Path hotDir = server.engine().hotLogDir();
        PartitionReport report = server.engine().inspect(Optional.of(TOPIC)).get(0);
        boolean hotClean =
                report.hotLogStartOffset() >= offset
                        || CleanerCheckpoint.cleanedTo(hotDir, TOPIC, 0, offset);
        if (!hotClean) {
            return false;
        }
        PartitionState cold = server.engine().catalog().partitionState(TOPIC, 0);
        if (cold.coldHighWatermark() == 0) {
            return true;
        }
        return report.offloadLagOffsets() == 0
                && cold.coldCleanedOffset() >= cold.coldHighWatermark()
                && cold.lastColdCleaningMs() >= sinceMs;
    }

    private static void awaitCleaned(Side side, long offset, long sinceMs) throws Exception {
        Await.until(
                side.name() + " cleaned below offset " + offset,
                () -> side.cleaned(offset, sinceMs),
                CLEAN_TIMEOUT);
    }

    /**
     * What the sequence implies after cleaning: each key's last write, except that a tombstone
     * written before {@code phase2From} (past its delete horizon) is gone with its key.
     */
    private static CompactedLogView expected(List<Op> all, int phase2From) {
        SortedMap<String, CompactedLogView.Latest> latest = new TreeMap<>();
        for (int i = 0; i < all.size(); i++) {
            Op op = all.get(i);
            latest.put(op.key(), new CompactedLogView.Latest(op.value(), i, op.timestamp()));
        }
        SortedSet<String> tombstones = new TreeSet<>();
        latest.entrySet()
                .removeIf(e -> e.getValue().value() == null && e.getValue().offset() < phase2From);
        latest.forEach(
                (k, v) -> {
                    if (v.value() == null) {
                        tombstones.add(k + "@" + v.offset());
                    }
                });
        return new CompactedLogView(latest, tombstones, latest.size());
    }

    /**
     * {@code count} writes from offset {@code from}: keys drawn with a skew (some keys updated
     * often, most rarely), one write in seven a tombstone, values of 10 to 400 bytes, timestamps
     * rising from {@code startMs}.
     */
    private static List<Op> ops(Random random, int from, int count, int keySpace, long startMs) {
        List<Op> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int k =
                    random.nextInt(4) == 0
                            ? random.nextInt(Math.max(1, keySpace / 10))
                            : random.nextInt(keySpace);
            String value =
                    random.nextInt(7) == 0
                            ? null
                            : CompactedLogView.value(from + i, Property.between(random, 10, 400));
            ops.add(new Op("k" + k, value, startMs + i / 4));
        }
        return ops;
    }

    private static void createTopic(String bootstrap, Map<String, String> extra) throws Exception {
        Map<String, String> configs = new HashMap<>();
        configs.put("cleanup.policy", "compact");
        configs.put("internal.segment.bytes", "16384");
        configs.put("segment.ms", Long.toString(SEGMENT_MS));
        configs.put("min.cleanable.dirty.ratio", "0.01");
        configs.put("min.compaction.lag.ms", "0");
        configs.put("delete.retention.ms", Long.toString(DELETE_RETENTION_MS));
        configs.putAll(extra);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1).configs(configs)))
                    .all()
                    .get();
        }
    }

    private static long earliestLocal(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            return admin.listOffsets(Map.of(TP, OffsetSpec.earliestLocal()))
                    .partitionResult(TP)
                    .get()
                    .offset();
        }
    }

    private Map<String, String> tierlogSettings() {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("schema.registry.listen", "");
        s.put("data.dir", dir.resolve("tierlog").toString());
        s.put("num.network.threads", "2");
        s.put("offload.interval.ms", "200");
        s.put("log.cleaner.backoff.ms", "200");
        s.put("log.cleaner.dedupe.buffer.size", "4194304");
        return s;
    }

    /**
     * Two idempotent acks=all producers, one per server, fed the same records in the same chunks
     * (so both logs get similar batches: up to 40 records, keys mixed), each send checked to land
     * at the offset the sequence gives it.
     */
    private static final class Producer implements AutoCloseable {
        private final List<KafkaProducer<String, String>> producers = new ArrayList<>();

        Producer(String... bootstraps) {
            for (String b : new java.util.LinkedHashSet<>(List.of(bootstraps))) {
                producers.add(
                        new KafkaProducer<>(
                                Map.of(
                                        "bootstrap.servers",
                                        b,
                                        "acks",
                                        "all",
                                        "enable.idempotence",
                                        true,
                                        "linger.ms",
                                        1000,
                                        "batch.size",
                                        64 << 10),
                                new StringSerializer(),
                                new StringSerializer()));
            }
        }

        /** Sends {@code ops}, the first of which must land at {@code firstOffset}. */
        void send(Random random, List<Op> ops, long firstOffset) throws Exception {
            for (int i = 0; i < ops.size(); ) {
                int chunk = Math.min(ops.size() - i, 1 + random.nextInt(40));
                List<List<Future<RecordMetadata>>> acks = new ArrayList<>();
                for (KafkaProducer<String, String> p : producers) {
                    List<Future<RecordMetadata>> mine = new ArrayList<>();
                    for (int j = i; j < i + chunk; j++) {
                        Op op = ops.get(j);
                        mine.add(
                                p.send(
                                        new ProducerRecord<>(
                                                TOPIC, 0, op.timestamp(), op.key(), op.value())));
                    }
                    p.flush();
                    acks.add(mine);
                }
                for (List<Future<RecordMetadata>> mine : acks) {
                    for (int j = 0; j < chunk; j++) {
                        assertThat(mine.get(j).get().offset())
                                .as("offset of write %d", firstOffset + i + j)
                                .isEqualTo(firstOffset + i + j);
                    }
                }
                i += chunk;
            }
        }

        /**
         * Waits for segment.ms to pass, then writes the record that rolls the segment. Kafka's
         * segment.ms counts from the records' timestamps, and the ops' timestamps ({@code
         * lastTimestamp} the highest) may run ahead of the clock when they are sent fast: the
         * sentinel's timestamp must be segment.ms past both.
         */
        Op sentinel(String key, long offset, long lastTimestamp) throws Exception {
            long after = Math.max(System.currentTimeMillis(), lastTimestamp) + SEGMENT_MS + 500;
            Await.until(
                    "segment.ms passed",
                    () -> System.currentTimeMillis() > after,
                    Duration.ofSeconds(10));
            Op op = new Op(key, key, System.currentTimeMillis());
            for (KafkaProducer<String, String> p : producers) {
                RecordMetadata m =
                        p.send(new ProducerRecord<>(TOPIC, 0, op.timestamp(), key, key)).get();
                assertThat(m.offset()).as("offset of " + key).isEqualTo(offset);
            }
            return op;
        }

        @Override
        public void close() {
            producers.forEach(KafkaProducer::close);
        }
    }
}

package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same seeded workload of consumer-protocol members joining and leaving, run against Apache
 * Kafka 4.4.0 and tierlog: after every step both settle with every partition owned by exactly one
 * live member and the same partition counts per member (uniform assignor), no partition ever owned
 * twice, and in the end the same committed offsets.
 */
class ConsumerProtocolDifferentialIT {
    private static final String TOPIC = "diff";
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 1200;
    @TempDir Path dir;

    /** What one run observed: member counts after each step, and the committed offsets. */
    private record Outcome(List<List<Long>> countsPerStep, Map<Integer, Long> committed) {}

    @Test
    void joinsAndLeavesSettleAlikeOnKafkaAndTierlog() throws Exception {
        long seed = Long.getLong("tierlog.property.seed", System.nanoTime());
        System.out.println("ConsumerProtocolDifferentialIT seed " + seed);
        List<Boolean> joins = new ArrayList<>();
        Random r = new Random(seed);
        int live = 0;
        for (int i = 0; i < 6; i++) {
            boolean join = live <= 1 || (live < 4 && r.nextBoolean());
            joins.add(join);
            live += join ? 1 : -1;
        }
        Outcome kafka;
        try (KafkaBroker broker =
                KafkaBroker.start(
                        dir.resolve("kafka"),
                        Map.of(
                                "group.consumer.heartbeat.interval.ms", "500",
                                "group.consumer.min.heartbeat.interval.ms", "500",
                                "group.consumer.session.timeout.ms", "6000",
                                "group.consumer.min.session.timeout.ms", "6000"))) {
            kafka = run(broker.bootstrapServers(), joins);
        }
        Outcome tierlog;
        try (ServerHarness server =
                new ServerHarness(
                        dir.resolve("tierlog"),
                        Map.of(
                                "group.consumer.heartbeat.interval.ms", "500",
                                "group.consumer.session.timeout.ms", "6000"))) {
            tierlog = run(server.bootstrap(), joins);
        }
        assertThat(tierlog.countsPerStep())
                .as("partitions per member after each step")
                .isEqualTo(kafka.countsPerStep());
        assertThat(tierlog.committed()).as("committed offsets").isEqualTo(kafka.committed());
    }

    private static Outcome run(String bootstrap, List<Boolean> joins) throws Exception {
        Clients.createTopic(bootstrap, TOPIC, PARTITIONS);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(bootstrap, "none")) {
            for (int i = 0; i < RECORDS; i++) {
                p.send(new ProducerRecord<>(TOPIC, Clients.key("d", i), Clients.value("d", i)));
            }
            p.flush();
        }
        GroupMemberThread.Ownership o = new GroupMemberThread.Ownership();
        BitSet seen = new BitSet();
        Map<String, GroupMemberThread> members = new LinkedHashMap<>();
        List<List<Long>> counts = new ArrayList<>();
        int next = 0;
        try {
            for (boolean join : joins) {
                if (join) {
                    String name = "m" + next++;
                    members.put(
                            name,
                            new GroupMemberThread(
                                    name,
                                    bootstrap,
                                    "diff-group",
                                    "consumer",
                                    TOPIC,
                                    o,
                                    seen,
                                    Map.of()));
                } else {
                    String oldest = members.keySet().iterator().next();
                    members.remove(oldest).close();
                }
                Set<String> expected = new HashSet<>(members.keySet());
                Await.until(
                        "the group settles on " + expected,
                        () -> {
                            Map<Integer, String> owners = o.snapshot();
                            if (owners.size() != PARTITIONS
                                    || !new HashSet<>(owners.values()).equals(expected)) {
                                return false;
                            }
                            long min = Long.MAX_VALUE;
                            long max = 0;
                            for (String m : expected) {
                                min = Math.min(min, o.ownedBy(m));
                                max = Math.max(max, o.ownedBy(m));
                            }
                            return max - min <= 1;
                        },
                        Duration.ofMinutes(2));
                List<Long> c = new ArrayList<>();
                for (String m : expected) {
                    c.add(o.ownedBy(m));
                }
                c.sort(null);
                counts.add(c);
            }
            Await.until(
                    "every record is read",
                    () -> {
                        synchronized (seen) {
                            return seen.cardinality() == RECORDS;
                        }
                    },
                    Duration.ofMinutes(2));
        } finally {
            for (GroupMemberThread m : members.values()) {
                m.close();
            }
        }
        for (GroupMemberThread m : members.values()) {
            assertThat(m.failure()).as("%s failed", m.name).isNull();
        }
        assertThat(o.violations()).as("ownership on %s", bootstrap).isEmpty();
        Map<Integer, Long> committed = new TreeMap<>();
        try (Admin admin = Clients.admin(bootstrap)) {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    admin.listConsumerGroupOffsets("diff-group")
                            .partitionsToOffsetAndMetadata()
                            .get();
            offsets.forEach((tp, om) -> committed.put(tp.partition(), om.offset()));
        }
        return new Outcome(counts, committed);
    }
}

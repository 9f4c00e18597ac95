package io.tierlog.itests.txn;

import static org.apache.kafka.common.IsolationLevel.READ_COMMITTED;
import static org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.common.testing.Property;
import io.tierlog.engine.LogOffsets;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.txn.TxnScript.Seen;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions end to end on a tiered tierlog server with kafka-clients 4.4: a seeded mix of
 * committed and aborted transactions over six partitions in 4 KiB segments. read_committed sees
 * exactly the committed records, in order and at the offsets the script implies, read_uncommitted
 * sees all of them; first from the hot tier, then again after {@code local.retention.bytes} is made
 * tiny and local retention has removed the offloaded segments, so that the same answers come from
 * the cold tier. While a transaction is open, endOffsets stop at its first offset for
 * read_committed and at the high watermark for read_uncommitted, and the offloader does not move
 * the open transaction's data (above the LSO) to the cold tier although its segments rolled.
 */
class TransactionsIT {
    private static final String TOPIC = "txn";
    private static final int PARTITIONS = 6;
    private static final Duration OFFLOAD_TIMEOUT = Duration.ofMinutes(2);

    @TempDir Path dir;

    @Test
    void readCommittedSeesExactlyTheCommittedRecordsFromHotThenColdAndStopsAtTheLso() {
        Property.forAll(1, this::scenario);
    }

    private void scenario(Random random) throws Exception {
        Map<String, String> settings =
                TieredServers.settings(dir.resolve("data-" + random.nextInt()), 0, 4096);
        settings.putAll(TxnOutcome.TXN_SETTINGS);
        settings.put(TxnOutcome.COORDINATOR_ENABLE, "true");
        try (TierlogServer server = TierlogServer.start(Config.of(settings))) {
            String bootstrap = "127.0.0.1:" + server.port();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(
                                List.of(
                                        new NewTopic(TOPIC, PARTITIONS, (short) 1)
                                                .configs(Map.of("internal.segment.bytes", "4096"))))
                        .all()
                        .get();
            }
            TxnScript script =
                    TxnScript.random(random, PARTITIONS, Property.between(random, 40, 70), "t");
            TxnClients.run(bootstrap, TOPIC, "mixed", script);
            TxnScript.Expected exp = script.expected(TxnScript.zeros(PARTITIONS));
            long committedCount = exp.committed().values().stream().mapToLong(List::size).sum();
            long abortedCount =
                    exp.all().values().stream().mapToLong(List::size).sum() - committedCount;
            System.out.printf(
                    "%d transactions: %d committed records, %d aborted, end offsets %s%n",
                    script.txns().size(), committedCount, abortedCount, exp.endOffsets());
            assertThat(abortedCount).as("the script aborts some records").isPositive();

            assertReads("hot tier", bootstrap, exp);

            // tiny local retention: offloaded segments leave the hot tier, reads go cold
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
                Map<ConfigResource, Collection<AlterConfigOp>> ops =
                        Map.of(
                                topic,
                                List.of(
                                        new AlterConfigOp(
                                                new ConfigEntry("local.retention.bytes", "1"),
                                                AlterConfigOp.OpType.SET)));
                admin.incrementalAlterConfigs(ops).all().get();
            }
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(TOPIC, p);
                long firstCommitted =
                        exp.committed().get(p).isEmpty()
                                ? Long.MAX_VALUE
                                : exp.committed().get(p).get(0).offset();
                if (exp.endOffsets().get(p) < 3 * 4096 / 400 || firstCommitted == Long.MAX_VALUE) {
                    continue; // too little data to roll a segment
                }
                LogOffsets o =
                        Await.until(
                                "partition " + p + ": the first committed record left the hot tier",
                                () -> server.engine().offsets(tp),
                                off -> off.hotLogStartOffset() > firstCommitted,
                                OFFLOAD_TIMEOUT);
                System.out.println("partition " + p + " after local retention: " + o);
            }
            assertReads("cold tier (tiny local retention)", bootstrap, exp);

            openTransactionHoldsTheLsoAndStaysHot(server, bootstrap, exp.endOffsets());
        }
    }

    private static void assertReads(String tier, String bootstrap, TxnScript.Expected exp) {
        Map<Integer, List<Seen>> committed =
                TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);
        assertThat(committed)
                .as("%s: read_committed = exactly the committed records, in order", tier)
                .isEqualTo(exp.committed());
        Map<Integer, List<Seen>> all =
                TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED);
        assertThat(all).as("%s: read_uncommitted = every record", tier).isEqualTo(exp.all());
        assertThat(TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED))
                .as("%s: endOffsets read_committed with no transaction open (LSO = HW)", tier)
                .isEqualTo(exp.endOffsets());
    }

    /**
     * One transaction writes ~40 KiB to partition 5 (rolling several 4 KiB segments) and stays open
     * while another producer commits as much to partition 4: once partition 4's data is in the cold
     * tier (an offload pass ran after the open transaction's data was written), partition 5's cold
     * high watermark must still be at most its LSO.
     */
    private static void openTransactionHoldsTheLsoAndStaysHot(
            TierlogServer server, String bootstrap, Map<Integer, Long> before) throws Exception {
        int open = 5;
        int other = 4;
        String pad = "x".repeat(400);
        try (KafkaProducer<String, String> p =
                        TxnClients.producer(bootstrap, "held-open", Map.of());
                KafkaProducer<String, String> q =
                        TxnClients.producer(bootstrap, "alongside", Map.of())) {
            p.initTransactions();
            p.beginTransaction();
            for (int i = 0; i < 100; i++) {
                p.send(new ProducerRecord<>(TOPIC, open, null, "open-" + i + pad));
            }
            p.flush();
            Map<Integer, Long> lso =
                    TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);
            Map<Integer, Long> hw =
                    TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED);
            assertThat(lso)
                    .as("read_committed endOffsets while open: the open txn's first offset")
                    .isEqualTo(before);
            Map<Integer, Long> expectedHw = new HashMap<>(before);
            expectedHw.merge(open, 100L, Long::sum);
            assertThat(hw)
                    .as("read_uncommitted endOffsets while open: the HW")
                    .isEqualTo(expectedHw);

            q.initTransactions();
            q.beginTransaction();
            for (int i = 0; i < 100; i++) {
                q.send(new ProducerRecord<>(TOPIC, other, null, "alongside-" + i + pad));
            }
            q.commitTransaction();
            long otherEnd = before.get(other) + 101;
            TopicPartition otherTp = new TopicPartition(TOPIC, other);
            Await.until(
                    "the committed transaction on partition " + other + " was offloaded",
                    () -> server.engine().offsets(otherTp).coldHighWatermark() >= otherEnd - 20,
                    OFFLOAD_TIMEOUT);
            LogOffsets openOffsets = server.engine().offsets(new TopicPartition(TOPIC, open));
            assertThat(openOffsets.coldHighWatermark())
                    .as(
                            "nothing above the LSO of partition %d was offloaded: %s",
                            open, openOffsets)
                    .isLessThanOrEqualTo(before.get(open));
            assertThat(
                            TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED)
                                    .get(open)
                                    .stream()
                                    .filter(s -> s.value().startsWith("open-"))
                                    .count())
                    .as("read_committed sees nothing of the open transaction")
                    .isZero();
            p.commitTransaction();
        }
        List<Seen> afterCommit =
                TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED).get(open);
        assertThat(afterCommit.stream().filter(s -> s.value().startsWith("open-")).count())
                .as("after its commit, read_committed sees the whole transaction")
                .isEqualTo(100);
    }
}

package io.tierlog.itests.txn;

import static org.apache.kafka.common.IsolationLevel.READ_COMMITTED;
import static org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.common.testing.Property;
import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.itests.testing.ServeProcess;
import io.tierlog.itests.txn.TxnLedger.Entry;
import io.tierlog.itests.txn.TxnLedger.State;
import io.tierlog.itests.txn.TxnScript.Seen;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kill -9 campaign of transactional produce: a {@code tierlog serve} child (offload on, 16 KiB
 * segments, small local retention) is killed with SIGKILL {@code tierlog.txnKill.kills} times
 * (default 30) at seeded random moments while a kafka-clients 4.4 transactional producer commits
 * and aborts transactions over six partitions, and started again on the same data. Each cycle uses
 * a new {@code transactional.id}, and one cycle in three holds a transaction open (records written,
 * no commit) until the kill, so a transaction left open by a kill must be ended by the restarted
 * coordinator (its recovery or {@code transaction.timeout.ms}), not by a successor's
 * InitProducerId. {@link TxnLedger} records every transaction's state around each call; after the
 * last restart the LSO must reach the high watermark on every partition (nothing hangs), and
 * read_committed must show acked commits fully and in order, never an aborted or open transaction,
 * and each unanswered commit all or nothing.
 *
 * <p>{@code -Dtierlog.txnKill.target=kafka} runs the same campaign against Apache Kafka 4.4 (a
 * child KRaft broker killed the same way), the check that the ledger and checker are right; {@code
 * -Dtierlog.property.seed} replays a campaign.
 */
class TxnKillCampaignIT {
    private static final String TOPIC = "txn-kill";
    private static final int PARTITIONS = 6;
    private static final int TXN_TIMEOUT_MS = 3000;

    @TempDir Path dir;

    /** A server that can be killed with SIGKILL and started again on the same data. */
    private interface Target extends AutoCloseable {
        void start() throws Exception;

        void kill() throws Exception;

        String bootstrap();

        @Override
        void close() throws Exception;
    }

    @Test
    void ackedCommitsSurviveKillsAndNothingAbortedOrOpenIsEverReadCommitted() {
        int kills = Integer.getInteger("tierlog.txnKill.kills", 30);
        boolean kafka = "kafka".equals(System.getProperty("tierlog.txnKill.target"));
        Property.forAll(1, random -> campaign(random, kills, kafka));
    }

    private void campaign(Random random, int kills, boolean kafka) throws Exception {
        TxnLedger ledger = new TxnLedger();
        ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();
        try (Target target =
                kafka ? new KafkaTarget(dir.resolve("kafka")) : new TierlogTarget(dir)) {
            target.start();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", target.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
            }
            for (int cycle = 0; cycle < kills; cycle++) {
                if (cycle > 0) {
                    target.start();
                }
                runCycle(random, cycle, target, ledger, killer);
                System.out.printf("after kill %d: %s%n", cycle + 1, ledger.counts());
            }
            target.start();
            String bootstrap = target.bootstrap();
            Map<Integer, Long> hw =
                    TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED);
            try {
                Await.until(
                        "the LSO reached the high watermark "
                                + hw
                                + " on every partition after"
                                + " the restart (open transactions ended by timeout or recovery)",
                        () -> TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED),
                        lso -> lso.equals(hwNow(bootstrap)),
                        Duration.ofSeconds(90));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + hanging(bootstrap, ledger), e);
            }
            Map<Integer, List<String>> committed =
                    values(TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED));
            Map<Integer, List<String>> all =
                    values(TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED));
            System.out.printf(
                    "%d kills: %s; read_committed %d records, read_uncommitted %d%n",
                    kills,
                    ledger.counts(),
                    committed.values().stream().mapToInt(List::size).sum(),
                    all.values().stream().mapToInt(List::size).sum());
            ledger.check(committed);
            committed.forEach(
                    (p, vs) ->
                            assertThat(all.get(p))
                                    .as(
                                            "partition %d: read_uncommitted holds every committed record",
                                            p)
                                    .containsAll(vs));
            assertThat(ledger.counts().getOrDefault(State.COMMITTED, 0))
                    .as("the campaign committed transactions")
                    .isPositive();
        } finally {
            killer.shutdownNow();
        }
    }

    private static Map<Integer, Long> hwNow(String bootstrap) {
        return TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED);
    }

    /**
     * For a failure: per partition, the first record at or above the LSO with its ledger state, and
     * what DescribeTransactions says of the transactional ids holding the LSO back.
     */
    private static String hanging(String bootstrap, TxnLedger ledger) {
        Map<Integer, Long> lso =
                TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);
        StringBuilder b = new StringBuilder("first record at or above the LSO:");
        java.util.Set<String> txnIds = new java.util.TreeSet<>();
        TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED)
                .forEach(
                        (p, seen) ->
                                seen.stream()
                                        .filter(s -> s.offset() >= lso.get(p))
                                        .findFirst()
                                        .ifPresent(
                                                s -> {
                                                    String v = s.value();
                                                    txnIds.add(
                                                            "kill-"
                                                                    + v.substring(
                                                                            1, v.indexOf('-')));
                                                    b.append(
                                                            String.format(
                                                                    "%n  partition %d offset %d:"
                                                                            + " %s (%s)",
                                                                    p,
                                                                    s.offset(),
                                                                    v.substring(0, v.indexOf(':')),
                                                                    ledger.stateOf(v)));
                                                }));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.describeTransactions(txnIds)
                    .all()
                    .get()
                    .forEach((id, d) -> b.append(String.format("%n  %s: %s", id, d)));
        } catch (Exception e) {
            b.append("\n  DescribeTransactions failed: ").append(e);
        }
        return b.toString();
    }

    /**
     * One producer (transactional.id {@code kill-<cycle>}) runs transactions until the server is
     * killed at a seeded moment 100 ms to 2.5 s after initTransactions returned.
     */
    private static void runCycle(
            Random random,
            int cycle,
            Target target,
            TxnLedger ledger,
            ScheduledExecutorService killer)
            throws Exception {
        AtomicBoolean killed = new AtomicBoolean();
        Map<String, Object> extra =
                Map.of(
                        "transaction.timeout.ms", TXN_TIMEOUT_MS,
                        "request.timeout.ms", 3000,
                        "delivery.timeout.ms", 6000,
                        "max.block.ms", 6000,
                        "retry.backoff.ms", 50,
                        "reconnect.backoff.max.ms", 200);
        String pad = "y".repeat(Property.between(random, 10, 400));
        long killDelay = Property.between(random, 100, 2500);
        // in one cycle in three, transaction number holdAt stays open (its records written, no
        // commit) until the kill: the restarted coordinator must abort it on its timeout
        int holdAt = random.nextInt(3) == 0 ? random.nextInt(8) : -1;
        try (KafkaProducer<String, String> producer =
                TxnClients.producer(target.bootstrap(), "kill-" + cycle, extra)) {
            initWithRetries(producer);
            ScheduledFuture<?> kill =
                    killer.schedule(
                            () -> {
                                killed.set(true);
                                target.kill();
                                return null;
                            },
                            killDelay,
                            TimeUnit.MILLISECONDS);
            try {
                for (int t = 0; !killed.get(); t++) {
                    Entry e = ledger.begin(cycle, t);
                    boolean commit = random.nextInt(4) != 0;
                    int width = Property.between(random, 1, 3);
                    int n = Property.between(random, 1, 12);
                    List<String> sent = new ArrayList<>();
                    producer.beginTransaction();
                    for (int i = 0; i < n; i++) {
                        int p = (t + random.nextInt(width) * 2) % PARTITIONS;
                        String v = TxnLedger.value(e, p, i, pad);
                        e.records.computeIfAbsent(p, k -> new ArrayList<>()).add(v);
                        sent.add(v);
                        producer.send(new ProducerRecord<>(TOPIC, p, null, v));
                    }
                    producer.flush();
                    if (t == holdAt) {
                        Await.until(
                                "the kill of a server with a transaction open",
                                killed::get,
                                Duration.ofSeconds(30));
                        break;
                    }
                    if (commit) {
                        e.state = State.COMMITTING;
                        producer.commitTransaction();
                        e.state = State.COMMITTED;
                    } else {
                        e.state = State.ABORTING;
                        producer.abortTransaction();
                        e.state = State.ABORTED;
                    }
                }
            } catch (Exception e) {
                if (!killed.get()) {
                    throw new AssertionError("transactional produce failed before the kill", e);
                }
            }
            kill.get();
            producer.close(Duration.ZERO);
        }
    }

    private static void initWithRetries(KafkaProducer<String, String> producer) {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            try {
                producer.initTransactions();
                return;
            } catch (TimeoutException e) {
                // the restarted coordinator may still be loading: initTransactions may be retried
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    private static Map<Integer, List<String>> values(Map<Integer, List<Seen>> seen) {
        Map<Integer, List<String>> m = new TreeMap<>();
        seen.forEach((p, l) -> m.put(p, l.stream().map(Seen::value).toList()));
        return m;
    }

    /** tierlog serve child on a fixed port over one data dir; offload on. */
    private static final class TierlogTarget implements Target {
        private final Path dir;
        private final int port;
        private Process process;
        private int starts;

        TierlogTarget(Path dir) throws IOException {
            this.dir = dir;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                this.port = s.getLocalPort();
            }
        }

        @Override
        public void start() throws IOException {
            process =
                    ServeProcess.start(
                            dir.resolve("serve-" + (starts++) + ".log"),
                            port,
                            dir.resolve("data"),
                            ServeProcess.QUICK_START,
                            "num.network.threads=2",
                            TxnOutcome.COORDINATOR_ENABLE + "=true",
                            "segment.bytes=16384",
                            "local.retention.bytes=32768",
                            "retention.ms=-1",
                            "offload.interval.ms=200",
                            "transaction.max.timeout.ms=60000",
                            "transaction.abort.timed.out.transaction.cleanup.interval.ms=500");
        }

        @Override
        public void kill() throws InterruptedException {
            process.destroyForcibly().waitFor();
        }

        @Override
        public String bootstrap() {
            return "127.0.0.1:" + port;
        }

        @Override
        public void close() throws InterruptedException {
            if (process != null) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** Apache Kafka 4.4 in a child JVM, killed with SIGKILL and started again on its log dir. */
    private static final class KafkaTarget implements Target {
        private final Path dir;
        private final int port;
        private final int controllerPort;
        private KafkaBroker broker;

        KafkaTarget(Path dir) throws IOException {
            this.dir = dir;
            this.port = KafkaBroker.freePort();
            this.controllerPort = KafkaBroker.freePort();
        }

        @Override
        public void start() throws IOException {
            broker =
                    KafkaBroker.start(
                            dir,
                            Map.of(
                                    "transaction.state.log.num.partitions",
                                    "1",
                                    "transaction.max.timeout.ms",
                                    "60000",
                                    "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                                    "500"),
                            List.of(),
                            port,
                            controllerPort);
        }

        @Override
        public void kill() {
            ProcessHandle.of(broker.pid())
                    .ifPresent(
                            h -> {
                                h.destroyForcibly();
                                h.onExit().join();
                            });
        }

        @Override
        public String bootstrap() {
            return broker.bootstrapServers();
        }

        @Override
        public void close() throws IOException {
            if (broker != null) {
                kill();
                broker.close();
            }
        }
    }
}

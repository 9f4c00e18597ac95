package io.tierlog.itests.txn;

import static org.apache.kafka.common.IsolationLevel.READ_COMMITTED;
import static org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.txn.TxnScript.Rec;
import io.tierlog.itests.txn.TxnScript.Seen;
import io.tierlog.itests.txn.TxnScript.Txn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Everything a client can observe of one run of the transaction scenario on one server, as plain
 * values so that two servers' outcomes compare with {@code equals}: the records and end offsets of
 * a seeded script in both isolations, the offsets while one more transaction is open (consumer
 * endOffsets and Admin ListOffsets, both isolations), and the errors and visibility of a fenced
 * zombie, a timed-out transaction and a timeout above {@code transaction.max.timeout.ms}.
 * Immutable.
 */
record TxnOutcome(
        Map<Integer, List<Seen>> committed,
        Map<Integer, List<Seen>> uncommitted,
        Map<Integer, Long> endCommitted,
        Map<Integer, Long> endUncommitted,
        Map<String, Map<Integer, Long>> whileOpen,
        Map<Integer, List<Seen>> committedWhileOpen,
        Map<Integer, Long> endAfterOpen,
        List<String> zombieCommitError,
        List<String> fencedTopicCommitted,
        List<String> fencedTopicUncommitted,
        List<String> timedOutCommitError,
        List<String> timedOutTopicCommitted,
        List<String> invalidTimeoutError) {

    static final String TOPIC = "txn-diff";
    static final String ERRORS_TOPIC = "txn-errors";
    static final int PARTITIONS = 6;

    /** Broker settings both servers get (Kafka's names). */
    static final Map<String, String> TXN_SETTINGS =
            Map.of(
                    "transaction.max.timeout.ms", "60000",
                    "transaction.abort.timed.out.transaction.cleanup.interval.ms", "500");

    /**
     * tierlog's switch for the transaction coordinator (off by default until transactions are
     * complete): set by every test of transactions, harmless once it is on by default.
     */
    static final String COORDINATOR_ENABLE = "transaction.coordinator.enable";

    /** A timeout above {@link #TXN_SETTINGS}' maximum. */
    static final int TOO_LONG_TIMEOUT_MS = 120_000;

    /** Runs the scenario on the server at {@code bootstrap} (topics not yet created). */
    static TxnOutcome observe(String bootstrap, TxnScript script, Txn open) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(TOPIC, PARTITIONS, (short) 1),
                                    new NewTopic(ERRORS_TOPIC, 3, (short) 1)))
                    .all()
                    .get();
        }
        TxnClients.run(bootstrap, TOPIC, "script", script);
        Map<Integer, List<Seen>> committed =
                TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);
        Map<Integer, List<Seen>> uncommitted =
                TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED);
        Map<Integer, Long> endCommitted =
                TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);
        Map<Integer, Long> endUncommitted =
                TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED);

        Map<String, Map<Integer, Long>> whileOpen = new TreeMap<>();
        Map<Integer, List<Seen>> committedWhileOpen;
        try (KafkaProducer<String, String> p = TxnClients.producer(bootstrap, "open", Map.of())) {
            p.initTransactions();
            p.beginTransaction();
            for (Rec r : open.records()) {
                p.send(new ProducerRecord<>(TOPIC, r.partition(), null, r.value()));
            }
            p.flush();
            whileOpen.put(
                    "endOffsets read_committed",
                    TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED));
            whileOpen.put(
                    "endOffsets read_uncommitted",
                    TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED));
            whileOpen.put(
                    "ListOffsets latest read_committed",
                    TxnClients.listLatest(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED));
            whileOpen.put(
                    "ListOffsets latest read_uncommitted",
                    TxnClients.listLatest(bootstrap, TOPIC, PARTITIONS, READ_UNCOMMITTED));
            committedWhileOpen = TxnClients.readAll(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);
            p.commitTransaction();
        }
        Map<Integer, Long> endAfterOpen =
                TxnClients.endOffsets(bootstrap, TOPIC, PARTITIONS, READ_COMMITTED);

        // a zombie: a second producer with the same transactional.id fences the first, whose
        // open transaction is aborted
        List<String> zombieError;
        try (KafkaProducer<String, String> zombie =
                        TxnClients.producer(bootstrap, "fenced", Map.of());
                KafkaProducer<String, String> successor =
                        TxnClients.producer(bootstrap, "fenced", Map.of())) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(ERRORS_TOPIC, 0, null, "zombie")).get();
            successor.initTransactions();
            zombieError = errorOf(zombie::commitTransaction);
            successor.beginTransaction();
            successor.send(new ProducerRecord<>(ERRORS_TOPIC, 0, null, "successor"));
            successor.commitTransaction();
        }
        List<String> fencedCommitted = values(bootstrap, 0, true);
        List<String> fencedUncommitted = values(bootstrap, 0, false);

        // a transaction left open past transaction.timeout.ms is aborted by the coordinator
        List<String> timedOutError;
        try (KafkaProducer<String, String> slow =
                TxnClients.producer(bootstrap, "slow", Map.of("transaction.timeout.ms", 2000))) {
            slow.initTransactions();
            slow.beginTransaction();
            slow.send(new ProducerRecord<>(ERRORS_TOPIC, 1, null, "stale")).get();
            Await.until(
                    "the coordinator aborted the timed-out transaction (LSO reached the HW)",
                    () -> {
                        long lso =
                                TxnClients.endOffsets(bootstrap, ERRORS_TOPIC, 3, READ_COMMITTED)
                                        .get(1);
                        long hw =
                                TxnClients.endOffsets(bootstrap, ERRORS_TOPIC, 3, READ_UNCOMMITTED)
                                        .get(1);
                        return lso == hw;
                    },
                    Duration.ofSeconds(60));
            timedOutError = errorOf(slow::commitTransaction);
        }
        List<String> timedOutCommitted = values(bootstrap, 1, true);

        List<String> invalidTimeout;
        try (KafkaProducer<String, String> p =
                TxnClients.producer(
                        bootstrap,
                        "too-long",
                        Map.of("transaction.timeout.ms", TOO_LONG_TIMEOUT_MS))) {
            invalidTimeout = errorWithMessage(p::initTransactions);
        }
        return new TxnOutcome(
                committed,
                uncommitted,
                endCommitted,
                endUncommitted,
                whileOpen,
                committedWhileOpen,
                endAfterOpen,
                zombieError,
                fencedCommitted,
                fencedUncommitted,
                timedOutError,
                timedOutCommitted,
                invalidTimeout);
    }

    /**
     * Checks this outcome against what the script implies (used on Kafka's outcome, as a check of
     * the test itself, and on tierlog's).
     */
    void assertMatchesModel(String server, TxnScript script, Txn open) {
        TxnScript.Expected exp = script.expected(TxnScript.zeros(PARTITIONS));
        assertThat(committed).as("%s: read_committed records", server).isEqualTo(exp.committed());
        assertThat(uncommitted).as("%s: read_uncommitted records", server).isEqualTo(exp.all());
        assertThat(endCommitted)
                .as("%s: endOffsets read_committed (= LSO = HW, no txn open)", server)
                .isEqualTo(exp.endOffsets());
        assertThat(endUncommitted)
                .as("%s: endOffsets read_uncommitted", server)
                .isEqualTo(exp.endOffsets());
        Map<Integer, Long> hwOpen = new TreeMap<>(exp.endOffsets());
        open.records().forEach(r -> hwOpen.merge(r.partition(), 1L, Long::sum));
        // the LSO while open: the open transaction's first offset where it wrote, else the HW
        for (String k : List.of("endOffsets read_committed", "ListOffsets latest read_committed")) {
            assertThat(whileOpen.get(k))
                    .as("%s: %s while open", server, k)
                    .isEqualTo(exp.endOffsets());
        }
        for (String k :
                List.of("endOffsets read_uncommitted", "ListOffsets latest read_uncommitted")) {
            assertThat(whileOpen.get(k)).as("%s: %s while open", server, k).isEqualTo(hwOpen);
        }
        assertThat(committedWhileOpen)
                .as("%s: read_committed while a transaction is open", server)
                .isEqualTo(exp.committed());
        Map<Integer, Long> after = new TreeMap<>(hwOpen);
        open.partitions().forEach(p -> after.merge(p, 1L, Long::sum));
        assertThat(endAfterOpen)
                .as("%s: LSO after the open one committed", server)
                .isEqualTo(after);
        assertThat(fencedTopicCommitted)
                .as("%s: read_committed after fencing: the zombie's record aborted", server)
                .containsExactly("successor");
        assertThat(fencedTopicUncommitted)
                .as("%s: read_uncommitted sees the zombie's aborted record", server)
                .containsExactly("zombie", "successor");
        assertThat(timedOutTopicCommitted)
                .as("%s: the timed-out transaction's record is aborted", server)
                .isEmpty();
        assertThat(zombieCommitError)
                .as("%s: the zombie's commit", server)
                .isNotEmpty()
                .first()
                .isEqualTo("ProducerFencedException");
        assertThat(invalidTimeoutError)
                .as(
                        "%s: initTransactions with a timeout above the maximum: the client's"
                                + " fatal KafkaException naming INVALID_TRANSACTION_TIMEOUT",
                        server)
                .hasSize(2)
                .last(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("transaction.max.timeout.ms");
        assertThat(timedOutCommitError)
                .as("%s: commit after the timeout abort", server)
                .isNotEmpty();
    }

    private static List<String> values(String bootstrap, int partition, boolean committed) {
        return TxnClients.readAll(
                        bootstrap, ERRORS_TOPIC, 3, committed ? READ_COMMITTED : READ_UNCOMMITTED)
                .get(partition)
                .stream()
                .map(Seen::value)
                .collect(Collectors.toList());
    }

    interface Call {
        void run() throws Exception;
    }

    /**
     * As {@link #errorOf}, with the outermost message last: for errors whose message the client
     * makes from the error code, so that it names the code.
     */
    private static List<String> errorWithMessage(Call call) {
        try {
            call.run();
            return List.of();
        } catch (Exception e) {
            List<String> r = new ArrayList<>(TxnClients.chain(e));
            r.add(String.valueOf(e.getMessage()));
            return r;
        }
    }

    private static List<String> errorOf(Call call) {
        try {
            call.run();
            return List.of();
        } catch (Exception e) {
            return TxnClients.chain(e);
        }
    }
}

package io.tierlog.itests.eos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Apache Kafka 4.4's {@code kafka-transactions} tool ({@code TransactionsCommand}, a child JVM per
 * command, as an operator runs it) with every command's exit code and table checked: {@code list},
 * {@code describe}, {@code describe-producers}, {@code forceTerminateTransaction} (4.4's name of
 * force-terminate), and a hanging transaction (its coordinator's state deleted while the server was
 * killed) found by {@code find-hanging} and ended by {@code abort}; and {@code ProducerPerformance
 * --transactional-id} running to its end. Against Apache Kafka 4.4 (proving the test) and tierlog
 * (skipped until tierlog finalizes {@code transaction.version}).
 *
 * <p>Not thread-safe (one test thread).
 */
class TransactionsToolIT {
    private static final String TOPIC = "tool-t";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir Path dir;
    private TxnTarget target;
    private final List<KafkaProducer<String, String>> producers = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (KafkaProducer<String, String> p : producers) {
            p.close(Duration.ZERO);
        }
        if (target != null) {
            target.close();
        }
    }

    private void open(String server) throws Exception {
        target = TxnTarget.of(server, dir.resolve(server));
        assumeTrue(
                target.servesTransactions(),
                server + " does not finalize transaction.version: transactions are switched off");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", target.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /** A finished command: exit code and output. */
    private record Run(int exit, String out) {
        /** The rows of the table the command printed, by column header. */
        List<Map<String, String>> rows(String firstHeader) {
            List<Map<String, String>> rows = new ArrayList<>();
            String[] header = null;
            for (String line : out.split("\n")) {
                // cells are tab-separated and space-padded; an empty cell stays a cell
                String[] cells = line.split("\t", -1);
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = cells[i].trim();
                }
                int n =
                        cells.length > 0 && cells[cells.length - 1].isEmpty()
                                ? cells.length - 1
                                : cells.length;
                if (header == null) {
                    if (n > 1 && cells[0].equals(firstHeader)) {
                        header = java.util.Arrays.copyOf(cells, n);
                    }
                } else if (n == header.length) {
                    Map<String, String> row = new LinkedHashMap<>();
                    for (int i = 0; i < n; i++) {
                        row.put(header[i], cells[i]);
                    }
                    rows.add(row);
                }
            }
            assertThat(header).as("a table with header %s in:\n%s", firstHeader, out).isNotNull();
            return rows;
        }
    }

    private Run tool(String main, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(main);
        cmd.addAll(args);
        Path out = Files.createTempFile(dir, "tool-", ".out");
        Process p = KafkaBroker.javaProcess(cmd, out).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("did not finish: " + cmd);
        }
        Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        System.out.println(String.join(" ", args) + " -> " + r.exit + "\n" + r.out);
        return r;
    }

    private Run transactions(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--bootstrap-server", target.bootstrap()));
        all.addAll(List.of(args));
        Run r = tool("org.apache.kafka.tools.TransactionsCommand", all);
        assertThat(r.exit())
                .as("kafka-transactions %s:\n%s", String.join(" ", args), r.out())
                .isZero();
        return r;
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        c.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);
        KafkaProducer<String, String> p =
                new KafkaProducer<>(c, new StringSerializer(), new StringSerializer());
        producers.add(p);
        p.initTransactions();
        return p;
    }

    private static void send(KafkaProducer<String, String> p, String prefix, int n)
            throws Exception {
        for (int i = 0; i < n; i++) {
            p.send(new ProducerRecord<>(TOPIC, 0, prefix + i, prefix + i))
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private Map<String, String> describe(String transactionalId) throws Exception {
        return transactions("describe", "--transactional-id", transactionalId)
                .rows("CoordinatorId")
                .get(0);
    }

    private static Optional<Map<String, String>> row(
            List<Map<String, String>> rows, String column, String value) {
        return rows.stream().filter(r -> value.equals(r.get(column))).findFirst();
    }

    private List<String> committedValues() {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(TP));
            consumer.seekToBeginning(List.of(TP));
            long end = consumer.endOffsets(List.of(TP)).get(TP);
            Await.until(
                    "read_committed read up to the last stable offset " + end,
                    () -> {
                        for (ConsumerRecord<String, String> r :
                                consumer.poll(Duration.ofMillis(200))) {
                            values.add(r.value());
                        }
                        return consumer.position(TP) >= end;
                    },
                    Duration.ofSeconds(60));
        }
        return values;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka", "tierlog"})
    void everyKafkaTransactionsCommandAnswersWithItsTable(String server) throws Exception {
        open(server);
        KafkaProducer<String, String> committed = producer("tool-committed");
        committed.beginTransaction();
        send(committed, "c", 5);
        committed.commitTransaction(); // offsets 0-4, its marker at 5
        KafkaProducer<String, String> open = producer("tool-open");
        open.beginTransaction();
        send(open, "o", 3); // from offset 6, left open

        List<Map<String, String>> listed = transactions("list").rows("TransactionalId");
        Map<String, String> openRow = row(listed, "TransactionalId", "tool-open").orElseThrow();
        assertThat(openRow.get("TransactionState")).isEqualTo("Ongoing");
        assertThat(openRow.get("Coordinator")).isEqualTo(Integer.toString(target.brokerId()));
        assertThat(
                        row(listed, "TransactionalId", "tool-committed")
                                .orElseThrow()
                                .get("TransactionState"))
                .isEqualTo("CompleteCommit");
        String openPid = openRow.get("ProducerId");

        Map<String, String> described =
                transactions("describe", "--transactional-id", "tool-open")
                        .rows("CoordinatorId")
                        .get(0);
        assertThat(described)
                .containsEntry("TransactionalId", "tool-open")
                .containsEntry("ProducerId", openPid)
                .containsEntry("TransactionState", "Ongoing")
                .containsEntry("TransactionTimeoutMs", "600000")
                .containsEntry("TopicPartitions", TOPIC + "-0");
        assertThat(Long.parseLong(described.get("CurrentTransactionStartTimeMs"))).isPositive();

        List<Map<String, String>> producersOfTp =
                transactions("describe-producers", "--topic", TOPIC, "--partition", "0")
                        .rows("ProducerId");
        assertThat(producersOfTp).hasSize(2);
        assertThat(row(producersOfTp, "ProducerId", openPid).orElseThrow())
                .containsEntry("CurrentTransactionStartOffset", "6")
                .containsEntry("LastSequence", "2");
        assertThat(producersOfTp)
                .filteredOn(r -> !r.get("ProducerId").equals(openPid))
                .singleElement()
                .satisfies(
                        r -> assertThat(r).containsEntry("CurrentTransactionStartOffset", "None"));

        assertThat(
                        transactions(
                                        "find-hanging",
                                        "--topic",
                                        TOPIC,
                                        "--max-transaction-timeout",
                                        "0")
                                .rows("Topic"))
                .as("an open transaction that its coordinator knows is not hanging")
                .isEmpty();

        KafkaProducer<String, String> forced = producer("tool-forced");
        forced.beginTransaction();
        send(forced, "f", 2); // offsets 9-10
        Map<String, String> before = describe("tool-forced");
        assertThat(before).containsEntry("TransactionState", "Ongoing");
        transactions("forceTerminateTransaction", "--transactionalId", "tool-forced");
        Map<String, String> after =
                Await.until(
                        "tool-forced's transaction aborted and its producer fenced",
                        () -> describe("tool-forced"),
                        d ->
                                d.get("TransactionState").equals("Empty")
                                        || d.get("TransactionState").equals("CompleteAbort"),
                        Duration.ofSeconds(60));
        assertThat(Integer.parseInt(after.get("ProducerEpoch")))
                .as("a new epoch fences the producer")
                .isGreaterThan(Integer.parseInt(before.get("ProducerEpoch")));
        assertThat(after)
                .containsEntry("TopicPartitions", "")
                .containsEntry("ProducerId", before.get("ProducerId"));
        assertThat(catchThrowable(forced::commitTransaction))
                .as("the producer was fenced")
                .isInstanceOf(KafkaException.class);

        // the coordinator forgets tool-open: its transaction on the partition now hangs
        open.close(Duration.ZERO);
        target.kill();
        target.deleteTransactionState();
        target.restart();
        List<Map<String, String>> hanging =
                Await.until(
                        "find-hanging to list tool-open's transaction",
                        () ->
                                transactions(
                                                "find-hanging",
                                                "--topic",
                                                TOPIC,
                                                "--max-transaction-timeout",
                                                "0")
                                        .rows("Topic"),
                        rows -> !rows.isEmpty(),
                        Duration.ofSeconds(90));
        assertThat(hanging)
                .singleElement()
                .satisfies(
                        r ->
                                assertThat(r)
                                        .containsEntry("Topic", TOPIC)
                                        .containsEntry("Partition", "0")
                                        .containsEntry("ProducerId", openPid)
                                        .containsEntry("StartOffset", "6"));
        assertThat(committedValues())
                .as("read_committed stops at the hanging transaction")
                .containsExactly("c0", "c1", "c2", "c3", "c4");

        transactions("abort", "--topic", TOPIC, "--partition", "0", "--start-offset", "6");
        assertThat(
                        transactions(
                                        "find-hanging",
                                        "--topic",
                                        TOPIC,
                                        "--max-transaction-timeout",
                                        "0")
                                .rows("Topic"))
                .isEmpty();
        assertThat(
                        row(
                                        transactions(
                                                        "describe-producers",
                                                        "--topic",
                                                        TOPIC,
                                                        "--partition",
                                                        "0")
                                                .rows("ProducerId"),
                                        "ProducerId",
                                        openPid)
                                .orElseThrow())
                .containsEntry("CurrentTransactionStartOffset", "None");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", target.bootstrap()))) {
            long high =
                    admin.listOffsets(
                                    Map.of(TP, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                            .partitionResult(TP)
                            .get(60, TimeUnit.SECONDS)
                            .offset();
            assertThat(committedValues())
                    .as("after the abort, the committed records only, up to the end (%d)", high)
                    .containsExactly("c0", "c1", "c2", "c3", "c4");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka", "tierlog"})
    void producerPerformanceWithATransactionalIdRunsToTheEnd(String server) throws Exception {
        open(server);
        int records = 5000;
        Run r =
                tool(
                        "org.apache.kafka.tools.ProducerPerformance",
                        List.of(
                                "--topic",
                                TOPIC,
                                "--num-records",
                                Integer.toString(records),
                                "--record-size",
                                "100",
                                "--throughput",
                                "-1",
                                "--command-property",
                                "bootstrap.servers=" + target.bootstrap(),
                                "--transactional-id",
                                "perf-txn",
                                "--transaction-duration-ms",
                                "100"));
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out()).contains(records + " records sent");
        assertThat(committedValues()).hasSize(records);
        assertThat(
                        row(
                                        transactions("list").rows("TransactionalId"),
                                        "TransactionalId",
                                        "perf-txn")
                                .orElseThrow()
                                .get("TransactionState"))
                .isEqualTo("CompleteCommit");
    }
}

package io.tierlog.itests.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Property;
import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.itests.txn.TxnScript.Txn;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential test of transactions against Apache Kafka 4.4.0 (a KRaft broker in a child JVM,
 * formatted at the transaction version under test): one seeded sequence of committed and aborted
 * transactions over six partitions, one more transaction held open, a fenced zombie, a transaction
 * aborted by its timeout and a timeout above {@code transaction.max.timeout.ms} go to Kafka and
 * then to tierlog. Everything a kafka-clients 4.4 client observes ({@link TxnOutcome}:
 * read_committed and read_uncommitted records with their offsets, end offsets, the LSO while a
 * transaction is open through endOffsets and ListOffsets in both isolations, the errors) must be
 * equal; Kafka's outcome is first checked against the script's model, so a wrong expectation is a
 * failure of the test and not of tierlog. The servers run one after the other (two cores). Both
 * transaction versions: Kafka formatted with {@code --feature transaction.version=N}, tierlog with
 * {@code transaction.version=N}.
 */
class TransactionsDifferentialIT {
    @TempDir Path dir;

    /** transaction.version 2 (KIP-890: epoch bump per transaction, implicit partition add). */
    @Test
    void committedRecordsEndOffsetsLsoWhileOpenAndErrorsAreKafka44sAtTv2() {
        compare(2);
    }

    /** transaction.version 1: AddPartitionsToTxn v3, EndTxn v4 (what older clients speak). */
    @Test
    void committedRecordsEndOffsetsLsoWhileOpenAndErrorsAreKafka44sAtTv1() {
        compare(1);
    }

    private void compare(int transactionVersion) {
        Property.forAll(
                1,
                random -> {
                    TxnScript script =
                            TxnScript.random(
                                    random,
                                    TxnOutcome.PARTITIONS,
                                    Property.between(random, 15, 35),
                                    "s");
                    Txn open = openTxn(random);
                    TxnOutcome kafka;
                    Map<String, String> kafkaSettings = new HashMap<>(TxnOutcome.TXN_SETTINGS);
                    // one partition for __transaction_state: a broker on two busy cores
                    // starts its coordinator in seconds rather than loading fifty
                    kafkaSettings.put("transaction.state.log.num.partitions", "1");
                    try (KafkaBroker broker =
                            KafkaBroker.start(
                                    dir.resolve("kafka-" + random.nextInt()),
                                    kafkaSettings,
                                    List.of(
                                            "--feature",
                                            "transaction.version=" + transactionVersion))) {
                        kafka = TxnOutcome.observe(broker.bootstrapServers(), script, open);
                    }
                    System.out.println("TV" + transactionVersion + " kafka 4.4: " + summary(kafka));
                    kafka.assertMatchesModel("Kafka 4.4 (a check of the test)", script, open);

                    TxnOutcome tierlog;
                    try (TierlogServer server =
                            TierlogServer.start(
                                    Config.of(tierlogSettings(random, transactionVersion)))) {
                        tierlog = TxnOutcome.observe("127.0.0.1:" + server.port(), script, open);
                    }
                    System.out.println(
                            "TV" + transactionVersion + " tierlog:   " + summary(tierlog));
                    tierlog.assertMatchesModel("tierlog", script, open);
                    assertThat(tierlog)
                            .as("tierlog (first) vs Kafka 4.4 (second)")
                            .isEqualTo(kafka);
                });
    }

    /** The transaction held open: a few records on two or three partitions. */
    private static Txn openTxn(Random random) {
        TxnScript one = TxnScript.random(random, TxnOutcome.PARTITIONS, 1, "open");
        return new Txn(-1, true, one.txns().get(0).records());
    }

    private Map<String, String> tierlogSettings(Random random, int transactionVersion) {
        Map<String, String> s = new HashMap<>(TxnOutcome.TXN_SETTINGS);
        s.put("transaction.version", Integer.toString(transactionVersion));
        s.put(TxnOutcome.COORDINATOR_ENABLE, "true");
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("schema.registry.listen", "");
        s.put("data.dir", dir.resolve("tierlog-" + random.nextInt()).toString());
        s.put("num.network.threads", "2");
        return s;
    }

    private static String summary(TxnOutcome o) {
        return "end offsets "
                + o.endCommitted()
                + ", while open "
                + o.whileOpen()
                + ", zombie commit "
                + o.zombieCommitError()
                + ", commit after timeout "
                + o.timedOutCommitError()
                + ", too-long timeout "
                + o.invalidTimeoutError();
    }
}

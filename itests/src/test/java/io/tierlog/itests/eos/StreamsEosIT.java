package io.tierlog.itests.eos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka Streams 4.4 {@code exactly_once_v2} word count ({@link EosWordCountApp}, a child JVM)
 * across a kill -9 of the app and a kill -9 of the server, each while the app is in the middle of
 * its input (so in the middle of a transaction: it commits every 200 ms and spends a few ms per
 * line). Afterwards a {@code read_committed} consumer sees every input line id exactly once and the
 * latest count of each word equal to the count of the input, and a {@code read_uncommitted} one
 * sees more: records of transactions the kills cut short, aborted. Run against Apache Kafka 4.4
 * (proving the test) and tierlog (skipped until tierlog finalizes {@code transaction.version}).
 *
 * <p>Not thread-safe (one test thread).
 */
class StreamsEosIT {
    private static final int PARTITIONS = 2;
    private static final int LINES_PER_ROUND = 1200;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final List<String> WORDS =
            List.of("tier", "log", "cold", "hot", "txn", "commit", "abort", "marker", "offset");

    @TempDir Path dir;
    private TxnTarget target;
    private Process app;
    private int apps;
    private final Random random = new Random(20261202L);
    private final Map<String, Long> expected = new TreeMap<>();
    private int lines;

    @AfterEach
    void stop() throws Exception {
        if (app != null) {
            app.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (target != null) {
            target.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka", "tierlog"})
    void wordCountIsExactAcrossKillsOfTheAppAndOfTheServerMidTransaction(String server)
            throws Exception {
        target = TxnTarget.of(server, dir.resolve(server));
        assumeTrue(
                target.servesTransactions(),
                server + " does not finalize transaction.version: transactions are switched off");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", target.bootstrap()))) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(EosWordCountApp.IN, PARTITIONS, (short) 1),
                                    new NewTopic(EosWordCountApp.COUNTS, PARTITIONS, (short) 1),
                                    new NewTopic(EosWordCountApp.IDS, PARTITIONS, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        Path stateDir = dir.resolve("streams-state");
        try (Output committed = new Output(target.bootstrap(), "read_committed")) {
            produce(LINES_PER_ROUND);
            app = startApp(stateDir);
            committed.awaitIds(LINES_PER_ROUND / 4);
            app.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // kill -9 of the app
            app = startApp(stateDir);

            produce(LINES_PER_ROUND);
            committed.awaitIds(LINES_PER_ROUND + LINES_PER_ROUND / 4);
            target.kill(); // kill -9 of the server
            target.restart();

            committed.awaitIds(lines);
            committed.awaitDrained();
            assertThat(committed.duplicateIds())
                    .as("input lines processed more than once (visible to read_committed)")
                    .isEmpty();
            assertThat(committed.ids).hasSize(lines);
            assertThat(committed.counts).as("latest count per word").isEqualTo(expected);
        }
        try (Output all = new Output(target.bootstrap(), "read_uncommitted")) {
            all.awaitDrained();
            assertThat(all.ids.size())
                    .as("records of aborted transactions are there for read_uncommitted")
                    .isGreaterThan(lines);
        }
    }

    private Process startApp(Path stateDir) throws Exception {
        Path out = dir.resolve("streams-" + (apps++) + ".out");
        return KafkaBroker.javaProcess(
                        List.of(
                                EosWordCountApp.class.getName(),
                                target.bootstrap(),
                                stateDir.toString(),
                                "3"),
                        out)
                .start();
    }

    /** Produces {@code n} lines with new ids, counting their words into {@link #expected}. */
    private void produce(int n) throws Exception {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrap());
        c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> p =
                new KafkaProducer<>(c, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                List<String> words = new ArrayList<>();
                for (int w = 1 + random.nextInt(4); w > 0; w--) {
                    String word = WORDS.get(random.nextInt(WORDS.size()));
                    words.add(word);
                    expected.merge(word, 1L, Long::sum);
                }
                p.send(
                        new ProducerRecord<>(
                                EosWordCountApp.IN, "line-" + lines++, String.join(" ", words)));
            }
            p.flush();
        }
    }

    /** What a consumer of the app's two output topics sees at one isolation level. */
    private static final class Output implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final KafkaConsumer<byte[], byte[]> uncommittedEnds;
        private final List<TopicPartition> partitions = new ArrayList<>();
        final List<String> ids = new ArrayList<>();
        final Map<String, Long> counts = new TreeMap<>();

        Output(String bootstrap, String isolation) {
            consumer = consumer(bootstrap, isolation);
            uncommittedEnds = consumer(bootstrap, "read_uncommitted");
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(EosWordCountApp.IDS, p));
                partitions.add(new TopicPartition(EosWordCountApp.COUNTS, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String isolation) {
            Map<String, Object> c = new HashMap<>();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }

        private void poll() {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                String key = new String(r.key());
                if (r.topic().equals(EosWordCountApp.IDS)) {
                    ids.add(key);
                } else {
                    counts.put(key, java.nio.ByteBuffer.wrap(r.value()).getLong());
                }
            }
        }

        /** Waits until {@code n} distinct ids are visible. */
        void awaitIds(int n) {
            Await.until(
                    n + " distinct line ids in the output",
                    () -> {
                        poll();
                        return new HashSet<>(ids).size();
                    },
                    seen -> seen >= n,
                    TIMEOUT);
        }

        /** Waits until no transaction is open on the outputs and everything is read. */
        void awaitDrained() {
            Await.until(
                    "the outputs read to their end with no transaction open",
                    () -> {
                        poll();
                        Map<TopicPartition, Long> stable = consumer.endOffsets(partitions);
                        Map<TopicPartition, Long> high = uncommittedEnds.endOffsets(partitions);
                        for (TopicPartition tp : partitions) {
                            if (!stable.get(tp).equals(high.get(tp))
                                    || consumer.position(tp) < stable.get(tp)) {
                                return false;
                            }
                        }
                        return true;
                    },
                    TIMEOUT);
        }

        Set<String> duplicateIds() {
            Set<String> seen = new HashSet<>();
            Set<String> dup = new HashSet<>();
            for (String id : ids) {
                if (!seen.add(id)) {
                    dup.add(id);
                }
            }
            return dup;
        }

        @Override
        public void close() {
            consumer.close();
            uncommittedEnds.close();
        }
    }
}

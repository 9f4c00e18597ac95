package io.tierlog.server.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.common.Config;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kafka-clients 4.4 against a real server with transactions on, at both protocol levels the server
 * can finalize: at {@code transaction.version=2} the client speaks TV2 (Produce v12, EndTxn v5,
 * TxnOffsetCommit v5), at 1 the older protocol (AddPartitionsToTxn, AddOffsetsToTxn). Committed
 * records and offsets are seen by {@code read_committed}, aborted ones never. Needs the engine's
 * transaction support (skipped on a build whose engine still lacks it).
 */
class TransactionalClientsIT {
    @TempDir Path dataDir;

    @ParameterizedTest(name = "transaction.version={0}")
    @ValueSource(ints = {1, 2})
    void committedRecordsAndOffsetsAreSeenAndAbortedOnesNever(int level) throws Exception {
        try (TierlogServer server =
                TierlogServer.start(
                        Config.of(
                                Map.of(
                                        "data.dir", dataDir.toString(),
                                        "listeners", "PLAINTEXT://127.0.0.1:0",
                                        "schema.registry.listen", "",
                                        "tiered.enabled", "false",
                                        "transaction.coordinator.enable", "true",
                                        "transaction.version", String.valueOf(level))))) {
            try {
                server.engine().transactions().needsVerification(new TopicPartition("x", 0), 1);
            } catch (UnsupportedOperationException e) {
                assumeTrue(false, "the engine's Transactions facade is implemented");
            } catch (RuntimeException expected) {
                // an unknown partition: the facade is there
            }
            server.engine().topicRegistry().create("t", 2, Map.of(), false);
            server.engine().topicRegistry().create("in", 1, Map.of(), false);
            String bootstrap = "127.0.0.1:" + server.port();
            TopicPartition in0 = new TopicPartition("in", 0);

            try (KafkaProducer<String, String> p = producer(bootstrap)) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("t", 0, null, "c1"));
                p.send(new ProducerRecord<>("t", 1, null, "c2"));
                p.sendOffsetsToTransaction(
                        Map.of(in0, new OffsetAndMetadata(42)), new ConsumerGroupMetadata("g"));
                p.commitTransaction();

                p.beginTransaction();
                p.send(new ProducerRecord<>("t", 0, null, "a1"));
                p.sendOffsetsToTransaction(
                        Map.of(in0, new OffsetAndMetadata(99)), new ConsumerGroupMetadata("g"));
                p.flush();
                p.abortTransaction();

                p.beginTransaction();
                p.send(new ProducerRecord<>("t", 1, null, "c3"));
                p.commitTransaction();
            }

            assertThat(values(bootstrap, "read_committed", 3))
                    .containsExactlyInAnyOrder("c1", "c2", "c3");
            assertThat(values(bootstrap, "read_uncommitted", 4))
                    .containsExactlyInAnyOrder("c1", "c2", "a1", "c3");
            try (KafkaConsumer<String, String> c = consumer(bootstrap, "read_committed", "g")) {
                assertThat(c.committed(java.util.Set.of(in0)).get(in0).offset()).isEqualTo(42);
            }
            // TV2 ends every transaction with a new epoch; TV1 keeps the one InitProducerId gave.
            try (org.apache.kafka.clients.admin.Admin admin =
                    org.apache.kafka.clients.admin.Admin.create(
                            Map.of("bootstrap.servers", bootstrap))) {
                org.apache.kafka.clients.admin.TransactionDescription d =
                        admin.describeTransactions(List.of("app"))
                                .description("app")
                                .get(20, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(d.producerEpoch()).isEqualTo(level >= 2 ? 3 : 0);
            }
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "app");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(
            String bootstrap, String isolation, String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** Reads {@code t} from the start until {@code expected} records came or 20 s passed. */
    private static List<String> values(String bootstrap, String isolation, int expected) {
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c =
                consumer(bootstrap, isolation, "reader-" + isolation)) {
            c.assign(List.of(new TopicPartition("t", 0), new TopicPartition("t", 1)));
            c.seekToBeginning(c.assignment());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (out.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
            // one more poll: nothing beyond what is expected may come
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
                out.add(r.value());
            }
        }
        return out;
    }
}

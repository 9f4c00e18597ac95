package io.tierlog.itests.txn;

import io.tierlog.itests.txn.TxnScript.Rec;
import io.tierlog.itests.txn.TxnScript.Seen;
import io.tierlog.itests.txn.TxnScript.Txn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * kafka-clients 4.4 as the transaction tests use it against any server: a transactional producer,
 * the script runner, reads to the end in one isolation, end offsets through the consumer and
 * through Admin ListOffsets. Stateless, thread-safe (each call has its own clients).
 */
final class TxnClients {
    static final Duration READ_TIMEOUT = Duration.ofSeconds(90);

    private TxnClients() {}

    /**
     * A transactional producer for {@code txnId} (acks=all, idempotent), with {@code extra}
     * producer settings on top; the caller closes it.
     */
    static KafkaProducer<String, String> producer(
            String bootstrap, String txnId, Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        p.putAll(extra);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /**
     * Runs every transaction of {@code script} on {@code topic} with one producer: begin, send,
     * flush (so that even an aborted transaction's records are in the log, as the model says), then
     * commit or abort. Fails on the first error.
     */
    static void run(String bootstrap, String topic, String txnId, TxnScript script)
            throws Exception {
        try (KafkaProducer<String, String> producer = producer(bootstrap, txnId, Map.of())) {
            producer.initTransactions();
            for (Txn t : script.txns()) {
                producer.beginTransaction();
                for (Rec r : t.records()) {
                    producer.send(new ProducerRecord<>(topic, r.partition(), null, r.value()));
                }
                producer.flush();
                if (t.commit()) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
            }
        }
    }

    /** A consumer without group or auto-commit in {@code isolation}; the caller closes it. */
    static KafkaConsumer<String, String> consumer(String bootstrap, IsolationLevel isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 << 10);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 50);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }

    /**
     * Everything a consumer in {@code isolation} reads from each partition's beginning up to the
     * end offset in that isolation (the LSO for read_committed, the high watermark otherwise), per
     * partition in offset order.
     */
    static Map<Integer, List<Seen>> readAll(
            String bootstrap, String topic, int partitions, IsolationLevel isolation) {
        Map<Integer, List<Seen>> seen = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            seen.put(p, new ArrayList<>());
        }
        List<TopicPartition> tps = partitions(topic, partitions);
        try (KafkaConsumer<String, String> c = consumer(bootstrap, isolation)) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps, READ_TIMEOUT);
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!reached(c, end)) {
                if (System.nanoTime() > deadline) {
                    Map<TopicPartition, Long> positions = new HashMap<>();
                    tps.forEach(tp -> positions.put(tp, c.position(tp)));
                    throw new AssertionError(
                            isolation + " read did not reach " + end + ": at " + positions);
                }
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    seen.get(r.partition()).add(new Seen(r.partition(), r.offset(), r.value()));
                }
            }
        }
        return seen;
    }

    private static boolean reached(KafkaConsumer<?, ?> c, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** {@code KafkaConsumer.endOffsets} in {@code isolation}, per partition. */
    static Map<Integer, Long> endOffsets(
            String bootstrap, String topic, int partitions, IsolationLevel isolation) {
        try (KafkaConsumer<String, String> c = consumer(bootstrap, isolation)) {
            Map<Integer, Long> m = new TreeMap<>();
            c.endOffsets(partitions(topic, partitions), READ_TIMEOUT)
                    .forEach((tp, o) -> m.put(tp.partition(), o));
            return m;
        }
    }

    /** Admin ListOffsets LATEST in {@code isolation}, per partition. */
    static Map<Integer, Long> listLatest(
            String bootstrap, String topic, int partitions, IsolationLevel isolation)
            throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            partitions(topic, partitions).forEach(tp -> q.put(tp, OffsetSpec.latest()));
            Map<Integer, Long> m = new TreeMap<>();
            admin.listOffsets(q, new ListOffsetsOptions(isolation))
                    .all()
                    .get()
                    .forEach((tp, info) -> m.put(tp.partition(), info.offset()));
            return m;
        }
    }

    /** The simple names of {@code t} and its causes, outermost first: what a client saw. */
    static List<String> chain(Throwable t) {
        List<String> names = new ArrayList<>();
        for (Throwable c = t; c != null && names.size() < 5; c = c.getCause()) {
            names.add(c.getClass().getSimpleName());
        }
        return names;
    }
}

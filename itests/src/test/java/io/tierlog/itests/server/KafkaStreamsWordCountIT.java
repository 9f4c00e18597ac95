package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka Streams 4.4 ({@code at_least_once}) against a tiered tierlog server: a word count
 * whose {@code groupBy} repartitions through an internal topic and whose count store is backed by a
 * changelog topic, both created by Streams itself (the changelog compacted, checked with
 * describeConfigs; the repartition topic purged with DeleteRecords as Streams does). The counts
 * read from the output topic are exactly the counts of the input (a graceful close commits the
 * input offsets together with the state, so at-least-once reprocesses nothing). Then the app is
 * closed, its local state dir deleted, and it is started again: it restores its store from the
 * changelog (partly from the cold tier: small segments, and closed segments leave the hot tier once
 * offloaded), answers interactive queries with the same counts before any new input, and the counts
 * continue correctly over new input.
 */
class KafkaStreamsWordCountIT {
    private static final String APP = "wordcount-it";
    private static final String IN = "text";
    private static final String OUT = "word-counts";
    private static final String STORE = "counts";
    private static final String CHANGELOG = APP + "-" + STORE + "-changelog";
    private static final String REPARTITION = APP + "-" + STORE + "-repartition";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> WORDS =
            List.of(
                    "tier",
                    "log",
                    "kafka",
                    "streams",
                    "cold",
                    "hot",
                    "compact",
                    "segment",
                    "offset",
                    "parquet",
                    "catalog",
                    "cleaner",
                    "tombstone",
                    "key",
                    "value",
                    "topic");

    @TempDir Path dir;
    private ServerHarness server;
    private KafkaStreams streams;
    private final Random random = new Random(20261201L);

    @AfterEach
    void stop() {
        if (streams != null) {
            streams.close(Duration.ofSeconds(30));
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aWordCountCreatesItsTopicsCountsExactlyAndRestoresItsStoreFromTheChangelog()
            throws Exception {
        Map<String, String> s = new HashMap<>();
        s.put("segment.bytes", Integer.toString(8 << 10));
        s.put("offload.target.object.bytes", Integer.toString(8 << 10));
        // every closed segment leaves the hot tier once offloaded: a byte bound would depend on how
        // small the cleaner made the first segment (a cleaned segment can fit under the bound and
        // stay, and then nothing of the restore is read from the cold tier)
        s.put("local.retention.ms", "0");
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "200");
        s.put("retention.check.interval.ms", "200");
        server = new ServerHarness(dir.resolve("data"), s);
        Path stateDir = dir.resolve("state");
        try (Admin admin = admin()) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(IN, 2, (short) 1),
                                    new NewTopic(OUT, 2, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        Map<String, Long> expected = new TreeMap<>();
        produce(400, expected);

        streams = start(stateDir);
        awaitOutputCounts(expected);
        try (Admin admin = admin()) {
            assertThat(topicConfig(admin, CHANGELOG, "cleanup.policy"))
                    .as("Streams created its changelog compacted")
                    .isEqualTo("compact");
            assertThat(topicConfig(admin, REPARTITION, "cleanup.policy")).isEqualTo("delete");
            assertThat(
                            admin.describeTopics(List.of(REPARTITION))
                                    .allTopicNames()
                                    .get()
                                    .get(REPARTITION)
                                    .partitions())
                    .as("as many partitions as the input")
                    .hasSize(2);
            Await.until(
                    "Streams purged consumed records of its repartition topic (DeleteRecords)",
                    () -> earliest(admin, new TopicPartition(REPARTITION, 0)) > 0,
                    TIMEOUT);
            for (int p = 0; p < 2; p++) {
                String t = CHANGELOG;
                int partition = p;
                Await.until(
                        t + "-" + p + " starts in the cold tier only",
                        () -> server.server().engine().inspect(Optional.of(t)).get(partition),
                        r -> r.coldObjects() > 0 && r.hotLogStartOffset() > r.coldLogStartOffset(),
                        TIMEOUT);
            }
        }

        streams.close(
                CloseOptions.groupMembershipOperation(
                                CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(30)));
        streams = null;
        deleteRecursively(stateDir);
        assertThat(stateDir).doesNotExist();

        streams = start(stateDir);
        Map<String, Long> restored = awaitStore(expected.size());
        assertThat(restored)
                .as("the store restored from the changelog, before any new input")
                .isEqualTo(expected);

        produce(200, expected);
        awaitOutputCounts(expected);
        assertThat(awaitStore(expected.size())).isEqualTo(expected);
    }

    private Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", server.bootstrap()));
    }

    private KafkaStreams start(Path stateDir) {
        StreamsBuilder b = new StreamsBuilder();
        b.<String, String>stream(IN)
                .flatMapValues(line -> List.of(line.split(" ")))
                .groupBy((k, word) -> word)
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE))
                .toStream()
                .to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        // small batches, so that each changelog partition gets several appends and rolls its
        // 8 KiB segments (one large batch fills a segment that no later append rolls: then
        // nothing of it is offloaded and the restore never reads the cold tier)
        p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 1024);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        KafkaStreams k = new KafkaStreams(b.build(), p);
        k.start();
        return k;
    }

    /** Produces {@code lines} random lines of words to {@code IN}, counting into {@code counts}. */
    private void produce(int lines, Map<String, Long> counts) throws Exception {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(c, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < lines; i++) {
                List<String> words = new ArrayList<>();
                for (int w = 1 + random.nextInt(8); w > 0; w--) {
                    String word = WORDS.get(random.nextInt(WORDS.size()));
                    words.add(word);
                    counts.merge(word, 1L, Long::sum);
                }
                producer.send(new ProducerRecord<>(IN, String.join(" ", words)));
            }
            producer.flush();
        }
    }

    /**
     * Reads {@code OUT} from the start until the latest count of every word is {@code expected}.
     */
    private void awaitOutputCounts(Map<String, Long> expected) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, Long> latest = new TreeMap<>();
        try (KafkaConsumer<String, Long> consumer =
                new KafkaConsumer<>(c, new StringDeserializer(), new LongDeserializer())) {
            consumer.assign(List.of(new TopicPartition(OUT, 0), new TopicPartition(OUT, 1)));
            Await.until(
                    "the latest output count of every word",
                    () -> {
                        for (ConsumerRecord<String, Long> r :
                                consumer.poll(Duration.ofMillis(100))) {
                            latest.put(r.key(), r.value());
                        }
                        return new TreeMap<>(latest);
                    },
                    expected::equals,
                    TIMEOUT);
        }
    }

    /** Waits until the store answers interactive queries with {@code words} keys; its content. */
    private Map<String, Long> awaitStore(int words) {
        return Await.until(
                "the count store queryable with " + words + " words",
                () -> {
                    if (streams.state() != KafkaStreams.State.RUNNING) {
                        return Map.<String, Long>of();
                    }
                    try {
                        ReadOnlyKeyValueStore<String, Long> store =
                                streams.store(
                                        StoreQueryParameters.fromNameAndType(
                                                STORE, QueryableStoreTypes.keyValueStore()));
                        Map<String, Long> m = new TreeMap<>();
                        try (KeyValueIterator<String, Long> it = store.all()) {
                            it.forEachRemaining(kv -> m.put(kv.key, kv.value));
                        }
                        return m;
                    } catch (InvalidStateStoreException e) {
                        return Map.<String, Long>of(); // still restoring or rebalancing
                    }
                },
                m -> m.size() >= words,
                TIMEOUT);
    }

    private static long earliest(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }

    private static String topicConfig(Admin admin, String topic, String key) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
        return c.get(key).value();
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.TieredWaits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock Java client (kafka-clients 4.4.0) against a tierlog server over real sockets:
 * idempotent produce with every codec, assign() consumption, seek and offset lookups, admin
 * operations, and server restarts during produce and consume.
 */
class JavaClientIT {
    private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");

    /** Records of the big round trip; -Dtierlog.it.records=... scales it. */
    private static final int TOTAL = Integer.getInteger("tierlog.it.records", 1_000_000);

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir, Map.of("num.partitions", "3"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void idempotentProducerRoundTripsAMillionRecordsWithEveryCodecAndEveryField() throws Exception {
        String topic = "codecs";
        int partitions = 4;
        Clients.createTopic(server.bootstrap(), topic, partitions);
        int perCodec = TOTAL / CODECS.size();
        AtomicReference<Exception> failure = new AtomicReference<>();
        for (String codec : CODECS) {
            try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), codec)) {
                for (int i = 0; i < perCodec; i++) {
                    p.send(
                            new ProducerRecord<>(
                                    topic,
                                    null,
                                    Clients.BASE_TS + i,
                                    Clients.key(codec, i),
                                    Clients.value(codec, i),
                                    List.of(new RecordHeader("i", Clients.header(i)))),
                            (md, e) -> {
                                if (e != null) {
                                    failure.compareAndSet(null, e);
                                }
                            });
                }
                p.flush();
            }
        }
        assertThat(failure.get()).as("send failure").isNull();

        Map<String, BitSet> seen = new HashMap<>();
        CODECS.forEach(c -> seen.put(c, new BitSet(perCodec)));
        long[] nextOffset = new long[partitions];
        int[] count = {0};
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            List<TopicPartition> tps = Clients.partitions(topic, partitions);
            c.assign(tps);
            c.seekToBeginning(tps);
            int total = perCodec * CODECS.size();
            TieredWaits.pollUntil(
                    c,
                    total + " records",
                    () -> count[0] >= total,
                    Duration.ofMinutes(3),
                    r -> {
                        assertThat(r.offset()).isEqualTo(nextOffset[r.partition()]++);
                        String codec = Clients.tag(r.key());
                        int i = Clients.index(r.key());
                        assertThat(seen.get(codec).get(i))
                                .as("duplicate %s:%d", codec, i)
                                .isFalse();
                        seen.get(codec).set(i);
                        assertThat(r.value()).isEqualTo(Clients.value(codec, i));
                        assertThat(r.timestamp()).isEqualTo(Clients.BASE_TS + i);
                        Header[] hs = r.headers().toArray();
                        assertThat(hs).hasSize(1);
                        assertThat(hs[0].key()).isEqualTo("i");
                        assertThat(hs[0].value()).isEqualTo(Clients.header(i));
                        count[0]++;
                    });
            assertThat(count[0]).isEqualTo(total);
            assertThat(c.poll(Duration.ofMillis(200))).isEmpty();
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            for (int p = 0; p < partitions; p++) {
                assertThat(end.get(tps.get(p))).isEqualTo(nextOffset[p]);
            }
        }
        for (String codec : CODECS) {
            assertThat(seen.get(codec).cardinality()).as(codec).isEqualTo(perCodec);
        }
    }

    @Test
    void seekOffsetsForTimesAndBeginningEndOffsetsAnswerAsKafkaDoes() throws Exception {
        String topic = "times";
        Clients.createTopic(server.bootstrap(), topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        int n = 1000;
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "lz4")) {
            for (int i = 0; i < n; i++) {
                p.send(
                        new ProducerRecord<>(
                                topic,
                                0,
                                Clients.BASE_TS + i * 10L,
                                Clients.key("t", i),
                                Clients.value("t", i)));
            }
            p.flush();
        }
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            c.assign(List.of(tp));
            assertThat(c.beginningOffsets(List.of(tp))).containsEntry(tp, 0L);
            assertThat(c.endOffsets(List.of(tp))).containsEntry(tp, (long) n);
            Map<TopicPartition, OffsetAndTimestamp> byTime =
                    c.offsetsForTimes(Map.of(tp, Clients.BASE_TS + 55));
            assertThat(byTime.get(tp).offset()).isEqualTo(6);
            assertThat(byTime.get(tp).timestamp()).isEqualTo(Clients.BASE_TS + 60);
            assertThat(c.offsetsForTimes(Map.of(tp, Clients.BASE_TS + 10 * n)).get(tp)).isNull();
            assertThat(c.offsetsForTimes(Map.of(tp, 0L)).get(tp).offset()).isZero();

            c.seek(tp, 500);
            ConsumerRecord<byte[], byte[]> first = pollOne(c);
            assertThat(first.offset()).isEqualTo(500);
            assertThat(first.value()).isEqualTo(Clients.value("t", 500));
            c.seek(tp, 999);
            assertThat(pollOne(c).offset()).isEqualTo(999);
            c.seek(tp, n);
            assertThat(c.poll(Duration.ofMillis(300))).isEmpty();
            assertThat(c.position(tp)).isEqualTo(n);
        }
        try (Admin a = Clients.admin(server.bootstrap())) {
            ListOffsetsResult.ListOffsetsResultInfo max =
                    a.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).partitionResult(tp).get();
            assertThat(max.offset()).isEqualTo(n - 1);
            assertThat(max.timestamp()).isEqualTo(Clients.BASE_TS + (n - 1) * 10L);
            assertThat(
                            a.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                                    .partitionResult(tp)
                                    .get()
                                    .offset())
                    .isZero();
            assertThat(
                            a.listOffsets(Map.of(tp, OffsetSpec.latest()))
                                    .partitionResult(tp)
                                    .get()
                                    .offset())
                    .isEqualTo(n);
        }
    }

    /** What an admin call's future fails with (the cause of its ExecutionException). */
    private static Throwable failure(KafkaFuture<?> f) {
        return org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, f::get)
                .getCause();
    }

    @Test
    void adminCreatesDescribesAndDeletesTopicsWithPerTopicConfigs() throws Exception {
        try (Admin a = Clients.admin(server.bootstrap())) {
            a.createTopics(
                            List.of(
                                    new NewTopic("configured", 2, (short) 1)
                                            .configs(Map.of("segment.bytes", "1048576"))))
                    .all()
                    .get();
            assertThat(
                            failure(
                                    a.createTopics(
                                                    List.of(
                                                            new NewTopic(
                                                                    "configured", 1, (short) 1)))
                                            .all()))
                    .isInstanceOf(TopicExistsException.class);
            assertThat(
                            failure(
                                    a.createTopics(
                                                    List.of(
                                                            new NewTopic("bad", 1, (short) 1)
                                                                    .configs(
                                                                            Map.of(
                                                                                    "no.such",
                                                                                    "1"))))
                                            .all()))
                    .isInstanceOf(
                            org.apache.kafka.common.errors.InvalidConfigurationException.class);

            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "configured");
            Config cfg = a.describeConfigs(List.of(res)).all().get().get(res);
            ConfigEntry seg = cfg.get("segment.bytes");
            assertThat(seg.value()).isEqualTo("1048576");
            assertThat(seg.source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(cfg.get("segment.ms").source())
                    .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThat(
                            a.describeTopics(List.of("configured"))
                                    .allTopicNames()
                                    .get()
                                    .get("configured")
                                    .partitions())
                    .hasSize(2);

            a.deleteTopics(List.of("configured")).all().get();
            assertThat(a.listTopics().names().get()).doesNotContain("configured");
            assertThat(failure(a.deleteTopics(List.of("configured")).all()))
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }

    @Test
    void restartsDuringProduceAndConsumeLoseNothingAcknowledgedAndDuplicateNothing()
            throws Exception {
        String topic = "restarts";
        int partitions = 3;
        int n = Integer.getInteger("tierlog.it.restartRecords", 150_000);
        Clients.createTopic(server.bootstrap(), topic, partitions);
        BitSet acked = new BitSet(n);
        AtomicInteger ackedCount = new AtomicInteger();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread producer =
                new Thread(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> p =
                                    Clients.producer(server.bootstrap(), "zstd")) {
                                for (int i = 0; i < n; i++) {
                                    int id = i;
                                    p.send(
                                            new ProducerRecord<>(
                                                    topic,
                                                    Clients.key("r", i),
                                                    Clients.value("r", i)),
                                            (md, e) -> {
                                                if (e != null) {
                                                    failure.compareAndSet(null, e);
                                                } else {
                                                    synchronized (acked) {
                                                        acked.set(id);
                                                    }
                                                    ackedCount.incrementAndGet();
                                                }
                                            });
                                }
                                p.flush();
                            }
                        },
                        "it-producer");
        producer.start();
        assertThat(Clients.await(Duration.ofMinutes(1), () -> ackedCount.get() > n / 3)).isTrue();
        server.restart();
        producer.join(Duration.ofMinutes(3).toMillis());
        assertThat(producer.isAlive()).isFalse();
        assertThat(failure.get()).as("send failure").isNull();
        assertThat(ackedCount.get()).isEqualTo(n);

        BitSet seen = new BitSet(n);
        int count = 0;
        boolean restarted = false;
        long[] next = new long[partitions];
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            List<TopicPartition> tps = Clients.partitions(topic, partitions);
            c.assign(tps);
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (count < n && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> r : recs) {
                    assertThat(r.offset()).isEqualTo(next[r.partition()]++);
                    int i = Clients.index(r.key());
                    assertThat(seen.get(i)).as("duplicate %d", i).isFalse();
                    seen.set(i);
                    assertThat(r.value()).isEqualTo(Clients.value("r", i));
                    count++;
                }
                if (!restarted && count > n / 2) {
                    server.restart();
                    restarted = true;
                }
            }
            assertThat(restarted).isTrue();
            assertThat(c.poll(Duration.ofMillis(300))).isEmpty();
        }
        assertThat(count).isEqualTo(n);
        BitSet missing = (BitSet) acked.clone();
        missing.andNot(seen);
        assertThat(missing.cardinality()).as("acknowledged but lost").isZero();
        assertThat(Arrays.stream(next).sum()).isEqualTo(n);
    }

    @Test
    void nioTransportServesProduceAndZeroCopyFetchLikeEpoll() throws Exception {
        server.close();
        server = new ServerHarness(dir.resolve("nio"), Map.of("epoll.enable", "false"));
        assertThat(server.server().usingEpoll()).isFalse();
        String topic = "nio";
        Clients.createTopic(server.bootstrap(), topic, 1);
        int n = 20_000;
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "gzip")) {
            for (int i = 0; i < n; i++) {
                p.send(new ProducerRecord<>(topic, Clients.key("n", i), Clients.value("n", i)));
            }
            p.flush();
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            TieredWaits.readInOrder(
                    c,
                    0,
                    n,
                    Duration.ofSeconds(60),
                    r ->
                            assertThat(r.value())
                                    .isEqualTo(Clients.value("n", Math.toIntExact(r.offset()))));
        }
    }

    private static ConsumerRecord<byte[], byte[]> pollOne(KafkaConsumer<byte[], byte[]> c) {
        return Await.until(
                        "a record",
                        () -> c.poll(Duration.ofMillis(200)),
                        rs -> !rs.isEmpty(),
                        Duration.ofSeconds(30))
                .iterator()
                .next();
    }
}

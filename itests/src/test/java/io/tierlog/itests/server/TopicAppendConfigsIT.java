package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.hot.HotTierOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topic configs that act on append, through a real server with kafka-clients 4.4, per topic:
 * {@code compression.type} (topic and broker default) recompresses what a gzip producer sends and
 * the consumer reads every record back; {@code max.message.bytes} refuses with {@code
 * MESSAGE_TOO_LARGE}, counting the batch as written; {@code message.timestamp.*} refuses with
 * {@code INVALID_TIMESTAMP} or stamps LogAppendTime; an undecompressible batch from a raw client is
 * {@code CORRUPT_MESSAGE} and nothing is stored. The topic-level size key is the option's key
 * ({@link HotTierOptions#MAX_MESSAGE_BYTES}).
 */
class TopicAppendConfigsIT {
    private static final String MAX_BYTES = HotTierOptions.MAX_MESSAGE_BYTES.key();

    @TempDir Path dir;
    private ServerHarness server;

    @BeforeEach
    void start() throws Exception {
        // the broker default for topics without an override: lz4
        server = new ServerHarness(dir, Map.of("compression.type", "lz4"));
        try (Admin a = Clients.admin(server.bootstrap())) {
            a.createTopics(
                            List.of(
                                    topic("zstd", Map.of("compression.type", "zstd")),
                                    topic("keep", Map.of("compression.type", "producer")),
                                    topic("dflt", Map.of()),
                                    topic(
                                            "small",
                                            Map.of(
                                                    MAX_BYTES,
                                                    "4000",
                                                    "compression.type",
                                                    "uncompressed")),
                                    topic(
                                            "strict",
                                            Map.of("message.timestamp.before.max.ms", "60000")),
                                    topic(
                                            "stamped",
                                            Map.of("message.timestamp.type", "LogAppendTime"))))
                    .all()
                    .get();
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static NewTopic topic(String name, Map<String, String> configs) {
        return new NewTopic(name, 1, (short) 1).configs(configs);
    }

    /** Sends {@code n} records with headers from a producer using {@code codec}. */
    private void produce(String topic, String codec, int n) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), codec)) {
            for (int i = 0; i < n; i++) {
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(topic, Clients.key(topic, i), Clients.value(topic, i));
                r.headers().add("i", Clients.header(i));
                p.send(r);
            }
            p.flush();
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> consumeAll(String topic, int n) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            assertThat(
                            Clients.await(
                                    java.time.Duration.ofSeconds(30),
                                    () -> {
                                        c.poll(java.time.Duration.ofMillis(200)).forEach(out::add);
                                        return out.size() >= n;
                                    }))
                    .isTrue();
        }
        return out;
    }

    /** The codecs of the stored batches, read with a raw Fetch (the consumer hides them). */
    private List<CompressionType> storedCodecs(String topic) throws Exception {
        FetchRequestData f =
                new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 24);
        FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic().setTopic(topic);
        t.partitions()
                .add(
                        new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 24));
        f.topics().add(t);
        List<CompressionType> out = new ArrayList<>();
        try (RawClient c = new RawClient(server.port())) {
            FetchResponseData r = c.call(ApiKeys.FETCH, (short) 12, f, new FetchResponseData());
            FetchResponseData.PartitionData pd = r.responses().get(0).partitions().get(0);
            assertThat(pd.errorCode()).isZero();
            for (RecordBatch b : ((MemoryRecords) pd.records()).batches()) {
                assertThat(b.isValid()).isTrue();
                out.add(b.compressionType());
            }
        }
        return out;
    }

    @Test
    void aGzipProducersRecordsAreStoredInEachTopicsCodecAndReadBackWhole() throws Exception {
        int n = 500;
        for (String topic : List.of("zstd", "keep", "dflt")) {
            produce(topic, "gzip", n);
            List<ConsumerRecord<byte[], byte[]>> got = consumeAll(topic, n);
            assertThat(got).hasSize(n);
            for (int i = 0; i < n; i++) {
                ConsumerRecord<byte[], byte[]> r = got.get(i);
                assertThat(r.offset()).isEqualTo(i);
                assertThat(r.key()).isEqualTo(Clients.key(topic, i));
                assertThat(r.value()).isEqualTo(Clients.value(topic, i));
                assertThat(r.headers().lastHeader("i").value()).isEqualTo(Clients.header(i));
            }
        }
        assertThat(storedCodecs("zstd")).isNotEmpty().containsOnly(CompressionType.ZSTD);
        assertThat(storedCodecs("keep")).isNotEmpty().containsOnly(CompressionType.GZIP);
        assertThat(storedCodecs("dflt"))
                .as("broker default")
                .isNotEmpty()
                .containsOnly(CompressionType.LZ4);
    }

    @Test
    void maxMessageBytesRefusesWithRecordTooLargeCountingTheBatchAsWritten() throws Exception {
        // 20 KB of one repeated byte: a few dozen bytes in zstd, 20 KB once stored uncompressed
        byte[] compressible = new byte[20_000];
        Arrays.fill(compressible, (byte) 'a');
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "zstd")) {
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("small", compressible)).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RecordTooLargeException.class);
            assertThat(p.send(new ProducerRecord<>("small", new byte[100])).get().offset())
                    .isZero();
            assertThat(p.send(new ProducerRecord<>("keep", compressible)).get().offset())
                    .as("no limit of its own on the other topic")
                    .isZero();
        }
    }

    @Test
    void timestampConfigsActPerTopic() throws Exception {
        long hourAgo = System.currentTimeMillis() - 3_600_000;
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "none")) {
            assertThatThrownBy(
                            () ->
                                    p.send(
                                                    new ProducerRecord<>(
                                                            "strict",
                                                            0,
                                                            hourAgo,
                                                            null,
                                                            new byte[1]))
                                            .get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidTimestampException.class);
            assertThat(
                            p.send(new ProducerRecord<>("keep", 0, hourAgo, null, new byte[1]))
                                    .get()
                                    .timestamp())
                    .isEqualTo(hourAgo);
            long before = System.currentTimeMillis();
            long stamped =
                    p.send(new ProducerRecord<>("stamped", 0, hourAgo, null, new byte[1]))
                            .get()
                            .timestamp();
            assertThat(stamped)
                    .as("LogAppendTime in the produce response")
                    .isGreaterThanOrEqualTo(before);
        }
        ConsumerRecord<byte[], byte[]> r = consumeAll("stamped", 1).get(0);
        assertThat(r.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(r.timestamp()).isGreaterThan(hourAgo);
    }

    @Test
    void anUndecompressibleBatchIsCorruptMessageAndNothingIsStored() throws Exception {
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        ByteBuffer.allocate(4096),
                        Compression.gzip().build(),
                        TimestampType.CREATE_TIME,
                        0L);
        for (int i = 0; i < 10; i++) {
            b.append(new SimpleRecord(System.currentTimeMillis(), null, ("v" + i).getBytes()));
        }
        MemoryRecords recs = b.build();
        ByteBuffer buf = recs.buffer();
        buf.put(61, (byte) 0); // the gzip stream's magic, the first byte after the batch header
        // a CRC over the corrupted bytes, as a buggy client computes it: only the codec can tell
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(buf.duplicate().position(21));
        buf.putInt(17, (int) crc.getValue());
        ProduceRequestData p = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData t =
                new ProduceRequestData.TopicProduceData().setName("zstd");
        t.partitionData()
                .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(recs));
        p.topicData().add(t);
        try (RawClient c = new RawClient(server.port())) {
            ProduceResponseData r =
                    c.call(ApiKeys.PRODUCE, (short) 9, p, new ProduceResponseData());
            assertThat(r.responses().iterator().next().partitionResponses().get(0).errorCode())
                    .isEqualTo(Errors.CORRUPT_MESSAGE.code());
        }
        assertThat(storedCodecs("zstd")).isEmpty();
    }
}

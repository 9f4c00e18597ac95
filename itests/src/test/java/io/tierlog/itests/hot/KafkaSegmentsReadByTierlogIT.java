package io.tierlog.itests.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import io.tierlog.hot.AppendResult;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import io.tierlog.hot.testing.RandomBatches;
import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 2 proof, second half of the interop with Apache Kafka 4.4.0: the partition folders a real
 * Kafka broker wrote (fed by kafka-clients producers with every codec, keys, null values and
 * headers; several segments; then stopped cleanly) are read by tierlog record for record, both
 * read-only in place ({@link ReadOnlyLogDir}, which must tolerate Kafka's extra files: {@code
 * .snapshot}, {@code leader-epoch-checkpoint}, {@code partition.metadata}) and as tierlog's own log
 * ({@link LogManager} on a copy), which then continues the log at Kafka's end offset.
 */
class KafkaSegmentsReadByTierlogIT {
    private static final String TOPIC = "from-kafka";
    private static final int RECORDS_PER_CODEC = 1500;

    @TempDir Path tmp;

    /** A record as the producer sent it and the offset Kafka acknowledged. */
    private record Sent(long offset, long timestamp, byte[] key, byte[] value, Header[] headers) {}

    @Test
    void segmentsWrittenByKafkaBrokerAreReadBackRecordForRecord() throws Exception {
        Map<Integer, List<Sent>> sent = new HashMap<>();
        Path kafkaLogDir;
        try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
            createTopic(broker.bootstrapServers());
            produce(broker.bootstrapServers(), sent);
            kafkaLogDir = broker.logDir();
        } // graceful stop: segments closed, indexes trimmed, as an offload daemon would find them

        ReadOnlyLogDir readOnly = ReadOnlyLogDir.open(kafkaLogDir);
        for (int p = 0; p < 2; p++) {
            TopicPartition tp = new TopicPartition(TOPIC, p);
            assertThat(readOnly.partitions()).contains(tp);
            List<SegmentInfo> segments = readOnly.segments(tp);
            assertThat(segments).as("segments of " + tp).hasSizeGreaterThan(1);
            assertThat(segments.get(segments.size() - 1).closed()).isFalse();
            List<RecordBatch> batches = new ArrayList<>();
            for (SegmentInfo s : segments) {
                readOnly.readSegment(s).batches().forEach(batches::add);
            }
            assertSameRecords(batches, sent.get(p));
        }

        Path copy = tmp.resolve("copy");
        for (int p = 0; p < 2; p++) {
            copyFolder(kafkaLogDir.resolve(TOPIC + "-" + p), copy.resolve(TOPIC + "-" + p));
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            long[] ends = new long[2];
            try (LogManager manager =
                    LogManager.open(copy, t -> LogConfig.defaults(), Time.SYSTEM, scheduler)) {
                for (int p = 0; p < 2; p++) {
                    PartitionLog log =
                            manager.partition(new TopicPartition(TOPIC, p)).orElseThrow();
                    assertThat(log.logStartOffset()).isZero();
                    assertThat(log.logEndOffset()).isEqualTo(sent.get(p).size());
                    List<RecordBatch> batches = new ArrayList<>();
                    long next = 0;
                    while (next < log.highWatermark()) {
                        FileSlice slice = log.read(next, 64 * 1024);
                        assertThat(slice.isEmpty()).isFalse();
                        slice.batches().forEach(batches::add);
                        next = slice.nextOffset();
                    }
                    assertSameRecords(batches, sent.get(p));
                    // tierlog continues Kafka's log where Kafka stopped
                    ByteBuffer more =
                            RandomBatches.batch(
                                    CompressionType.ZSTD,
                                    List.of(
                                            new SimpleRecord(
                                                    System.currentTimeMillis(),
                                                    "k".getBytes(),
                                                    "v".getBytes())));
                    AppendResult r = log.append(more);
                    assertThat(r.firstOffset()).isEqualTo(sent.get(p).size());
                    ends[p] = log.logEndOffset();
                }
            }
            try (LogManager reopened =
                    LogManager.open(copy, t -> LogConfig.defaults(), Time.SYSTEM, scheduler)) {
                for (int p = 0; p < 2; p++) {
                    PartitionLog log =
                            reopened.partition(new TopicPartition(TOPIC, p)).orElseThrow();
                    assertThat(log.logEndOffset()).isEqualTo(ends[p]);
                }
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static void createTopic(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(
                            List.of(
                                    new NewTopic(TOPIC, 2, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "segment.bytes", "1048576",
                                                            "index.interval.bytes", "1024"))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    /** Sends RECORDS_PER_CODEC records per codec, alternating partitions, and records the acks. */
    private static void produce(String bootstrap, Map<Integer, List<Sent>> sent) throws Exception {
        Random random = new Random(11);
        for (CompressionType codec : RandomBatches.CODECS) {
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec.name);
            props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(
                            props, new ByteArraySerializer(), new ByteArraySerializer())) {
                List<Future<RecordMetadata>> acks = new ArrayList<>();
                List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
                long now = System.currentTimeMillis() - 10_000;
                for (int i = 0; i < RECORDS_PER_CODEC; i++) {
                    byte[] key =
                            random.nextInt(10) == 0 ? null : bytes(random, 1 + random.nextInt(20));
                    byte[] value =
                            random.nextInt(10) == 0 ? null : bytes(random, random.nextInt(1200));
                    List<Header> headers = new ArrayList<>();
                    for (int h = random.nextInt(3); h > 0; h--) {
                        headers.add(
                                new RecordHeader(
                                        "h" + h, random.nextBoolean() ? null : bytes(random, 5)));
                    }
                    ProducerRecord<byte[], byte[]> r =
                            new ProducerRecord<>(TOPIC, i % 2, now + i, key, value, headers);
                    records.add(r);
                    acks.add(producer.send(r));
                }
                producer.flush();
                for (int i = 0; i < records.size(); i++) {
                    RecordMetadata md = acks.get(i).get();
                    ProducerRecord<byte[], byte[]> r = records.get(i);
                    sent.computeIfAbsent(md.partition(), x -> new ArrayList<>())
                            .add(
                                    new Sent(
                                            md.offset(),
                                            r.timestamp(),
                                            r.key(),
                                            r.value(),
                                            r.headers().toArray()));
                }
            }
        }
        for (List<Sent> list : sent.values()) {
            list.sort((a, b) -> Long.compare(a.offset(), b.offset()));
        }
    }

    private static void assertSameRecords(List<RecordBatch> batches, List<Sent> expected) {
        Set<CompressionType> codecs = EnumSet.noneOf(CompressionType.class);
        int i = 0;
        for (RecordBatch batch : batches) {
            assertThat(batch.isValid()).as("CRC of batch at " + batch.baseOffset()).isTrue();
            codecs.add(batch.compressionType());
            for (Record r : batch) {
                Sent s = expected.get(i++);
                String at = "record at offset " + s.offset();
                assertThat(r.offset()).as(at).isEqualTo(s.offset());
                assertThat(r.timestamp()).as(at).isEqualTo(s.timestamp());
                assertThat(bytesOf(r.key())).as(at + " key").isEqualTo(s.key());
                assertThat(bytesOf(r.value())).as(at + " value").isEqualTo(s.value());
                assertThat(r.headers().length).as(at + " headers").isEqualTo(s.headers().length);
                for (int h = 0; h < s.headers().length; h++) {
                    assertThat(r.headers()[h].key()).isEqualTo(s.headers()[h].key());
                    assertThat(r.headers()[h].value()).isEqualTo(s.headers()[h].value());
                }
            }
        }
        assertThat(i).as("records read back").isEqualTo(expected.size());
        assertThat(codecs).as("codecs seen").containsAll(RandomBatches.CODECS);
    }

    private static byte[] bytesOf(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static void copyFolder(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }
}

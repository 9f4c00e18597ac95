package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce-time schema contracts through a real server and kafka-clients 4.4: on a topic with {@code
 * confluent.value.schema.validation=true}, a batch holding a record without the wire-format header,
 * or naming an unknown id or an id of another subject, is refused with {@code INVALID_RECORD}: the
 * producer fails exactly the refused records with {@code InvalidRecordException} (their index in
 * the batch is how the client tells them apart) and the others of the batch with a {@code
 * KafkaException}; the raw Produce response carries Kafka's {@code RecordErrors} (batch indexes and
 * messages) and {@code ErrorMessage}; the partition's files are byte-for-byte what they were; valid
 * records and tombstones are appended and read back.
 */
class SchemaValidationIT {
    private static final String TOPIC = "guarded";

    @TempDir Path dir;
    private ServerHarness server;
    private int valueId;
    private int otherSubjectsId;

    @BeforeEach
    void start() throws Exception {
        server = new ServerHarness(dir, Map.of("tiered.enabled", "false"));
        try (Admin a = Clients.admin(server.bootstrap())) {
            a.createTopics(
                            List.of(
                                    new NewTopic(TOPIC, 1, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "confluent.value.schema.validation",
                                                            "true"))))
                    .all()
                    .get();
        }
        valueId =
                SchemaRegistration.register(
                        server.server(),
                        TOPIC + "-value",
                        "{\"type\":\"record\",\"name\":\"Order\",\"fields\":"
                                + "[{\"name\":\"amount\",\"type\":\"long\"}]}");
        otherSubjectsId =
                SchemaRegistration.register(
                        server.server(),
                        "payments-value",
                        "{\"type\":\"record\",\"name\":\"Payment\",\"fields\":"
                                + "[{\"name\":\"cents\",\"type\":\"int\"}]}");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static byte[] framed(int id, String payload) {
        byte[] p = payload.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + p.length).put((byte) 0).putInt(id).put(p).array();
    }

    /** Every file of the partition's directory, by name, with its bytes. */
    private Map<String, byte[]> partitionFiles() throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        Path p = dir.resolve("log").resolve(TOPIC + "-0");
        try (Stream<Path> files = Files.list(p)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f)) {
                    out.put(f.getFileName().toString(), Files.readAllBytes(f));
                }
            }
        }
        return out;
    }

    private long endOffset() throws Exception {
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (Admin a = Clients.admin(server.bootstrap())) {
            ListOffsetsResult r = a.listOffsets(Map.of(tp, OffsetSpec.latest()));
            return r.partitionResult(tp).get().offset();
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, server.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // one batch per flush: the records sent before it share a batch, so indexes matter
        p.put(ProducerConfig.LINGER_MS_CONFIG, 60_000);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static ProducerRecord<byte[], byte[]> record(byte[] value) {
        return new ProducerRecord<>(TOPIC, 0, null, value);
    }

    private static Throwable failure(Future<RecordMetadata> f) {
        try {
            f.get();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the record was appended");
    }

    @Test
    void refusedRecordsFailByTheirIndexAndTheLogStaysByteForByteTheSame() throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            Future<RecordMetadata> first = producer.send(record(framed(valueId, "order 0")));
            producer.flush();
            assertThat(first.get().offset()).isZero();
            Map<String, byte[]> before = partitionFiles();

            List<Future<RecordMetadata>> batch = new ArrayList<>();
            batch.add(producer.send(record(framed(valueId, "valid, but in a bad batch"))));
            batch.add(producer.send(record("no header".getBytes(StandardCharsets.UTF_8))));
            batch.add(producer.send(record(framed(987_654, "unknown id"))));
            producer.flush();
            assertThat(failure(batch.get(0)))
                    .isExactlyInstanceOf(KafkaException.class)
                    .hasMessageContaining("part of a batch which had one more more invalid");
            assertThat(failure(batch.get(1)))
                    .isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("has no schema id");
            assertThat(failure(batch.get(2)))
                    .isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("schema id 987654")
                    .hasMessageContaining("does not know");

            Future<RecordMetadata> alone =
                    producer.send(record(framed(otherSubjectsId, "another subject's")));
            producer.flush();
            assertThat(failure(alone))
                    .isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("not registered under subject guarded-value");

            assertThat(endOffset()).isEqualTo(1);
            Map<String, byte[]> after = partitionFiles();
            assertThat(after.keySet()).isEqualTo(before.keySet());
            for (String f : before.keySet()) {
                assertThat(after.get(f)).as(f).isEqualTo(before.get(f));
            }

            Future<RecordMetadata> valid = producer.send(record(framed(valueId, "order 1")));
            Future<RecordMetadata> tombstone = producer.send(record(null));
            producer.flush();
            assertThat(valid.get().offset()).isEqualTo(1);
            assertThat(tombstone.get().offset()).isEqualTo(2);
        }
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (got.size() < 3 && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(got::add);
            }
            assertThat(got).extracting(ConsumerRecord::offset).containsExactly(0L, 1L, 2L);
            assertThat(got.get(0).value()).isEqualTo(framed(valueId, "order 0"));
            assertThat(got.get(1).value()).isEqualTo(framed(valueId, "order 1"));
            assertThat(got.get(2).value()).isNull();
        }
    }

    @Test
    void theProduceResponseCarriesKafkasRecordErrorsAndErrorMessage() throws Exception {
        MemoryRecords records =
                MemoryRecords.withRecords(
                        Compression.zstd().build(),
                        new SimpleRecord(1L, null, "raw".getBytes(StandardCharsets.UTF_8)),
                        new SimpleRecord(2L, null, framed(valueId, "ok")),
                        new SimpleRecord(3L, null, framed(otherSubjectsId, "elsewhere")));
        ProduceRequestData p = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000);
        ProduceRequestData.TopicProduceData t =
                new ProduceRequestData.TopicProduceData().setName(TOPIC);
        t.partitionData()
                .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        p.topicData().add(t);
        try (RawClient c = new RawClient(server.port())) {
            ProduceResponseData r =
                    c.call(ApiKeys.PRODUCE, (short) 9, p, new ProduceResponseData());
            ProduceResponseData.PartitionProduceResponse pr =
                    r.responses().iterator().next().partitionResponses().get(0);
            assertThat(pr.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
            assertThat(pr.baseOffset()).isEqualTo(-1);
            assertThat(pr.errorMessage())
                    .startsWith("One or more records have been rejected due to 2 record errors");
            assertThat(pr.recordErrors())
                    .extracting(ProduceResponseData.BatchIndexAndErrorMessage::batchIndex)
                    .containsExactly(0, 2);
            assertThat(pr.recordErrors().get(1).batchIndexErrorMessage())
                    .contains("not registered under subject guarded-value");
        }
        assertThat(endOffset()).isZero();
    }

    @Test
    void lookupsThatMissTheRegistrysMemoryNeverBlockAnEventLoop() throws Exception {
        EventLoopBlockingCalls.install();
        server.restart(); // a new engine: the registry's memory is empty
        EventLoopBlockingCalls.arm();
        List<EventLoopBlockingCalls.Call> calls;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int round = 0; round < 3; round++) {
                Future<RecordMetadata> ok = producer.send(record(framed(valueId, "ok " + round)));
                producer.flush();
                assertThat(ok.get().offset()).isEqualTo(round);
                Future<RecordMetadata> bad = producer.send(record(framed(424_242, "unknown")));
                producer.flush();
                assertThat(failure(bad)).isInstanceOf(InvalidRecordException.class);
            }
        } finally {
            calls = EventLoopBlockingCalls.disarm();
        }
        assertThat(calls)
                .as("blocking calls on event loops:%s", EventLoopBlockingCalls.report(calls))
                .isEmpty();
    }

    @Test
    void otherStrategiesAreRefusedWhenCreatingTheTopic() throws Exception {
        try (Admin a = Clients.admin(server.bootstrap())) {
            assertThatThrownBy(
                            () ->
                                    a.createTopics(
                                                    List.of(
                                                            new NewTopic("records", 1, (short) 1)
                                                                    .configs(
                                                                            Map.of(
                                                                                    "confluent.value.subject.name.strategy",
                                                                                    "io.confluent.kafka.serializers.subject.RecordNameStrategy"))))
                                            .all()
                                            .get())
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("TopicNameStrategy only");
        }
    }
}

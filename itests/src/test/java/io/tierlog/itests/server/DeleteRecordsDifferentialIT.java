package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.kafka.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same DeleteRecords workload against Apache Kafka 4.4 (a KRaft broker in a child JVM) and
 * tierlog: offsets inside batches, below the current start, above the high watermark, {@code -1},
 * with produce in between. The answers (low watermarks, error classes), ListOffsets earliest and
 * the offsets a consumer from earliest sees must be the same on both.
 */
class DeleteRecordsDifferentialIT {
    private static final String TOPIC = "diff-dr";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir Path dir;

    /** What the workload observed, step by step, as text so that a difference reads plainly. */
    private static List<String> workload(String bootstrap) throws Exception {
        List<String> seen = new ArrayList<>();
        try (Admin admin = Clients.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            produce(bootstrap, 0, 100);
            for (long offset : new long[] {30, 10, 55, 101, 100, -1}) {
                seen.add("delete " + offset + " -> " + delete(admin, offset));
                seen.add("earliest " + earliest(admin));
            }
            produce(bootstrap, 100, 20);
            seen.add("delete 110 -> " + delete(admin, 110));
            seen.add("read " + readFromEarliest(bootstrap, 120));
        }
        // an unknown partition of a known topic: what the AdminClient makes of the answers
        try (Admin admin =
                Admin.create(
                        Map.of(
                                "bootstrap.servers",
                                bootstrap,
                                "default.api.timeout.ms",
                                3000,
                                "request.timeout.ms",
                                3000))) {
            try {
                admin.deleteRecords(
                                Map.of(
                                        new TopicPartition(TOPIC, 7),
                                        RecordsToDelete.beforeOffset(1)))
                        .all()
                        .get();
                seen.add("unknown partition: no error");
            } catch (ExecutionException e) {
                seen.add("unknown partition: " + e.getCause().getClass().getSimpleName());
            }
        }
        return seen;
    }

    private static void produce(String bootstrap, int from, int count) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(bootstrap, "none")) {
            for (int i = from; i < from + count; i++) {
                p.send(new ProducerRecord<>(TOPIC, 0, Clients.key("d", i), Clients.value("d", i)));
                if (i % 10 == 9) {
                    p.flush(); // batches of ten: offsets 30, 55 and 110 fall inside or on edges
                }
            }
            p.flush();
        }
    }

    private static String delete(Admin admin, long offset) throws InterruptedException {
        try {
            return "low watermark "
                    + admin.deleteRecords(Map.of(TP, RecordsToDelete.beforeOffset(offset)))
                            .lowWatermarks()
                            .get(TP)
                            .get()
                            .lowWatermark();
        } catch (ExecutionException e) {
            return e.getCause().getClass().getSimpleName();
        }
    }

    private static long earliest(Admin admin) throws Exception {
        return admin.listOffsets(Map.of(TP, OffsetSpec.earliest()))
                .partitionResult(TP)
                .get()
                .offset();
    }

    private static String readFromEarliest(String bootstrap, long end) {
        List<Long> offsets = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
            c.assign(List.of(TP));
            c.seekToBeginning(List.of(TP));
            assertThat(
                            Clients.await(
                                    Duration.ofSeconds(60),
                                    () -> {
                                        for (ConsumerRecord<byte[], byte[]> r :
                                                c.poll(Duration.ofMillis(200))) {
                                            assertThat(Clients.index(r.key()))
                                                    .isEqualTo((int) r.offset());
                                            offsets.add(r.offset());
                                        }
                                        return c.position(TP) >= end;
                                    }))
                    .isTrue();
        }
        return offsets.isEmpty()
                ? "nothing"
                : offsets.get(0)
                        + ".."
                        + offsets.get(offsets.size() - 1)
                        + " ("
                        + offsets.size()
                        + ")";
    }

    @Test
    void tierlogAnswersDeleteRecordsAndServesWhatIsLeftAsKafka44Does() throws Exception {
        List<String> kafka;
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
            kafka = workload(broker.bootstrapServers());
        }
        List<String> tierlog;
        try (ServerHarness server = new ServerHarness(dir.resolve("tierlog"), Map.of())) {
            tierlog = workload(server.bootstrap());
        }
        System.out.println("Kafka 4.4: " + kafka + "\ntierlog:   " + tierlog);
        assertThat(tierlog).isEqualTo(kafka);
        // and the workload means what it should
        assertThat(kafka)
                .contains("delete 30 -> low watermark 30", "delete 10 -> low watermark 30")
                .contains("delete 101 -> OffsetOutOfRangeException")
                .contains("read 110..119 (10)");
    }
}

package io.tierlog.itests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.itests.iceberg.TableReader.LiveFile;
import io.tierlog.itests.iceberg.TableReader.TableView;
import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.server.cli.TierlogCli;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's backfill of a Kafka cluster's history: an Apache Kafka 4.4.0 broker writes a
 * 3-partition topic in small segments; after it stops, {@code tierlog offload --log-dir <its dir>
 * --once} leaves an Iceberg table whose live files cover every offset of every partition exactly
 * once, from 0 to the broker's end, with as many rows as the broker took. {@code
 * -Dtierlog.iceberg.kafka.records=N} scales the run.
 */
class KafkaLogDirTableIT {
    private static final String TOPIC = "kafka-history";
    private static final int PARTITIONS = 3;

    @TempDir Path dir;

    @Test
    void offloadOnceOverAKafkaBrokersLogDirYieldsATableWithEveryRecordOnce() throws Exception {
        int records = Integer.getInteger("tierlog.iceberg.kafka.records", 60_000);
        Path logDir;
        try (KafkaBroker broker =
                KafkaBroker.start(dir.resolve("kafka"), Map.of("log.segment.bytes", "1048576"))) {
            logDir = broker.logDir();
            produce(broker.bootstrapServers(), records);
            broker.stop();
        }
        Path data = dir.resolve("data");
        int rc =
                TierlogCli.commandLine()
                        .execute(
                                "offload",
                                "--log-dir=" + logDir,
                                "--once",
                                "--progress=lines",
                                "--set=data.dir=" + data,
                                "--set=offload.tmp.dir=" + dir.resolve("tmp"));
        assertThat(rc).isZero();

        TableReader reader = new TableReader(data, "tierlog");
        TableView table =
                reader.read("tierlog", TOPIC)
                        .orElseThrow(
                                () ->
                                        new AssertionError(
                                                "no table tierlog."
                                                        + TOPIC
                                                        + "; tables: "
                                                        + reader.tables("tierlog")));
        try (Catalog c =
                Catalog.open(
                        "jdbc:sqlite:" + data.resolve("catalog.db"),
                        Map.of(),
                        Catalog.OpenMode.READ_ONLY)) {
            TableCheck check =
                    TableCheck.of(
                            TOPIC,
                            java.util.Optional.of(table),
                            TableCheck.catalogObjects(c, TOPIC),
                            reader);
            System.out.println("kafka log dir table: " + check.describe());
            assertThat(check.safety()).isEmpty();
            assertThat(check.exact()).as(check.describe()).isTrue();
            long total = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                List<LiveFile> files =
                        new ArrayList<>(
                                table.files().stream()
                                        .filter(f -> f.partition() == partition)
                                        .toList());
                files.sort(Comparator.comparingLong(LiveFile::minOffset));
                long next = 0;
                long rows = 0;
                for (LiveFile f : files) {
                    assertThat(f.minOffset())
                            .as("partition %d: no gap, no overlap", p)
                            .isEqualTo(next);
                    next = f.maxOffset() + 1;
                    rows += f.records();
                }
                long end = c.partitionState(TOPIC, p).coldHighWatermark();
                assertThat(next).as("partition %d ends at the broker's end", p).isEqualTo(end);
                assertThat(rows).as("rows of partition %d", p).isEqualTo(end);
                total += rows;
            }
            assertThat(total).as("every record of the broker's topic, once").isEqualTo(records);
        }
    }

    private static void produce(String bootstrap, int records) throws Exception {
        try (Admin a = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            a.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        }
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        List<Future<?>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> p =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] value = ("record-" + i + "-" + "x".repeat(40 + i % 97)).getBytes();
                acks.add(p.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value)));
            }
            p.flush();
        }
        for (Future<?> f : acks) {
            f.get();
        }
    }
}

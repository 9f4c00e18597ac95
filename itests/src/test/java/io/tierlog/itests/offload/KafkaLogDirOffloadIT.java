package io.tierlog.itests.offload;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.cold.ObjectStore;
import io.tierlog.cold.ParquetLogReader;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.hot.FileSlice;
import io.tierlog.hot.ReadOnlyLogDir;
import io.tierlog.hot.SegmentInfo;
import io.tierlog.itests.kafka.KafkaBroker;
import io.tierlog.server.cli.TierlogCli;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4 proof: an Apache Kafka 4.4.0 broker takes 200,000 records (idempotent producers with
 * every codec, null keys and values, headers) into a 3-partition topic with 1 MiB segments; after
 * it stops cleanly, {@code tierlog offload --once} on its log dir (embedded S3 server and SQLite
 * catalog in a separate data dir) puts every record into the cold tier, record for record and batch
 * for batch, and leaves the log dir unchanged byte for byte. {@code
 * -Dtierlog.offload.kafka.records=N} scales the run.
 */
class KafkaLogDirOffloadIT {
    private static final String TOPIC = "kafka-offload";
    private static final int PARTITIONS = 3;
    private static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    @TempDir Path dir;

    @Test
    void offloadOnceOnAStoppedBrokersLogDirPutsEveryRecordInTheColdTierAndChangesNoByte()
            throws Exception {
        int records = Integer.getInteger("tierlog.offload.kafka.records", 200_000);
        Path logDir;
        try (KafkaBroker broker =
                KafkaBroker.start(dir.resolve("kafka"), Map.of("log.segment.bytes", "1048576"))) {
            logDir = broker.logDir();
            produce(broker.bootstrapServers(), records);
            broker.stop();
        }
        Map<String, String> before = fileHashes(logDir);
        assertThat(before).containsKey(".kafka_cleanshutdown");

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
        assertThat(fileHashes(logDir)).as("the log dir is unchanged").isEqualTo(before);

        long total = 0;
        try (ReadOnlyLogDir kafka = ReadOnlyLogDir.open(logDir);
                // What the command's embedded S3 server and catalog hold, over the same files.
                ColdTierFixture fixture = ColdTierFixture.start(dir)) {
            Catalog catalog = fixture.catalog();
            ObjectStore store = fixture.store();
            assertThat(catalog.topic("__cluster_metadata")).isEmpty();
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(TOPIC, p);
                Digest source = new Digest();
                for (SegmentInfo s : kafka.segments(tp)) {
                    FileSlice slice = kafka.readSegment(s);
                    for (RecordBatch b : slice.batches()) {
                        source.add(b);
                    }
                }
                Digest cold = new Digest();
                List<ColdObject> objects = catalog.objects(TOPIC, p);
                for (ColdObject o : objects) {
                    readObject(store, o, cold);
                }
                assertThat(cold.records).as("records of %s", tp).isEqualTo(source.records);
                assertThat(cold.batches).as("batches of %s", tp).isEqualTo(source.batches);
                assertThat(cold.hex()).as("content of %s", tp).isEqualTo(source.hex());
                assertThat(catalog.partitionState(TOPIC, p).coldHighWatermark())
                        .isEqualTo(source.nextOffset);
                total += cold.records;
            }
        }
        assertThat(total).isEqualTo(records);
    }

    private static void produce(String bootstrap, int records) throws Exception {
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        }
        Random random = new Random(4);
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
        try {
            for (String codec : CODECS) {
                Properties props = new Properties();
                props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
                props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
                props.put(ProducerConfig.ACKS_CONFIG, "all");
                props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
                props.put(ProducerConfig.BATCH_SIZE_CONFIG, "32768");
                producers.add(
                        new KafkaProducer<>(
                                props, new ByteArraySerializer(), new ByteArraySerializer()));
            }
            for (int i = 0; i < records; i++) {
                byte[] key = i % 7 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = null;
                if (i % 50 != 0) {
                    value = new byte[60 + random.nextInt(80)];
                    random.nextBytes(value);
                }
                List<Header> headers =
                        i % 3 == 0
                                ? List.of(
                                        new RecordHeader(
                                                "n",
                                                Integer.toString(i)
                                                        .getBytes(StandardCharsets.UTF_8)))
                                : List.of();
                acks.add(
                        producers
                                .get(i % producers.size())
                                .send(
                                        new ProducerRecord<>(
                                                TOPIC, i % PARTITIONS, null, key, value, headers)));
            }
            for (KafkaProducer<byte[], byte[]> p : producers) {
                p.flush();
            }
            for (java.util.concurrent.Future<?> f : acks) {
                f.get(); // every record is in the broker's log dir, or the cause is named here
            }
        } finally {
            for (KafkaProducer<byte[], byte[]> p : producers) {
                p.close();
            }
        }
    }

    private static void readObject(ObjectStore store, ColdObject o, Digest into)
            throws IOException {
        ParquetLogReader reader = new ParquetLogReader(store, o.key(), o.sizeInBytes());
        long next = o.firstOffset();
        while (next <= o.lastOffset()) {
            MemoryRecords batches = reader.read(next, 1 << 20);
            long before = next;
            for (RecordBatch b : batches.batches()) {
                if (b.lastOffset() >= next) {
                    into.add(b);
                    next = b.lastOffset() + 1;
                }
            }
            if (next == before) {
                break;
            }
        }
    }

    /** Running SHA-256 over batch boundaries, producer fields and every record's fields. */
    private static final class Digest {
        final MessageDigest sha = sha256();
        long records;
        long batches;
        long nextOffset;

        void add(RecordBatch b) {
            batches++;
            nextOffset = b.lastOffset() + 1;
            put(b.baseOffset());
            put(b.lastOffset());
            put(b.producerId());
            put(b.producerEpoch());
            put(b.baseSequence());
            put(b.timestampType().id);
            put(b.isTransactional() ? 1 : 0);
            put(b.isControlBatch() ? 1 : 0);
            for (Record r : b) {
                records++;
                put(r.offset());
                put(r.timestamp());
                bytes(r.hasKey() ? r.key() : null);
                bytes(r.hasValue() ? r.value() : null);
                put(r.headers().length);
                for (Header h : r.headers()) {
                    sha.update(h.key().getBytes(StandardCharsets.UTF_8));
                    bytes(h.value() == null ? null : ByteBuffer.wrap(h.value()));
                }
            }
        }

        private void put(long v) {
            sha.update(ByteBuffer.allocate(8).putLong(v).array());
        }

        private void bytes(ByteBuffer b) {
            if (b == null) {
                put(-1);
                return;
            }
            put(b.remaining());
            sha.update(b.duplicate());
        }

        String hex() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Relative path -> SHA-256 of every file under {@code root}. */
    private static Map<String, String> fileHashes(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.toList()) {
                String rel = root.relativize(f).toString();
                if (Files.isDirectory(f)) {
                    out.put(rel + "/", "dir");
                } else {
                    out.put(rel, HexFormat.of().formatHex(sha256().digest(Files.readAllBytes(f))));
                }
            }
        }
        return out;
    }
}

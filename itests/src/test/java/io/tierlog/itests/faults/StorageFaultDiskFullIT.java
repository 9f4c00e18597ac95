package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.hot.IndexCheck;
import io.tierlog.itests.server.RawClient;
import io.tierlog.server.TierlogServer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding 3 of issue 16, end to end: the server's log dir is a real 8 MiB tmpfs (root only; skipped
 * with the reason otherwise), a kafka-clients producer ({@code acks=all}, no retries, so that every
 * failure is seen) writes while the disk is filled and freed a few pages at a time, so that both
 * log writes and index writes (small batches, an index entry for each, and small segments, whose
 * first index entry needs a new page) hit ENOSPC. What must hold, without a restart:
 *
 * <ul>
 *   <li>every failed produce is answered {@code KAFKA_STORAGE_ERROR}, never a closed connection;
 *   <li>20 new connections opened on the full disk each get ApiVersions and Metadata answered (no
 *       event loop died);
 *   <li>once space returns, produce succeeds again;
 *   <li>every acknowledged record is read back exactly once at its acknowledged offset, and no
 *       record whose produce failed is read at all;
 *   <li>after a clean stop, every {@code .index} and {@code .timeindex} entry names a real batch
 *       ({@link IndexCheck}: no zeroed or garbage entries).
 * </ul>
 */
class StorageFaultDiskFullIT {
    private static final String TOPIC = "full";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    /** Times the disk fills up under the producer. */
    private static final int ROUNDS = 40;

    @TempDir Path tmp;

    @Test
    void aFullDiskAnswersStorageErrorsKeepsEveryConnectionAndRecoversWithoutRestart()
            throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "needs root to mount a tmpfs (running as " + System.getProperty("user.name") + ")");
        Path dataDir = tmp.resolve("data");
        Path logDir = dataDir.resolve("log");
        Files.createDirectories(logDir);
        Process mount =
                new ProcessBuilder(
                                "mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", logDir.toString())
                        .redirectErrorStream(true)
                        .start();
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        assumeTrue(
                mounted,
                "cannot mount a tmpfs: " + new String(mount.getInputStream().readAllBytes()));
        try {
            run(dataDir, logDir);
        } finally {
            new ProcessBuilder("umount", "-l", logDir.toString()).inheritIO().start().waitFor();
        }
    }

    private void run(Path dataDir, Path logDir) throws Exception {
        Path filler = logDir.resolve("filler.bin");
        Map<String, String> settings = new HashMap<>();
        settings.put("listeners", "PLAINTEXT://127.0.0.1:0");
        settings.put("schema.registry.listen", "");
        settings.put("data.dir", dataDir.toString());
        settings.put("num.network.threads", "2");
        Map<Long, String> acked = new TreeMap<>();
        List<String> failed = new ArrayList<>();
        List<Throwable> otherFailures = new ArrayList<>();
        TierlogServer server = TierlogServer.start(Config.of(settings));
        try {
            String bootstrap = "127.0.0.1:" + server.port();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(
                                List.of(
                                        new NewTopic(TOPIC, 1, (short) 1)
                                                .configs(
                                                        Map.of(
                                                                "internal.segment.bytes", "65536",
                                                                "index.interval.bytes", "0"))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
                int[] n = {0};
                // Room to spare: these all succeed.
                for (int i = 0; i < 300; i++) {
                    assertThat(send(producer, n, acked, failed, otherFailures)).isTrue();
                }
                long fillerSize = fill(filler);
                int storageErrors = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    // Give a few pages back, wait for the partition to accept produce again
                    // (recovery runs in the background), then write until the disk is full.
                    fillerSize = shrink(filler, fillerSize, 4096L * (1 + round % 8));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (!send(producer, n, acked, failed, otherFailures)) {
                        storageErrors++;
                        Thread.sleep(20); // polling: recovery is retried every second or more
                        if (System.nanoTime() > deadline) {
                            fillerSize = shrink(filler, fillerSize, 64 * 1024);
                            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                        }
                    }
                    while (send(producer, n, acked, failed, otherFailures)) {
                        // the disk fills up
                    }
                    storageErrors++;
                }
                assertThat(otherFailures).as("failures other than KAFKA_STORAGE_ERROR").isEmpty();
                assertThat(storageErrors).isGreaterThanOrEqualTo(ROUNDS);

                // Still full: every new connection, on whichever event loop, is served.
                for (int i = 0; i < 20; i++) {
                    assertAnswered(server.port());
                }

                Files.delete(filler);
                Await.until(
                        "produce to succeed after space returned",
                        () -> send(producer, n, acked, failed, otherFailures),
                        Duration.ofSeconds(60));
                for (int i = 0; i < 200; i++) {
                    assertThat(send(producer, n, acked, failed, otherFailures)).isTrue();
                }
                assertThat(otherFailures).isEmpty();
            }
            Map<Long, String> read = readAll(bootstrap);
            assertThat(read)
                    .as("every acknowledged record exactly once, at its offset")
                    .isEqualTo(acked);
            assertThat(read.values())
                    .as("no record whose produce failed")
                    .doesNotContainAnyElementsOf(failed);
        } finally {
            server.close();
        }
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.walk(logDir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                problems.addAll(IndexCheck.check(f));
            }
        }
        assertThat(problems).as("index entries that name no batch").isEmpty();
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.RETRIES_CONFIG, 0); // see every failure, not a retry of it
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 10);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 100);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return new KafkaProducer<>(p);
    }

    /**
     * Sends one record (a unique value with 0-255 bytes of padding: small batches, so the index
     * files, with an entry per batch, need new pages often) and waits for the answer: true when
     * acknowledged, false on KAFKA_STORAGE_ERROR; any other failure is recorded.
     */
    private static boolean send(
            KafkaProducer<byte[], byte[]> producer,
            int[] n,
            Map<Long, String> acked,
            List<String> failed,
            List<Throwable> other)
            throws InterruptedException {
        int i = n[0]++;
        String value = "record-" + i + "-" + "p".repeat((i * 37) % 256);
        try {
            RecordMetadata md =
                    producer.send(
                                    new ProducerRecord<>(
                                            TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8)))
                            .get();
            assertThat(acked.put(md.offset(), value))
                    .as("offset %d acknowledged twice", md.offset())
                    .isNull();
            return true;
        } catch (ExecutionException e) {
            failed.add(value);
            if (!(e.getCause() instanceof KafkaStorageException)) {
                other.add(e.getCause());
                throw new AssertionError("produce failed with " + e.getCause(), e.getCause());
            }
            return false;
        }
    }

    /** Fills the file system; returns the filler's size. */
    private static long fill(Path filler) throws IOException {
        ByteBuffer page = ByteBuffer.allocate(64 * 1024);
        try (FileChannel ch =
                FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long pos = ch.size();
            try {
                while (true) {
                    page.clear();
                    pos += ch.write(page, pos);
                }
            } catch (IOException noSpaceLeft) {
                return pos;
            }
        }
    }

    private static long shrink(Path filler, long size, long bytes) throws IOException {
        long s = Math.max(0, size - bytes);
        try (FileChannel ch = FileChannel.open(filler, StandardOpenOption.WRITE)) {
            ch.truncate(s);
        }
        return s;
    }

    /** A new connection: ApiVersions and Metadata both answered. */
    private static void assertAnswered(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            ApiVersionsResponseData v =
                    call(
                            s,
                            ApiKeys.API_VERSIONS,
                            (short) 3,
                            1,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("disk-full-it")
                                    .setClientSoftwareVersion("1.0"),
                            new ApiVersionsResponseData());
            assertThat(v.errorCode()).isZero();
            MetadataResponseData m =
                    call(
                            s,
                            ApiKeys.METADATA,
                            (short) 12,
                            2,
                            new MetadataRequestData()
                                    .setTopics(
                                            List.of(
                                                    new MetadataRequestData.MetadataRequestTopic()
                                                            .setName(TOPIC))),
                            new MetadataResponseData());
            assertThat(m.topics()).hasSize(1);
            assertThat(m.brokers()).isNotEmpty();
        }
    }

    private static <T extends ApiMessage> T call(
            Socket s, ApiKeys key, short version, int corr, ApiMessage request, T response)
            throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(RawClient.frame(key, version, corr, request));
        out.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBuffer r = ByteBuffer.wrap(frame);
        assertThat(ResponseHeader.parse(r, key.responseHeaderVersion(version)).correlationId())
                .isEqualTo(corr);
        response.read(new ByteBufferAccessor(r), version);
        return response;
    }

    /** Every record of the partition from offset 0 to its end, by offset. */
    private static Map<Long, String> readAll(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Map<Long, String> out = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.assign(Set.of(TP));
            c.seek(TP, 0);
            long end = c.endOffsets(Set.of(TP)).get(TP);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (c.position(TP) < end) {
                assertThat(System.nanoTime())
                        .as("read to the end offset %d", end)
                        .isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    String v = new String(r.value(), StandardCharsets.UTF_8);
                    assertThat(out.put(r.offset(), v))
                            .as("offset %d read twice", r.offset())
                            .isNull();
                }
            }
        }
        return out;
    }
}

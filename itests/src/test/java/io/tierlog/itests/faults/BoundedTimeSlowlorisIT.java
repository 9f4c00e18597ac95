package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import io.tierlog.server.net.RequestMemoryPool;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, finding 5b (slowloris): connections that send a frame header claiming a large size and
 * then trickle bytes (each byte resetting the idle timer) used to stay open for ever and, 14 of
 * them, exhausted direct memory. Now a request must arrive within {@code
 * request.receive.timeout.ms}, and requests being received share a bounded pool ({@code
 * queued.max.request.bytes}): past it connections are not read (backpressure), they do not fail.
 * Raw sockets play the attacker; a real Kafka client must meanwhile work.
 */
class BoundedTimeSlowlorisIT {
    private static final int MIB = 1 << 20;

    @TempDir Path dir;
    private TierlogServer server;
    private final List<Socket> sockets = new ArrayList<>();

    private TierlogServer start(Map<String, String> extra) throws IOException {
        Map<String, String> s = new HashMap<>(extra);
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("schema.registry.listen", "");
        s.put("data.dir", dir.resolve("data").toString());
        s.put("num.network.threads", "2");
        s.put("num.partitions", "1");
        s.put("tiered.enabled", "false");
        server = TierlogServer.start(Config.of(s));
        return server;
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
        sockets.add(s);
        return s;
    }

    private static long allocatorBytes() {
        ByteBufAllocatorMetric m =
                ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        return m.usedDirectMemory() + m.usedHeapMemory();
    }

    @Test
    void trickledHugeFramesStayWithinThePoolAreClosedAtTheDeadlineAndClientsGoOn()
            throws Exception {
        start(
                Map.of(
                        "queued.max.request.bytes", "64MiB",
                        "request.receive.timeout.ms", "4000"));
        RequestMemoryPool pool = server.requestMemory();
        long baseline = allocatorBytes();
        int attackers = 30;
        int claim = 20 * MIB;
        int burst = 4 * MIB;
        CountDownLatch closed = new CountDownLatch(attackers);
        AtomicLong peakBytes = new AtomicLong();
        AtomicLong peakReserved = new AtomicLong();
        AtomicBoolean sampling = new AtomicBoolean(true);
        Thread sampler =
                new Thread(
                        () -> {
                            while (sampling.get()) {
                                peakBytes.accumulateAndGet(allocatorBytes() - baseline, Math::max);
                                peakReserved.accumulateAndGet(pool.reservedBytes(), Math::max);
                                try {
                                    Thread.sleep(10);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        });
        sampler.start();
        try (LogCapture logs = LogCapture.start()) {
            for (int i = 0; i < attackers; i++) {
                Socket s = connect();
                Thread t =
                        new Thread(
                                () -> {
                                    try {
                                        OutputStream out = s.getOutputStream();
                                        out.write(ByteBuffer.allocate(4).putInt(claim).array());
                                        out.write(new byte[burst]); // blocks while not read
                                        for (int k = 0; k < 200; k++) {
                                            out.write(0); // one byte, then a pause
                                            out.flush();
                                            Thread.sleep(200);
                                        }
                                    } catch (IOException e) {
                                        closed.countDown(); // the server hung up
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                });
                t.setDaemon(true);
                t.start();
            }
            // Meanwhile a normal client produces and consumes.
            produceAndConsume("normal", 200);
            assertThat(closed.await(30, TimeUnit.SECONDS))
                    .as("every trickling connection closed at request.receive.timeout.ms")
                    .isTrue();
            assertThat(logs.lines("WARN", "not received within request.receive.timeout.ms=4000"))
                    .hasSizeGreaterThanOrEqualTo(attackers);
        } finally {
            sampling.set(false);
            sampler.join();
        }
        assertThat(peakReserved.get())
                .as("reservations never exceed queued.max.request.bytes")
                .isLessThanOrEqualTo(64L * MIB);
        assertThat(peakBytes.get())
                .as("buffers held: about the reserved frames' received bytes, not 30 x 4 MiB")
                .isLessThan(48L * MIB);
        // Healthy afterwards, and every reservation given back.
        produceAndConsume("after", 50);
        Await.until(
                "every reservation given back",
                pool::reservedBytes,
                b -> b == 0,
                Duration.ofSeconds(10));
        assertThat(pool.waitingConnections()).isZero();
    }

    @Test
    void aRequestThatDoesNotFitThePoolWaitsAndSucceedsOnceMemoryIsReleased() throws Exception {
        start(Map.of("queued.max.request.bytes", "8MiB", "message.max.bytes", "8MiB"));
        RequestMemoryPool pool = server.requestMemory();
        Socket hog = connect();
        hog.getOutputStream().write(ByteBuffer.allocate(5).putInt(6 * MIB).put((byte) 0).array());
        awaitCondition(() -> pool.reservedBytes() >= 6L * MIB, "the hog's reservation");

        byte[] big = new byte[4 * MIB];
        new java.util.Random(16).nextBytes(big);
        try (KafkaProducer<byte[], byte[]> p = producer()) {
            Future<RecordMetadata> sent = p.send(new ProducerRecord<>("big", 0, null, big));
            awaitCondition(() -> pool.waitingConnections() >= 1, "the producer waiting");
            assertThat(sent.isDone()).as("waits: neither sent nor failed").isFalse();

            hog.close(); // memory frees
            RecordMetadata m = sent.get(60, TimeUnit.SECONDS);
            assertThat(m.offset()).isZero();
        }
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TopicPartition tp = new TopicPartition("big", 0);
            c.assign(List.of(tp));
            c.seek(tp, 0);
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            TieredWaits.readInOrder(c, 0, 1, Duration.ofSeconds(30), got::add);
            assertThat(got.get(0).value()).isEqualTo(big);
        }
    }

    private static void awaitCondition(java.util.function.BooleanSupplier c, String what) {
        Await.until(what, c::getAsBoolean, Duration.ofSeconds(30));
    }

    private void produceAndConsume(String topic, int n) throws Exception {
        try (KafkaProducer<byte[], byte[]> p = producer()) {
            for (int i = 0; i < n; i++) {
                p.send(new ProducerRecord<>(topic, 0, null, ("v" + i).getBytes()))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seek(tp, 0);
            long next =
                    TieredWaits.readInOrder(
                            c,
                            0,
                            n,
                            Duration.ofSeconds(30),
                            r -> assertThat(r.value()).isEqualTo(("v" + r.offset()).getBytes()));
            assertThat(next).as("consumed from %s", topic).isEqualTo(n);
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * MIB);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + server.port());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}

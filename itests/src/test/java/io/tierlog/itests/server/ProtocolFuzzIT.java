package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.testing.TieredWaits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Protocol fuzzing over real sockets: valid requests of every served API, then byte flips,
 * truncations, extensions, bad size prefixes, random API keys/versions and pure noise, over many
 * connections. Afterwards the server must still serve a real client correctly and everything it
 * stored must read back as valid batches with contiguous offsets. {@code -Dtierlog.it.fuzzFrames}
 * scales the run.
 */
class ProtocolFuzzIT {
    private static final int FRAMES = Integer.getInteger("tierlog.it.fuzzFrames", 120_000);
    private static final int CONNECTIONS = 8;

    @TempDir Path dir;

    @Test
    void hundredThousandHostileFramesLeaveTheServerServingAndTheLogValid() throws Exception {
        try (ServerHarness server =
                new ServerHarness(
                        dir,
                        Map.of(
                                "auto.create.topics.enable", "false",
                                "delete.topic.enable", "false",
                                "socket.request.max.bytes", "1MiB"))) {
            Clients.createTopic(server.bootstrap(), "fuzz", 2);
            Clients.createTopic(server.bootstrap(), "after", 1);
            Uuid fuzzId = topicId(server);
            List<byte[]> seeds = seeds(fuzzId);
            AtomicLong sent = new AtomicLong();
            AtomicLong connections = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
            List<Future<?>> jobs = new ArrayList<>();
            for (int w = 0; w < CONNECTIONS; w++) {
                long seed = 1000L + w;
                jobs.add(
                        pool.submit(
                                () -> {
                                    fuzz(server.port(), seeds, new Random(seed), sent, connections);
                                    return null;
                                }));
            }
            for (Future<?> f : jobs) {
                f.get();
            }
            pool.shutdownNow();
            assertThat(sent.get()).isGreaterThanOrEqualTo(FRAMES);
            System.out.printf(
                    "fuzz: %d frames over %d connections%n", sent.get(), connections.get());

            int n = 2000;
            try (KafkaProducer<byte[], byte[]> p = Clients.producer(server.bootstrap(), "lz4")) {
                for (int i = 0; i < n; i++) {
                    p.send(
                                    new ProducerRecord<>(
                                            "after", 0, Clients.key("a", i), Clients.value("a", i)))
                            .get();
                    if (i == 10) {
                        p.flush();
                    }
                }
            }
            List<ConsumerRecord<byte[], byte[]>> back = readAll(server, "after", 0, n);
            assertThat(back).hasSize(n);
            for (int i = 0; i < n; i++) {
                assertThat(back.get(i).offset()).isEqualTo(i);
                assertThat(back.get(i).value()).isEqualTo(Clients.value("a", i));
            }
            // Everything the fuzzer managed to store is valid: the Java consumer checks CRCs.
            for (int part = 0; part < 2; part++) {
                long end;
                try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
                    end =
                            c.endOffsets(List.of(new TopicPartition("fuzz", part)))
                                    .values()
                                    .iterator()
                                    .next();
                }
                List<ConsumerRecord<byte[], byte[]>> all = readAll(server, "fuzz", part, end);
                assertThat((long) all.size()).isEqualTo(end);
                for (int i = 0; i < all.size(); i++) {
                    assertThat(all.get(i).offset()).isEqualTo(i);
                }
            }
        }
    }

    private static Uuid topicId(ServerHarness server) throws Exception {
        try (var a = Clients.admin(server.bootstrap())) {
            return a.describeTopics(List.of("fuzz")).allTopicNames().get().get("fuzz").topicId();
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(
            ServerHarness server, String topic, int partition, long n) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        TopicPartition tp = new TopicPartition(topic, partition);
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(server.bootstrap())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            TieredWaits.pollUntil(
                    c,
                    n + " records of " + tp,
                    () -> out.size() >= n,
                    Duration.ofSeconds(60),
                    out::add);
        }
        return out;
    }

    /**
     * Lock-step fuzzing on fresh connections: write one frame, then wait for its response, the
     * server closing the connection, or a short timeout (the server may be waiting for bytes a
     * lying size prefix announced, or holding a long-poll fetch). Counts only frames written to a
     * connection the server had not closed yet.
     */
    private void fuzz(
            int port, List<byte[]> seeds, Random rnd, AtomicLong sent, AtomicLong connections)
            throws Exception {
        while (sent.get() < FRAMES) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                s.setTcpNoDelay(true);
                connections.incrementAndGet();
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                int timeouts = 0;
                while (sent.get() < FRAMES && timeouts < 3) {
                    try {
                        out.write(frame(seeds, rnd));
                        out.flush();
                    } catch (IOException e) {
                        break; // closed by the server
                    }
                    sent.incrementAndGet();
                    Reply r = awaitReply(s, in);
                    if (r == Reply.CLOSED) {
                        break;
                    }
                    timeouts = r == Reply.TIMEOUT ? timeouts + 1 : 0;
                }
            }
        }
    }

    private enum Reply {
        RESPONSE,
        CLOSED,
        TIMEOUT
    }

    private static Reply awaitReply(Socket s, InputStream in) throws IOException {
        int first;
        try {
            s.setSoTimeout(50);
            first = in.read();
        } catch (SocketTimeoutException e) {
            return Reply.TIMEOUT;
        } catch (IOException e) {
            return Reply.CLOSED;
        }
        if (first < 0) {
            return Reply.CLOSED;
        }
        try {
            s.setSoTimeout(10_000);
            byte[] rest = in.readNBytes(3);
            if (rest.length < 3) {
                return Reply.CLOSED;
            }
            int size =
                    ((first & 0xff) << 24)
                            | ((rest[0] & 0xff) << 16)
                            | ((rest[1] & 0xff) << 8)
                            | (rest[2] & 0xff);
            assertThat(size).as("response size").isBetween(4, 64 << 20);
            in.skipNBytes(size);
            return Reply.RESPONSE;
        } catch (java.io.EOFException e) {
            return Reply.CLOSED;
        } catch (IOException e) {
            return Reply.CLOSED;
        }
    }

    /** One fuzzed frame, size prefix included. */
    private static byte[] frame(List<byte[]> seeds, Random rnd) {
        byte[] seed = seeds.get(rnd.nextInt(seeds.size()));
        int kind = rnd.nextInt(100);
        if (kind < 25) {
            return seed; // valid request: keeps connections alive and the server busy
        }
        byte[] f = seed.clone();
        if (kind < 55) {
            int flips = 1 + rnd.nextInt(8);
            for (int i = 0; i < flips; i++) {
                int at = 4 + rnd.nextInt(f.length - 4);
                f[at] =
                        (byte)
                                (rnd.nextBoolean()
                                        ? rnd.nextInt(256)
                                        : f[at] ^ (1 << rnd.nextInt(8)));
            }
            return f;
        }
        if (kind < 65) {
            int len = 4 + rnd.nextInt(f.length - 4);
            ByteBuffer b = ByteBuffer.allocate(len);
            b.putInt(len - 4).put(f, 4, len - 4);
            return b.array();
        }
        if (kind < 72) {
            int extra = rnd.nextInt(256);
            ByteBuffer b = ByteBuffer.allocate(f.length + extra);
            b.putInt(f.length - 4 + extra).put(f, 4, f.length - 4);
            byte[] noise = new byte[extra];
            rnd.nextBytes(noise);
            return b.put(noise).array();
        }
        if (kind < 80) {
            // random api key and version over a valid body
            ByteBuffer b = ByteBuffer.wrap(f);
            b.putShort(4, (short) rnd.nextInt(80));
            b.putShort(6, (short) (rnd.nextInt(20) - 2));
            return f;
        }
        if (kind < 85) {
            int[] sizes = {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 2 << 20, 0, 1, 3};
            ByteBuffer b = ByteBuffer.wrap(f);
            b.putInt(0, sizes[rnd.nextInt(sizes.length)]);
            return f;
        }
        if (kind < 86) {
            // wrong size prefix: the stream desynchronises, as a broken client's would
            ByteBuffer b = ByteBuffer.wrap(f);
            b.putInt(0, Math.max(0, f.length - 4 + rnd.nextInt(64) - 32));
            return f;
        }
        byte[] noise = new byte[4 + rnd.nextInt(200)];
        rnd.nextBytes(noise);
        ByteBuffer.wrap(noise).putInt(0, noise.length - 4);
        return noise;
    }

    private static List<byte[]> seeds(Uuid fuzzId) {
        List<byte[]> out = new ArrayList<>();
        for (short v = 0; v <= 4; v++) {
            out.add(
                    frame(
                            ApiKeys.API_VERSIONS,
                            v,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName("fuzz")
                                    .setClientSoftwareVersion("1")));
        }
        for (short v : new short[] {0, 1, 4, 9, 12}) {
            MetadataRequestData m = new MetadataRequestData().setAllowAutoTopicCreation(true);
            m.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("fuzz"));
            m.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("missing"));
            out.add(frame(ApiKeys.METADATA, v, m));
        }
        MemoryRecords recs =
                MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(1L, "k".getBytes(), "v".getBytes()),
                        new SimpleRecord(2L, null, "w".getBytes()));
        int partition = 0;
        for (short v : new short[] {3, 3, 7, 7, 9, 9, 11, 11}) {
            ProduceRequestData p = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
            ProduceRequestData.TopicProduceData t =
                    new ProduceRequestData.TopicProduceData().setName("fuzz");
            t.partitionData()
                    .add(
                            new ProduceRequestData.PartitionProduceData()
                                    .setIndex(partition++ % 2)
                                    .setRecords(
                                            MemoryRecords.readableRecords(
                                                    recs.buffer().duplicate())));
            p.topicData().add(t);
            out.add(frame(ApiKeys.PRODUCE, v, p));
        }
        for (short v : new short[] {4, 10, 12, 13, 16}) {
            FetchRequestData f =
                    new FetchRequestData().setMaxWaitMs(50).setMinBytes(1).setMaxBytes(1 << 20);
            FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic();
            if (v >= 13) {
                t.setTopicId(fuzzId);
            } else {
                t.setTopic("fuzz");
            }
            t.partitions()
                    .add(
                            new FetchRequestData.FetchPartition()
                                    .setPartition(0)
                                    .setFetchOffset(0)
                                    .setPartitionMaxBytes(1 << 16));
            f.topics().add(t);
            out.add(frame(ApiKeys.FETCH, v, f));
        }
        for (short v : new short[] {1, 4, 7, 8}) {
            ListOffsetsRequestData l = new ListOffsetsRequestData().setReplicaId(-1);
            ListOffsetsRequestData.ListOffsetsTopic t =
                    new ListOffsetsRequestData.ListOffsetsTopic().setName("fuzz");
            t.partitions()
                    .add(
                            new ListOffsetsRequestData.ListOffsetsPartition()
                                    .setPartitionIndex(0)
                                    .setTimestamp(-1));
            l.topics().add(t);
            out.add(frame(ApiKeys.LIST_OFFSETS, v, l));
        }
        for (short v : new short[] {0, 2, 4}) {
            out.add(
                    frame(
                            ApiKeys.INIT_PRODUCER_ID,
                            v,
                            new InitProducerIdRequestData()
                                    .setTransactionalId(null)
                                    .setTransactionTimeoutMs(1000)));
        }
        DescribeConfigsRequestData d = new DescribeConfigsRequestData();
        d.resources()
                .add(
                        new DescribeConfigsRequestData.DescribeConfigsResource()
                                .setResourceType((byte) 2)
                                .setResourceName("fuzz"));
        out.add(frame(ApiKeys.DESCRIBE_CONFIGS, (short) 4, d));
        out.add(
                frame(
                        ApiKeys.FIND_COORDINATOR,
                        (short) 1,
                        new FindCoordinatorRequestData().setKey("g")));
        return out;
    }

    private static byte[] frame(ApiKeys key, short version, ApiMessage body) {
        return RawClient.frame(key, version, 1, body);
    }
}

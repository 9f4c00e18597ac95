package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.testing.ServeProcess;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a {@code tierlog serve} process while consumers commit offsets concurrently (default
 * {@code page_cache} durability: acknowledged from the page cache, group commit): after a restart
 * every acknowledged commit is there (the committed offset is at least the last acknowledged one; a
 * commit cut by the kill may or may not be).
 */
class OffsetCommitCrashIT {
    @TempDir Path dir;

    private static final int GROUPS = 4;
    private static final int PARTITIONS = 3;

    @Test
    void killMinus9RightAfterAcknowledgedCommitsLosesNone() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = dir.resolve("data");
        String bootstrap = "127.0.0.1:" + port;
        Process server = startServe(port, data, "first.log");
        Process second = null;
        Map<String, Map<TopicPartition, Long>> acked = new ConcurrentHashMap<>();
        AtomicInteger ackedCount = new AtomicInteger();
        AtomicBoolean killed = new AtomicBoolean();
        List<Thread> committers = new ArrayList<>();
        try {
            Clients.createTopic(bootstrap, "commits", PARTITIONS);
            for (int g = 0; g < GROUPS; g++) {
                String group = "crash-group-" + g;
                Map<TopicPartition, Long> mine = new ConcurrentHashMap<>();
                acked.put(group, mine);
                Thread t =
                        new Thread(
                                () -> {
                                    try (KafkaConsumer<byte[], byte[]> c =
                                            consumer(bootstrap, group)) {
                                        List<TopicPartition> tps =
                                                Clients.partitions("commits", PARTITIONS);
                                        c.assign(tps);
                                        for (long o = 1; !killed.get(); o++) {
                                            TopicPartition tp = tps.get((int) (o % PARTITIONS));
                                            c.commitSync(
                                                    Map.of(tp, new OffsetAndMetadata(o, "m" + o)),
                                                    Duration.ofSeconds(10));
                                            mine.put(tp, o);
                                            ackedCount.incrementAndGet();
                                        }
                                    } catch (RuntimeException e) {
                                        // the server was killed under this commit
                                    }
                                });
                t.start();
                committers.add(t);
            }
            assertThat(Clients.await(Duration.ofMinutes(2), () -> ackedCount.get() >= 1500))
                    .as("commits acknowledged before the kill: %s", ackedCount)
                    .isTrue();
            killed.set(true);
            server.destroyForcibly().waitFor();
            Map<String, Map<TopicPartition, Long>> before = new ConcurrentHashMap<>();
            acked.forEach((g, m) -> before.put(g, Map.copyOf(m)));
            for (Thread t : committers) {
                t.join(Duration.ofMinutes(1).toMillis());
            }

            second = startServe(port, data, "second.log");
            for (int g = 0; g < GROUPS; g++) {
                String group = "crash-group-" + g;
                try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap, group)) {
                    Set<TopicPartition> tps =
                            new HashSet<>(Clients.partitions("commits", PARTITIONS));
                    Map<TopicPartition, OffsetAndMetadata> committed =
                            c.committed(tps, Duration.ofSeconds(30));
                    for (Map.Entry<TopicPartition, Long> e : before.get(group).entrySet()) {
                        OffsetAndMetadata got = committed.get(e.getKey());
                        assertThat(got).as("%s %s", group, e.getKey()).isNotNull();
                        assertThat(got.offset())
                                .as("%s %s: acknowledged %d", group, e.getKey(), e.getValue())
                                .isGreaterThanOrEqualTo(e.getValue());
                        assertThat(got.metadata()).isEqualTo("m" + got.offset());
                    }
                }
            }
        } finally {
            killed.set(true);
            server.destroyForcibly();
            if (second != null) {
                second.destroy();
                second.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return new KafkaConsumer<>(p);
    }

    private Process startServe(int port, Path data, String logName) throws Exception {
        return ServeProcess.start(dir.resolve(logName), port, data);
    }
}

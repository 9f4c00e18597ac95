package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.itests.testing.ServeProcess;
import io.tierlog.itests.testing.TieredWaits;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of a {@code tierlog serve} child JVM while an idempotent lz4 producer writes to a topic
 * with {@code compression.type=gzip} (every batch recompressed on append, small segments so rolls
 * happen too): after a restart on the same data dir, every acknowledged record is there once, and
 * the producer's retries after the restart are deduplicated across the recompression.
 */
class RecompressedAppendKillIT {
    @TempDir Path dir;

    @Test
    void killMinus9DuringRecompressedAppendsLosesNothingAcknowledgedAndDuplicatesNothing()
            throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = dir.resolve("data");
        Process server = startServe(port, data, "first.log");
        int n = Integer.getInteger("tierlog.it.crashRecords", 20_000);
        String bootstrap = "127.0.0.1:" + port;
        try (Admin a = Clients.admin(bootstrap)) {
            a.createTopics(
                            List.of(
                                    new NewTopic("zipped", 2, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "compression.type", "gzip",
                                                            "internal.segment.bytes", "65536"))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        BitSet acked = new BitSet(n);
        AtomicInteger ackedCount = new AtomicInteger();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread producer =
                new Thread(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> p =
                                    Clients.producer(bootstrap, "lz4")) {
                                for (int i = 0; i < n; i++) {
                                    int id = i;
                                    p.send(
                                            new ProducerRecord<>(
                                                    "zipped",
                                                    Clients.key("z", i),
                                                    Clients.value("z", i)),
                                            (md, e) -> {
                                                if (e != null) {
                                                    failure.compareAndSet(null, e);
                                                } else {
                                                    synchronized (acked) {
                                                        acked.set(id);
                                                    }
                                                    ackedCount.incrementAndGet();
                                                }
                                            });
                                }
                                p.flush();
                            }
                        });
        Process second = null;
        try {
            producer.start();
            assertThat(Clients.await(Duration.ofMinutes(1), () -> ackedCount.get() > n / 3))
                    .isTrue();
            server.destroyForcibly().waitFor();
            second = startServe(port, data, "second.log");
            producer.join(Duration.ofMinutes(3).toMillis());
            assertThat(producer.isAlive()).isFalse();
            assertThat(failure.get()).as("send failure").isNull();
            assertThat(ackedCount.get()).isEqualTo(n);

            BitSet seen = new BitSet(n);
            int[] count = {0};
            try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
                List<TopicPartition> tps = Clients.partitions("zipped", 2);
                c.assign(tps);
                c.seekToBeginning(tps);
                TieredWaits.pollUntil(
                        c,
                        n + " records",
                        () -> count[0] >= n,
                        Duration.ofSeconds(90),
                        r -> {
                            int i = Clients.index(r.key());
                            assertThat(seen.get(i)).as("duplicate %d", i).isFalse();
                            assertThat(r.value()).isEqualTo(Clients.value("z", i));
                            seen.set(i);
                            count[0]++;
                        });
                assertThat(c.poll(Duration.ofMillis(300))).isEmpty();
            }
            BitSet lost = (BitSet) acked.clone();
            lost.andNot(seen);
            assertThat(lost.cardinality()).as("acknowledged but lost").isZero();
            assertThat(count[0]).isEqualTo(n);
        } finally {
            server.destroyForcibly();
            if (second != null) {
                second.destroy();
                second.waitFor(60, TimeUnit.SECONDS);
            }
        }
    }

    private Process startServe(int port, Path data, String logName) throws Exception {
        return ServeProcess.start(dir.resolve(logName), port, data);
    }
}

package io.tierlog.itests.faults;

import static io.tierlog.itests.faults.BoundedColdFixture.BASE_TS;
import static io.tierlog.itests.faults.BoundedColdFixture.awaitOffloaded;
import static io.tierlog.itests.faults.BoundedColdFixture.coldReadErrors;
import static io.tierlog.itests.faults.BoundedColdFixture.consumer;
import static io.tierlog.itests.faults.BoundedColdFixture.fetchResponses;
import static io.tierlog.itests.faults.BoundedColdFixture.produce;
import static io.tierlog.itests.faults.BoundedColdFixture.settings;
import static io.tierlog.itests.faults.BoundedColdFixture.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.S3ObjectStore;
import io.tierlog.engine.PartitionReport;
import io.tierlog.s3.embedded.EmbeddedS3Server;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, finding 6: a corrupt Parquet object made its offset range answer KAFKA_STORAGE_ERROR
 * for ever with no server log line. Now the failure is logged at WARN (once per object per minute,
 * however often consumers retry) with the object key, its offset range and the cause, and counted
 * in {@code tierlog.cold.read.errors{cause=corrupt}}; the consumer gets a retriable error for that
 * range only; and where the hot tier still holds the range, it is served from there. The corruption
 * is real: the object in the embedded S3 is overwritten with garbage of its size.
 */
class ColdReadErrorsIT {
    @TempDir Path dir;
    private EmbeddedS3Server s3;
    private TierlogServer server;

    @BeforeEach
    void startS3() throws Exception {
        s3 = EmbeddedS3Server.start(dir.resolve("s3"));
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        s3.close();
    }

    /** Overwrites the object holding offset 0 of {@code topic} with garbage; returns its info. */
    private ObjectInfo corruptFirstObject(String topic) throws Exception {
        try (S3ObjectStore store = S3ObjectStore.create(s3.clientConfig())) {
            List<ObjectInfo> objects = store.list(topic + "/0/");
            ObjectInfo first =
                    objects.stream()
                            .filter(o -> o.key().endsWith(".parquet"))
                            .filter(o -> firstOffset(o.key()) == 0)
                            .findFirst()
                            .orElseThrow();
            byte[] garbage = new byte[Math.toIntExact(first.size())];
            new Random(6).nextBytes(garbage);
            store.put(first.key(), garbage);
            return first;
        }
    }

    /** Offsets from a key ".../{first:020d}-{last:020d}-{uuid}.parquet". */
    private static long firstOffset(String key) {
        return Long.parseLong(key.substring(key.lastIndexOf('/') + 1).split("-")[0]);
    }

    private static long lastOffset(String key) {
        return Long.parseLong(key.substring(key.lastIndexOf('/') + 1).split("-")[1]);
    }

    @Test
    void aCorruptObjectWithoutHotCopyIsLoggedOncePerMinuteCountedAndAnsweredRetriably()
            throws Exception {
        String topic = "corrupt";
        TopicPartition tp = new TopicPartition(topic, 0);
        Map<String, String> s = settings(s3, s3.endpoint(), dir.resolve("data"));
        s.put("local.retention.bytes", Integer.toString(128 << 10));
        server = BoundedColdFixture.start(s);
        int n = 20_000;
        produce(server, topic, 0, n);
        PartitionReport r = awaitOffloaded(server, topic, 256 << 10);
        ObjectInfo bad = corruptFirstObject(topic);
        long last = lastOffset(bad.key());
        // how many segments one object holds depends on how offload passes met the producer:
        // what matters is that the hot tier no longer holds offset 0, where the consumer starts
        assertThat(r.hotLogStartOffset()).as("the hot tier no longer holds offset 0").isPositive();

        try (LogCapture logs = LogCapture.start();
                KafkaConsumer<byte[], byte[]> c = consumer(server)) {
            c.assign(List.of(tp));
            c.seek(tp, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (fetchResponses(c) < 5 && System.nanoTime() < deadline) {
                assertThat(c.poll(Duration.ofMillis(200)))
                        .as("nothing from a corrupt range, and no exception")
                        .isEmpty();
            }
            assertThat(fetchResponses(c)).as("answered, retried").isGreaterThanOrEqualTo(5);
            assertThat(coldReadErrors(server, "corrupt")).isGreaterThanOrEqualTo(5);
            List<String> lines = logs.lines("WARN", "cold read of " + tp, bad.key());
            assertThat(lines)
                    .as("one line per object per minute, however often it is retried")
                    .hasSize(1);
            assertThat(lines.get(0))
                    .contains("(corrupt)")
                    .contains("offsets [0, " + last + "]")
                    .contains("ObjectCorruptException");

            // Only that object's range is affected: from the next one on, everything reads.
            c.seek(tp, last + 1);
            long next = last + 1;
            long readDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (next < n && System.nanoTime() < readDeadline) {
                for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(200))) {
                    assertThat(rec.offset()).isEqualTo(next);
                    assertThat(rec.value()).isEqualTo(value(next));
                    next++;
                }
            }
            assertThat(next).isEqualTo(n);
        }
    }

    @Test
    void aCorruptObjectWhoseRangeTheHotTierStillHoldsIsServedFromTheHotTier() throws Exception {
        String topic = "hotcopy";
        TopicPartition tp = new TopicPartition(topic, 0);
        server = BoundedColdFixture.start(settings(s3, s3.endpoint(), dir.resolve("data")));
        int n = 5_000;
        produce(server, topic, 0, n);
        PartitionReport r = awaitOffloaded(server, topic, Long.MAX_VALUE);
        assertThat(r.hotLogStartOffset()).as("no local retention: hot holds everything").isZero();
        corruptFirstObject(topic);

        try (KafkaConsumer<byte[], byte[]> c = consumer(server)) {
            c.assign(List.of(tp));
            c.seek(tp, 0);
            long next = 0;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (next < n && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(200))) {
                    assertThat(rec.offset()).isEqualTo(next);
                    assertThat(rec.timestamp()).isEqualTo(BASE_TS + next);
                    assertThat(rec.value()).isEqualTo(value(next));
                    next++;
                }
            }
            assertThat(next).isEqualTo(n);
        }
        assertThat(coldReadErrors(server, "corrupt")).isZero();
    }
}

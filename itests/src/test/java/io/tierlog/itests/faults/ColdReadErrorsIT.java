package io.tierlog.itests.faults;

import static io.tierlog.itests.faults.BoundedColdFixture.awaitOffloaded;
import static io.tierlog.itests.faults.BoundedColdFixture.coldReadErrors;
import static io.tierlog.itests.faults.BoundedColdFixture.consumer;
import static io.tierlog.itests.faults.BoundedColdFixture.fetchResponses;
import static io.tierlog.itests.faults.BoundedColdFixture.produce;
import static io.tierlog.itests.faults.BoundedColdFixture.readInOrder;
import static io.tierlog.itests.faults.BoundedColdFixture.settings;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.ObjectInfo;
import io.tierlog.cold.ObjectStore;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.PartitionReport;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
    private ColdTierFixture cold;
    private TierlogServer server;

    @BeforeEach
    void startS3() throws Exception {
        cold = ColdTierFixture.start(dir);
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        cold.close();
    }

    /** Overwrites the object holding offset 0 of {@code topic} with garbage; returns its info. */
    private ObjectInfo corruptFirstObject(String topic) throws Exception {
        ObjectStore store = cold.store();
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
        Map<String, String> s = settings(cold, cold.endpoint());
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
            Await.until(
                    "5 fetch responses (answered, retried)",
                    () -> {
                        assertThat(c.poll(Duration.ofMillis(200)))
                                .as("nothing from a corrupt range, and no exception")
                                .isEmpty();
                        return fetchResponses(c);
                    },
                    responses -> responses >= 5,
                    Duration.ofSeconds(60));
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
            assertThat(readInOrder(c, last + 1, n, Duration.ofMinutes(2))).isEqualTo(n);
        }
    }

    @Test
    void aCorruptObjectWhoseRangeTheHotTierStillHoldsIsServedFromTheHotTier() throws Exception {
        String topic = "hotcopy";
        TopicPartition tp = new TopicPartition(topic, 0);
        server = BoundedColdFixture.start(settings(cold, cold.endpoint()));
        int n = 5_000;
        produce(server, topic, 0, n);
        PartitionReport r = awaitOffloaded(server, topic, Long.MAX_VALUE);
        assertThat(r.hotLogStartOffset()).as("no local retention: hot holds everything").isZero();
        corruptFirstObject(topic);

        try (KafkaConsumer<byte[], byte[]> c = consumer(server)) {
            c.assign(List.of(tp));
            c.seek(tp, 0);
            assertThat(readInOrder(c, 0, n, Duration.ofMinutes(1))).isEqualTo(n);
        }
        assertThat(coldReadErrors(server, "corrupt")).isZero();
    }
}

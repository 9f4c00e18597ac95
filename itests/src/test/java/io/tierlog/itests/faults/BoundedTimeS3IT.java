package io.tierlog.itests.faults;

import static io.tierlog.itests.faults.BoundedColdFixture.awaitOffloaded;
import static io.tierlog.itests.faults.BoundedColdFixture.coldReadErrors;
import static io.tierlog.itests.faults.BoundedColdFixture.consumer;
import static io.tierlog.itests.faults.BoundedColdFixture.fetchResponses;
import static io.tierlog.itests.faults.BoundedColdFixture.produce;
import static io.tierlog.itests.faults.BoundedColdFixture.readInOrder;
import static io.tierlog.itests.faults.BoundedColdFixture.s3Errors;
import static io.tierlog.itests.faults.BoundedColdFixture.settings;
import static io.tierlog.itests.faults.BoundedColdFixture.since;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.FaultInjectingProxy;
import io.tierlog.common.testing.Await;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.engine.PartitionReport;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, finding 5a: an S3 endpoint that accepts connections and never answers (the
 * fault-injecting proxy holding every response back) must not leave a cold Fetch unanswered (it
 * was, for 334 s, with nothing logged) nor hang offload. With the default deadlines the Fetch is
 * answered with the retriable KAFKA_STORAGE_ERROR well inside the consumer's request.timeout.ms;
 * the consumer neither fails nor disconnects, and reads everything once S3 answers again; WARN
 * lines name the object key and the setting; an upload times out and is retried until S3 is back.
 */
class BoundedTimeS3IT {
    private static final String TOPIC = "hang";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir Path dir;
    private ColdTierFixture cold;
    private FaultInjectingProxy proxy;
    private TierlogServer server;

    @BeforeEach
    void startS3() throws Exception {
        cold = ColdTierFixture.start(dir);
        proxy = cold.proxy();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        cold.close();
    }

    @Test
    void coldFetchAgainstAnS3ThatNeverAnswersIsAnsweredRetriablyWithinTheClientTimeout()
            throws Exception {
        Map<String, String> s = settings(cold, proxy.endpoint());
        s.put("local.retention.bytes", Integer.toString(128 << 10));
        server = BoundedColdFixture.start(s); // default s3.* and cold.read.* deadlines
        int n = 20_000;
        produce(server, TOPIC, 0, n);
        PartitionReport r = awaitOffloaded(server, TOPIC, 256 << 10);
        assertThat(r.hotLogStartOffset()).as("offset 0 is only in the cold tier").isPositive();

        try (LogCapture logs = LogCapture.start();
                KafkaConsumer<byte[], byte[]> c = consumer(server)) {
            proxy.delayAll(Duration.ofHours(1)); // accepts, never answers
            c.assign(List.of(TP));
            c.seek(TP, 0);
            long start = System.nanoTime();
            while (fetchResponses(c) == 0 && since(start).compareTo(Duration.ofSeconds(40)) < 0) {
                assertThat(c.poll(Duration.ofMillis(200))).isEmpty(); // and throws nothing
            }
            Duration answeredAfter = since(start);
            assertThat(fetchResponses(c)).as("the fetch was answered").isPositive();
            assertThat(answeredAfter)
                    .as("answered well inside request.timeout.ms=30s")
                    .isLessThan(Duration.ofSeconds(20));
            assertThat(coldReadErrors(server, "timeout")).isPositive();
            assertThat(logs.lines("WARN", "cold read of " + TP + " at offset 0 failed (timeout)"))
                    .as("a WARN names the partition, offset, object key and its offset range")
                    .anySatisfy(l -> assertThat(l).contains(".parquet offsets [0, "));
            assertThat(logs.lines("WARN", "S3 call for key " + TOPIC + "/0/", "timed out"))
                    .as("the object store's WARN names the key and the setting")
                    .anySatisfy(l -> assertThat(l).contains("s3.api.call.timeout.ms=10000"));

            // S3 answers again: the same consumer, never failed, reads everything from 0.
            proxy.heal();
            assertThat(readInOrder(c, 0, n, Duration.ofMinutes(2))).isEqualTo(n);
        }
    }

    @Test
    void offloadAgainstAnS3ThatNeverAnswersTimesOutAndRetriesUntilItAnswers() throws Exception {
        Map<String, String> s = settings(cold, proxy.endpoint());
        s.put("s3.upload.timeout.ms", "1500");
        s.put("s3.api.call.timeout.ms", "1500");
        s.put("s3.request.timeout.ms", "1000");
        s.put("offload.retry.timeout.ms", "1000");
        server = BoundedColdFixture.start(s);
        try (LogCapture logs = LogCapture.start()) {
            proxy.delayAll(Duration.ofHours(1));
            produce(server, TOPIC, 0, 5_000); // several closed segments to offload
            Await.until(
                    "uploads to time out and be tried again, not hang",
                    () -> s3Errors(server, "put"),
                    errors -> errors >= 2,
                    Duration.ofMinutes(1));
            assertThat(logs.lines("WARN", "S3 call for key " + TOPIC + "/0/", "timed out"))
                    .anySatisfy(l -> assertThat(l).contains("s3.upload.timeout.ms=1500"));
            assertThat(server.engine().offsets(TP).coldHighWatermark())
                    .as("nothing committed while S3 is silent")
                    .isLessThanOrEqualTo(0);
        }
        proxy.heal();
        awaitOffloaded(server, TOPIC, Long.MAX_VALUE);
        assertThat(server.engine().offsets(TP).coldHighWatermark()).isPositive();
    }
}

package io.tierlog.itests.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.TieredLog;
import io.tierlog.server.TierlogServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose clock and timer are the test's: the hot tier rolls a segment on {@code segment.ms}
 * of the manual clock, the offload loop then puts it in the cold tier, and local retention deletes
 * it only on the next housekeeping pass the test lets run; a consumer from offset 0 then reads
 * every record from the cold tier. Real time alone moves none of it.
 */
class ManualClockServerIT {
    private static final String TOPIC = "manual";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final long SEGMENT_MS = 120_000;
    private static final int RECORDS = 100;

    @TempDir Path dir;
    final MockTime time = new MockTime(System.currentTimeMillis());
    final ManualScheduler timer = new ManualScheduler(time);
    TierlogServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        timer.shutdownNow();
    }

    @Test
    void rollOffloadAndLocalRetentionHappenOnlyWhenTheTestMovesTheClock() throws Exception {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("data.dir", dir.resolve("data").toString());
        s.put("num.network.threads", "2");
        s.put("num.partitions", "1");
        s.put("segment.ms", Long.toString(SEGMENT_MS));
        s.put("local.retention.ms", "60000");
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "100");
        server = TierlogServer.builder(Config.of(s)).time(time).scheduler(timer).start();
        String bootstrap = "127.0.0.1:" + server.port();
        TieredLog engine = server.broker().tiered().orElseThrow();
        Clients.createTopic(bootstrap, TOPIC, 1);
        try (KafkaProducer<byte[], byte[]> p = Clients.producer(bootstrap, "none")) {
            for (int i = 0; i < RECORDS; i++) {
                p.send(new ProducerRecord<>(TOPIC, Clients.key("m", i), Clients.value("m", i)));
            }
            p.flush();
        }
        assertThat(engine.latestOffset(TP)).isEqualTo(RECORDS);

        // One millisecond short of segment.ms since the first append: no roll, nothing to offload.
        timer.advance(SEGMENT_MS - 1);
        assertThat(engine.hotLog(TP).orElseThrow().segments()).hasSize(1);
        assertThat(engine.offsets(TP).coldHighWatermark()).isZero();

        // segment.ms reached: the housekeeping pass rolls, and the offload loop commits it.
        timer.advance(1);
        assertThat(engine.hotLog(TP).orElseThrow().segments()).hasSize(2);
        assertThat(
                        Clients.await(
                                Duration.ofSeconds(60),
                                () -> engine.offsets(TP).coldHighWatermark() == RECORDS))
                .as("offloaded after the roll")
                .isTrue();
        assertThat(engine.offsets(TP).hotLogStartOffset())
                .as("older than local.retention.ms, but no housekeeping pass ran since")
                .isZero();

        // The next pass on the test's timer deletes the offloaded segment.
        timer.advance(1_000);
        LogOffsets o = engine.offsets(TP);
        assertThat(o.hotLogStartOffset()).isEqualTo(RECORDS);
        assertThat(o.logStartOffset()).isZero();

        // A consumer from the start gets every record, now served by the cold tier.
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = Clients.consumer(bootstrap)) {
            c.assign(List.of(TP));
            c.seekToBeginning(List.of(TP));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (got.size() < RECORDS && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(got::add);
            }
        }
        assertThat(got).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            assertThat(got.get(i).offset()).isEqualTo(i);
            assertThat(got.get(i).key()).isEqualTo(Clients.key("m", i));
            assertThat(got.get(i).value()).isEqualTo(Clients.value("m", i));
        }
    }
}

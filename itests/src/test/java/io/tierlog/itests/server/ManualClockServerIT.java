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
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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

    private TierlogServer start(Map<String, String> extra) throws Exception {
        Map<String, String> s = new HashMap<>(extra);
        s.put("listeners", "PLAINTEXT://127.0.0.1:0");
        s.put("schema.registry.listen", "");
        s.put("data.dir", dir.resolve("data").toString());
        s.put("num.network.threads", "2");
        s.put("num.partitions", "1");
        s.put("segment.ms", Long.toString(SEGMENT_MS));
        // the topic is an Iceberg table (the default): a target of twice segment.ms leaves the
        // roll at segment.ms (min(segment.ms, target/2)), by the test's clock like every roll
        s.put("iceberg.freshness.target.ms", Long.toString(2 * SEGMENT_MS));
        s.put("local.retention.ms", "60000");
        s.put("retention.ms", "-1");
        s.put("offload.interval.ms", "100");
        return TierlogServer.builder(Config.of(s)).time(time).scheduler(timer).start();
    }

    @Test
    void rollOffloadAndLocalRetentionHappenOnlyWhenTheTestMovesTheClock() throws Exception {
        server = start(Map.of());
        String bootstrap = "127.0.0.1:" + server.port();
        TieredLog engine = server.engine();
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

    @Test
    void aSilentConsumerGroupMemberExpiresTheMillisecondItsSessionTimeoutPasses() throws Exception {
        server = start(Map.of());
        String bootstrap = "127.0.0.1:" + server.port();
        Clients.createTopic(bootstrap, TOPIC, 1);
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        // The member heartbeats in real time while the server's clock stands still, so all its
        // contacts are at the same manual instant; then it goes away without leaving the group.
        try (KafkaConsumer<byte[], byte[]> member =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            member.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (member.assignment().isEmpty() && System.nanoTime() < deadline) {
                member.poll(Duration.ofMillis(100));
            }
            assertThat(member.assignment()).containsExactly(TP);
            member.close(
                    CloseOptions.groupMembershipOperation(
                            CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
        }
        // A second member joins; the rebalance waits for the first (max.poll.interval.ms) unless
        // its session expires first.
        var groups = server.groups();
        CompletableFuture<io.tierlog.server.group.coordinator.GroupCoordinator.JoinResult> probe =
                groups.join(
                        "g",
                        "",
                        "probe",
                        10_000,
                        10_000,
                        "consumer",
                        List.of(
                                new io.tierlog.server.group.coordinator.GroupCoordinator.Protocol(
                                        "range", new byte[0])));
        timer.advance(10_000);
        assertThat(probe).as("at session.timeout.ms the silent member is still in").isNotDone();

        timer.advance(1);
        assertThat(probe).as("one millisecond later it expired and the rebalance ended").isDone();
        assertThat(probe.get().error()).isEqualTo(Errors.NONE);
        assertThat(probe.get().members())
                .extracting(m -> m.memberId())
                .containsExactly(probe.get().memberId());
    }
}

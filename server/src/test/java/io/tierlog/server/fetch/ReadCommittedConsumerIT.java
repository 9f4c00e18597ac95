package io.tierlog.server.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.engine.TieredLog;
import io.tierlog.engine.Transactions;
import io.tierlog.engine.TxnVerification;
import io.tierlog.server.TierlogServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kafka-clients 4.4 consumers over a real server, on a partition whose transactions were written
 * through the engine (the coordinator's wire side is another part): {@code read_committed} sees the
 * committed and plain records only, stops at an open transaction (its end offset is the last stable
 * offset), and goes on once the transaction commits; {@code read_uncommitted} sees every data
 * record and ends at the high watermark. The client's own {@code CompletedFetch} does the filtering
 * from our {@code aborted_transactions} and control batches.
 */
class ReadCommittedConsumerIT {
    private static final TopicPartition TP = new TopicPartition("eos", 0);

    @TempDir Path dir;

    @Test
    void aReadCommittedConsumerSeesCommittedRecordsOnlyAndWaitsAtTheOpenTransaction()
            throws Exception {
        run(
                Map.of(
                        "listeners", "PLAINTEXT://127.0.0.1:0",
                        "schema.registry.listen", "",
                        "data.dir", dir.toString(),
                        "tiered.enabled", "false",
                        "segment.bytes", "1024"),
                false);
    }

    /**
     * The same with the transactions' segments offloaded and deleted from the hot tier (tiny local
     * retention): the aborted list of each cold read comes from the objects.
     */
    @Test
    void theSameFromTheColdTier() throws Exception {
        run(
                Map.of(
                        "listeners", "PLAINTEXT://127.0.0.1:0",
                        "schema.registry.listen", "",
                        "data.dir", dir.toString(),
                        "engine.background.enabled", "false",
                        "segment.bytes", "1024",
                        "local.retention.bytes", "1",
                        "file.delete.delay.ms", "0"),
                true);
    }

    private void run(Map<String, String> config, boolean cold) throws Exception {
        try (TierlogServer server = TierlogServer.start(Config.of(config))) {
            TieredLog e = server.engine();
            e.createTopic(TP.topic(), 1, Map.of());
            Transactions t = e.transactions();
            List<String> committed = new ArrayList<>();
            List<String> all = new ArrayList<>();
            short epoch9 = 0;
            for (int i = 0; i < 20; i++) {
                // interleaved: producer 7 aborts, producer 8 commits, plain records between
                txn(e, 7, (short) 0, 2 * i, "aborted-" + i);
                all.add("aborted-" + i);
                txn(e, 8, (short) 0, 2 * i, "committed-" + i);
                all.add("committed-" + i);
                e.append(TP, plain("plain-" + i));
                all.add("plain-" + i);
                txn(e, 7, (short) 0, 2 * i + 1, "aborted-b-" + i);
                all.add("aborted-b-" + i);
                txn(e, 8, (short) 0, 2 * i + 1, "committed-b-" + i);
                all.add("committed-b-" + i);
                t.appendMarker(TP, 7, (short) 0, 0, false, 1);
                t.appendMarker(TP, 8, (short) 0, 0, true, 1);
                committed.add("committed-" + i);
                committed.add("plain-" + i);
                committed.add("committed-b-" + i);
            }
            long lso = e.latestOffset(TP);
            txn(e, 9, epoch9, 0, "open-0");
            all.add("open-0");
            e.append(TP, plain("after-open"));
            all.add("after-open");
            assertThat(t.lastStableOffset(TP)).isEqualTo(lso);
            if (cold) {
                e.maintain(); // offload below the LSO, then local retention
                assertThat(e.offsets(TP).hotLogStartOffset())
                        .as("the transactions' early segments are in the cold tier only")
                        .isGreaterThan(lso / 2);
                assertThat(e.offsets(TP).coldHighWatermark())
                        .as("offload stopped below the open transaction")
                        .isLessThanOrEqualTo(lso);
            }

            String bootstrap = "127.0.0.1:" + server.port();
            try (KafkaConsumer<String, String> rc = consumer(bootstrap, "read_committed");
                    KafkaConsumer<String, String> ru = consumer(bootstrap, "read_uncommitted")) {
                assertThat(rc.endOffsets(List.of(TP)).get(TP))
                        .as("read_committed end offset = the LSO")
                        .isEqualTo(lso);
                assertThat(ru.endOffsets(List.of(TP)).get(TP)).isEqualTo(e.latestOffset(TP));

                List<String> seen = new ArrayList<>();
                pollUntil(rc, seen, () -> rc.position(TP) >= lso);
                assertThat(seen).as("committed and plain, in order").isEqualTo(committed);

                List<String> everything = new ArrayList<>();
                pollUntil(ru, everything, () -> ru.position(TP) >= e.latestOffset(TP));
                assertThat(everything).isEqualTo(all);

                t.appendMarker(TP, 9, epoch9, 0, true, 1);
                List<String> later = new ArrayList<>();
                pollUntil(rc, later, () -> later.size() >= 2);
                assertThat(later)
                        .as("the committed open transaction, then the record after it")
                        .containsExactly("open-0", "after-open");
            }
        }
    }

    private interface Done {
        boolean test() throws Exception;
    }

    private static void pollUntil(KafkaConsumer<String, String> c, List<String> out, Done done)
            throws Exception {
        Await.<Exception>until(
                "the consumer caught up",
                () -> {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                        out.add(r.value());
                    }
                    return done.test();
                },
                Duration.ofSeconds(60));
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "700"); // many fetches
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        KafkaConsumer<String, String> c = new KafkaConsumer<>(p);
        c.assign(List.of(TP));
        c.seekToBeginning(List.of(TP));
        return c;
    }

    private static ByteBuffer plain(String value) {
        return MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                                System.currentTimeMillis(),
                                null,
                                value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    private static void txn(TieredLog e, long pid, short epoch, int seq, String value)
            throws Exception {
        MemoryRecordsBuilder b =
                MemoryRecords.builder(
                        ByteBuffer.allocate(512),
                        RecordBatch.MAGIC_VALUE_V2,
                        Compression.NONE,
                        TimestampType.CREATE_TIME,
                        0L,
                        RecordBatch.NO_TIMESTAMP,
                        pid,
                        epoch,
                        seq,
                        true,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH);
        b.append(
                new SimpleRecord(
                        System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8)));
        TxnVerification v = e.transactions().startVerification(TP, pid, seq, epoch, false);
        e.append(TP, b.build().buffer(), v);
    }
}

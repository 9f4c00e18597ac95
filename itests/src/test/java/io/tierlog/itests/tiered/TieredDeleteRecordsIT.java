package io.tierlog.itests.tiered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.common.Config;
import io.tierlog.compactor.testing.ColdTierFixture;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import io.tierlog.server.cli.TierlogCli;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeleteRecords on a tiered topic whose old records are in cold objects: the objects wholly below
 * the new log start leave the catalog first and then the bucket, the one partly below stays and is
 * read from the new start, nothing below is served (also after a restart), and {@code tierlog
 * verify} accepts the removed range yet still finds a real loss above it. With the object store
 * failing between the catalog commit and the object deletes (the state a crash there leaves), the
 * objects are orphans that verify accepts and the sweeper removes.
 */
class TieredDeleteRecordsIT {
    private static final String TOPIC = "cold-dr";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int SEGMENT = 16 << 10;
    private static final int RECORDS = 3000;

    @TempDir Path dir;

    private static byte[] value(long i) {
        return ("value-" + i + "-" + "y".repeat(60)).getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> settings(ColdTierFixture cold, URI s3) {
        Map<String, String> s = TieredServers.settings(cold.dataDir(), 0, SEGMENT);
        s.put("local.retention.bytes", Integer.toString(2 * SEGMENT));
        s.put("offload.target.object.bytes", Integer.toString(SEGMENT));
        s.put("s3.request.timeout.ms", "1000");
        s.put("s3.retry.max.attempts", "2");
        return cold.engineSettings(s3, s);
    }

    private static String bootstrap(TierlogServer server) {
        return "127.0.0.1:" + server.port();
    }

    /** Produces the records and waits until all but the newest segments are only in cold. */
    private static List<ColdObject> produceAndOffload(TierlogServer server) throws Exception {
        TieredServers.produce(bootstrap(server), TOPIC, 0, RECORDS, TieredDeleteRecordsIT::value);
        TieredWaits.awaitOffloaded(server, TOPIC, 3L * SEGMENT, Duration.ofMinutes(2));
        List<ColdObject> objects = server.engine().catalog().objects(TOPIC, 0);
        assertThat(objects).as("the test needs several cold objects").hasSizeGreaterThan(5);
        assertThat(server.engine().offsets(TP).hotLogStartOffset())
                .as("the oldest records are only in the cold tier")
                .isGreaterThan(objects.get(4).lastOffset());
        return objects;
    }

    private static long deleteRecords(TierlogServer server, long offset) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap(server)))) {
            return admin.deleteRecords(Map.of(TP, RecordsToDelete.beforeOffset(offset)))
                    .lowWatermarks()
                    .get(TP)
                    .get()
                    .lowWatermark();
        }
    }

    private static long earliest(TierlogServer server) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap(server)))) {
            return admin.listOffsets(Map.of(TP, OffsetSpec.earliest()))
                    .partitionResult(TP)
                    .get()
                    .offset();
        }
    }

    /** A consumer from earliest reads exactly {@code from .. RECORDS - 1}, in order, as written. */
    private static void readsExactlyFrom(TierlogServer server, long from) {
        try (KafkaConsumer<byte[], byte[]> c =
                TieredServers.consumer(
                        bootstrap(server),
                        Map.of(
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                SEGMENT))) {
            c.assign(List.of(TP));
            c.seekToBeginning(List.of(TP));
            long end =
                    TieredWaits.readInOrder(
                            c,
                            from,
                            RECORDS,
                            Duration.ofMinutes(1),
                            TieredServers.produced(TieredDeleteRecordsIT::value));
            assertThat(end).isEqualTo(RECORDS);
        }
    }

    /** A consumer that does not reset is told the offset just below the start is out of range. */
    private static void belowTheStartIsOutOfRange(TierlogServer server, long start) {
        try (KafkaConsumer<byte[], byte[]> c =
                TieredServers.consumer(
                        bootstrap(server),
                        Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"))) {
            c.assign(List.of(TP));
            c.seek(TP, start - 1);
            assertThatThrownBy(
                            () -> {
                                for (int i = 0; i < 100; i++) {
                                    c.poll(Duration.ofMillis(200));
                                }
                            })
                    .isInstanceOf(OffsetOutOfRangeException.class);
        }
    }

    private static int verify(Map<String, String> settings) {
        return cli(settings, "verify");
    }

    private static int cli(Map<String, String> settings, String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        settings.forEach(
                (k, v) -> {
                    if (k.startsWith("s3.") || k.equals("data.dir")) {
                        args.add("--set");
                        args.add(k + "=" + v);
                    }
                });
        return TierlogCli.commandLine().execute(args.toArray(String[]::new));
    }

    @Test
    void objectsWhollyBelowTheNewStartLeaveCatalogAndBucketAndColdReadsStartThereAcrossARestart()
            throws Exception {
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            Map<String, String> settings = settings(cold, cold.endpoint());
            TierlogServer server = TierlogServer.start(Config.of(settings));
            List<ColdObject> before;
            long start;
            try {
                before = produceAndOffload(server);
                // inside the fourth object: three objects go wholly, the fourth stays
                start = before.get(3).firstOffset() + 7;
                assertThat(deleteRecords(server, start)).isEqualTo(start);

                List<ColdObject> after = server.engine().catalog().objects(TOPIC, 0);
                assertThat(after.get(0).key()).isEqualTo(before.get(3).key());
                assertThat(after).hasSize(before.size() - 3);
                for (ColdObject gone : before.subList(0, 3)) {
                    assertThat(cold.objectFile(gone.key())).doesNotExist();
                }
                assertThat(cold.objectFile(before.get(3).key())).exists();
                assertThat(earliest(server)).isEqualTo(start);
                readsExactlyFrom(server, start);
                belowTheStartIsOutOfRange(server, start);

                server.close();
                server = TierlogServer.start(Config.of(settings));
                assertThat(earliest(server)).as("after a restart").isEqualTo(start);
                assertThat(server.engine().catalog().objects(TOPIC, 0)).hasSize(before.size() - 3);
                readsExactlyFrom(server, start);
                belowTheStartIsOutOfRange(server, start);
            } finally {
                server.close();
            }
            assertThat(verify(settings)).as("the deleted range is not a loss").isZero();

            // a real loss above the start is still found
            try (Catalog c = Catalog.open(cold.catalogUrl())) {
                Files.delete(cold.objectFile(c.objects(TOPIC, 0).get(1).key()));
            }
            assertThat(verify(settings)).isOne();
        }
    }

    @Test
    void
            objectDeletesFailingAfterTheCatalogCommitLeaveOrphansThatVerifyAcceptsAndTheSweeperRemoves()
                    throws Exception {
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            Map<String, String> settings = settings(cold, cold.proxy().endpoint());
            TierlogServer server = TierlogServer.start(Config.of(settings));
            List<ColdObject> before;
            long start;
            try {
                before = produceAndOffload(server);
                start = before.get(4).lastOffset() + 1; // exactly the end of the fifth object
                cold.proxy().goDown(); // S3 unreachable between the catalog commit and deletes
                assertThat(deleteRecords(server, start)).isEqualTo(start);
                assertThat(server.engine().catalog().objects(TOPIC, 0).get(0).firstOffset())
                        .isEqualTo(start);
                for (ColdObject o : before.subList(0, 5)) {
                    assertThat(cold.objectFile(o.key())).as("left as an orphan").exists();
                }
                assertThat(earliest(server)).isEqualTo(start);
            } finally {
                server.close();
                cold.proxy().comeUp();
            }
            assertThat(verify(settings)).as("orphans below the start are no loss").isZero();

            // A rebuilt catalog keeps the log start (meta/log-start-offsets), and the orphans
            // below it do not come back into it.
            assertThat(cli(settings, "catalog", "rebuild", "--force")).isZero();
            try (Catalog c = Catalog.open(cold.catalogUrl())) {
                assertThat(c.partitionState(TOPIC, 0).logStartOffset()).isEqualTo(start);
                assertThat(c.objects(TOPIC, 0).get(0).firstOffset()).isEqualTo(start);
            }
            assertThat(verify(settings)).isZero();

            // restarted with a short grace so that the sweeper may take the orphans now
            Map<String, String> sweeping = new java.util.HashMap<>(settings);
            sweeping.put("offload.orphan.grace.ms", "1");
            server = TierlogServer.start(Config.of(sweeping));
            try {
                assertThat(earliest(server)).isEqualTo(start);
                readsExactlyFrom(server, start);
                belowTheStartIsOutOfRange(server, start);
                assertThat(server.engine().sweepOrphans()).isGreaterThanOrEqualTo(5);
                for (ColdObject o : before.subList(0, 5)) {
                    assertThat(cold.objectFile(o.key())).as("swept").doesNotExist();
                }
                readsExactlyFrom(server, start);
            } finally {
                server.close();
            }
            assertThat(verify(settings)).isZero();
        }
    }

    @Test
    void deleteRecordsRacingTheOffloaderLeavesOneChainAtOrAboveTheStartAndNoLoss()
            throws Exception {
        try (ColdTierFixture cold = ColdTierFixture.start(dir)) {
            Map<String, String> settings = settings(cold, cold.proxy().endpoint());
            settings.put("offload.interval.ms", "50");
            // slow uploads: a DeleteRecords lands while segments below its offset are uploading
            cold.proxy().delayAll(Duration.ofMillis(150));
            TierlogServer server = TierlogServer.start(Config.of(settings));
            long start = 0;
            try {
                int chunk = RECORDS / 10;
                for (int round = 0; round < 10; round++) {
                    TieredServers.produce(
                            bootstrap(server),
                            TOPIC,
                            (long) round * chunk,
                            chunk,
                            TieredDeleteRecordsIT::value);
                    long target = Math.max(start, (long) round * chunk - chunk / 2);
                    long low = deleteRecords(server, target);
                    assertThat(low).isEqualTo(Math.max(start, target));
                    start = low;
                }
                cold.proxy().delayAll(Duration.ZERO);
                TieredWaits.awaitOffloaded(server, TOPIC, 3L * SEGMENT, Duration.ofMinutes(2));
                List<ColdObject> objects = server.engine().catalog().objects(TOPIC, 0);
                assertThat(objects).isNotEmpty();
                for (ColdObject o : objects) {
                    assertThat(o.lastOffset())
                            .as("no object wholly below the start %d stays committed: %s", start, o)
                            .isGreaterThanOrEqualTo(start);
                }
                assertThat(server.engine().verify(false)).isEmpty();
                assertThat(earliest(server)).isEqualTo(start);
                readsExactlyFrom(server, start);
            } finally {
                server.close();
            }
            assertThat(verify(settings)).isZero();
        }
    }
}

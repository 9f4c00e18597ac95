package io.tierlog.itests.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.catalog.CatalogBinding;
import io.tierlog.catalog.CatalogUnavailableException;
import io.tierlog.common.Config;
import io.tierlog.common.testing.Await;
import io.tierlog.engine.LogOffsets;
import io.tierlog.engine.MetricNames;
import io.tierlog.engine.TieredLog;
import io.tierlog.itests.testing.InProcessCli;
import io.tierlog.itests.testing.InProcessCli.Cli;
import io.tierlog.itests.testing.TieredServers;
import io.tierlog.itests.testing.TieredWaits;
import io.tierlog.server.TierlogServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding 1 of issue #16: the SQLite catalog deleted under a running server with {@code
 * local.retention.bytes} set used to let local retention delete every offloaded hot segment on the
 * word of the unlinked file, so that after a restart the log began far above 0 and {@code verify}
 * said OK. Now: the loss stops offload commits and local deletion (metric {@code
 * tierlog.catalog.healthy} 0, refusals counted) while produce and fetch go on; the server refuses
 * to start on the missing catalog with one line naming {@code tierlog catalog rebuild}; inspect and
 * verify create nothing; the rebuild from the bucket makes every acknowledged record readable from
 * offset 0 again. Real server (embedded S3 in the data dir, SQLite catalog), real producer with
 * acks=all, real consumer.
 */
class CatalogLossIT {
    private static final long BASE_TS = TieredServers.BASE_TS;
    private static final String TOPIC = "lossy";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir Path dir;

    private Path dataDir() {
        return dir.resolve("data");
    }

    private Path catalogDb() {
        return dataDir().resolve("catalog.db");
    }

    private Config config(int port) {
        Map<String, String> s = TieredServers.settings(dataDir(), port, 128 << 10);
        s.put("local.retention.bytes", Integer.toString(256 << 10));
        return Config.of(s);
    }

    private static byte[] value(long i) {
        return ("value-" + i + "-" + "z".repeat(60)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void catalogDeletedUnderARunningServerLosesNothingOnceRebuiltFromTheBucket() throws Exception {
        int n = 30_000;
        TierlogServer server = TierlogServer.start(config(0));
        int port = server.port();
        long hotStartAtLoss;
        try {
            produce(port, 0, n);
            awaitOffloaded(server);
            TieredLog tiered = server.engine();
            assertThat(tiered.offsets(TP).hotLogStartOffset())
                    .as("local retention deleted offloaded segments")
                    .isGreaterThan(n / 4);
            assertThat(healthy(tiered)).isEqualTo(1.0);

            deleteCatalogFiles();
            // The guard notices on its next check (periodic, or the next deletion/commit).
            await(() -> healthy(tiered) == 0.0, "catalog reported unhealthy");
            tiered.logManager().runHousekeeping();
            hotStartAtLoss = tiered.offsets(TP).hotLogStartOffset();

            // Hot produce and fetch go on; nothing is deleted locally any more.
            produce(port, n, n);
            try (KafkaConsumer<byte[], byte[]> c = consumer(port)) {
                c.assign(List.of(TP));
                c.seek(TP, n);
                assertThat(readUpTo(c, n, 2L * n)).isEqualTo(2L * n);
            }
            await(() -> refusals(tiered) > 0, "refusals counted");
            for (int i = 0; i < 5; i++) {
                tiered.logManager().runHousekeeping();
            }
            assertThat(tiered.offsets(TP).hotLogStartOffset())
                    .as("no hot segment deleted while the catalog is gone")
                    .isEqualTo(hotStartAtLoss);
            assertThat(catalogDb()).doesNotExist();
        } finally {
            server.close();
        }

        // Restart refused, with one line naming the rebuild; nothing created in its place.
        assertThatThrownBy(() -> TierlogServer.start(config(port)))
                .isInstanceOf(CatalogUnavailableException.class)
                .hasMessageContaining("tierlog catalog rebuild")
                .hasMessageContaining(catalogDb().toString())
                .hasMessageNotContaining("\n");
        assertThat(catalogDb()).doesNotExist();
        Cli serve =
                cli(
                        "serve",
                        "--set",
                        "data.dir=" + dataDir(),
                        "--set",
                        "listeners=PLAINTEXT://127.0.0.1:0",
                        "--set",
                        "schema.registry.listen=");
        assertThat(serve.exit()).isEqualTo(2);
        assertThat(serve.err().lines().filter(l -> l.contains("catalog rebuild")).count())
                .isEqualTo(1);
        assertThat(serve.err()).doesNotContain("\tat ");

        // inspect and verify fail clearly and create nothing.
        Map<String, String> before = snapshot(dataDir());
        Cli inspect = cli("inspect", "--set", "data.dir=" + dataDir());
        Cli verify = cli("verify", "--set", "data.dir=" + dataDir());
        assertThat(inspect.exit()).isEqualTo(2);
        assertThat(verify.exit()).isEqualTo(2);
        assertThat(verify.err()).contains("does not exist").contains("tierlog catalog rebuild");
        assertThat(snapshot(dataDir())).isEqualTo(before);

        // An empty catalog with the right id (the old release would have created one): verify
        // names the hole below the hot log start and the offsets only the bucket holds.
        try (io.tierlog.catalog.Catalog empty =
                io.tierlog.catalog.Catalog.open("jdbc:sqlite:" + catalogDb())) {
            CatalogBinding.assignId(empty, CatalogBinding.read(dataDir()).orElseThrow());
        }
        Cli verifyEmpty = cli("verify", "--set", "data.dir=" + dataDir());
        assertThat(verifyEmpty.exit()).isEqualTo(1);
        assertThat(verifyEmpty.out())
                .contains("GAP_BETWEEN_TIERS: the hot log starts at " + hotStartAtLoss)
                .contains("offsets [0, " + hotStartAtLoss + ") are in neither tier")
                .contains("OBJECTS_NOT_IN_CATALOG")
                .contains("holds offsets 0..");

        // The rebuild, then every acknowledged record from offset 0.
        Cli rebuild = cli("catalog", "rebuild", "--set", "data.dir=" + dataDir());
        assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
        assertThat(rebuild.out()).contains("rebuilt: 1 topics").contains("hot log starts at");
        assertThat(rebuild.out()).doesNotContain("GAP");
        Cli verifyAfter = cli("verify", "--set", "data.dir=" + dataDir());
        assertThat(verifyAfter.exit()).as(verifyAfter.out() + verifyAfter.err()).isZero();

        server = TierlogServer.start(config(port));
        try {
            assertEveryRecordFromTheStart(port, 2L * n);
            // Offload and local deletion resume on the rebuilt catalog.
            awaitOffloaded(server);
            TieredLog tiered = server.engine();
            assertThat(healthy(tiered)).isEqualTo(1.0);
            assertThat(tiered.offsets(TP).hotLogStartOffset()).isGreaterThan(hotStartAtLoss);
        } finally {
            server.close();
        }
    }

    @Test
    void catalogRolledBackToAnOldBackupIsReportedByVerifyAndRebuiltWithForce() throws Exception {
        int n = 20_000;
        TierlogServer server = TierlogServer.start(config(0));
        int port = server.port();
        produce(port, 0, n);
        awaitOffloaded(server);
        server.close();
        Path backup = dir.resolve("catalog.backup");
        Files.copy(catalogDb(), backup);
        server = TierlogServer.start(config(port));
        long hotStart;
        long coldHw;
        try {
            produce(port, n, n);
            awaitOffloaded(server);
            LogOffsets o = server.engine().offsets(TP);
            hotStart = o.hotLogStartOffset();
            coldHw = o.coldHighWatermark();
        } finally {
            server.close();
        }
        long backupHw;
        try (io.tierlog.catalog.Catalog b =
                io.tierlog.catalog.Catalog.open(
                        "jdbc:sqlite:" + backup,
                        Map.of(),
                        io.tierlog.catalog.Catalog.OpenMode.READ_ONLY)) {
            backupHw = b.partitionState(TOPIC, 0).coldHighWatermark();
        }
        assertThat(hotStart)
                .as("local retention went past the backup's watermark")
                .isGreaterThan(backupHw);
        Files.copy(backup, catalogDb(), StandardCopyOption.REPLACE_EXISTING); // the roll-back

        Cli verify = cli("verify", "--set", "data.dir=" + dataDir());
        assertThat(verify.exit()).isEqualTo(1);
        assertThat(verify.out())
                .contains("OBJECTS_NOT_IN_CATALOG")
                .contains("holds offsets " + backupHw + "..")
                .contains("GAP_BETWEEN_TIERS");
        Cli refused = cli("catalog", "rebuild", "--set", "data.dir=" + dataDir());
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("--force");
        Cli rebuild = cli("catalog", "rebuild", "--force", "--set", "data.dir=" + dataDir());
        assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
        assertThat(rebuild.out()).contains("cold high watermark " + coldHw).contains("kept as");
        assertThat(cli("verify", "--set", "data.dir=" + dataDir()).exit()).isZero();

        server = TierlogServer.start(config(port));
        try {
            assertEveryRecordFromTheStart(port, 2L * n);
        } finally {
            server.close();
        }
    }

    @Test
    void catalogBackWithTheSameIdResumesOffloadAndLocalDeletion() throws Exception {
        int n = 20_000;
        TierlogServer server = TierlogServer.start(config(0));
        int port = server.port();
        produce(port, 0, n);
        awaitOffloaded(server);
        server.close(); // a clean stop checkpoints the catalog into catalog.db alone
        Path backup = dir.resolve("catalog.backup");
        Files.copy(catalogDb(), backup);
        server = TierlogServer.start(config(port));
        try {
            TieredLog tiered = server.engine();
            deleteCatalogFiles();
            await(() -> healthy(tiered) == 0.0, "catalog reported unhealthy");
            long hotStart = tiered.offsets(TP).hotLogStartOffset();
            produce(port, n, n);
            tiered.logManager().runHousekeeping();
            assertThat(tiered.offsets(TP).hotLogStartOffset()).isEqualTo(hotStart);

            Files.copy(backup, catalogDb(), StandardCopyOption.REPLACE_EXISTING);
            await(() -> healthy(tiered) == 1.0, "catalog healthy again");
            awaitOffloaded(server);
            LogOffsets after = tiered.offsets(TP);
            assertThat(after.coldHighWatermark()).isGreaterThan(n);
            assertThat(after.hotLogStartOffset()).isGreaterThan(hotStart);
            assertEveryRecordFromTheStart(port, 2L * n);
        } finally {
            server.close();
        }
        assertThat(cli("verify", "--set", "data.dir=" + dataDir()).exit()).isZero();
    }

    @Test
    void dataDirOfThePreviousReleaseAdoptsItsCatalogsIdOnFirstStart() throws Exception {
        int n = 5_000;
        TierlogServer server = TierlogServer.start(config(0));
        int port = server.port();
        produce(port, 0, n);
        awaitOffloaded(server);
        server.close();
        // What 50e958a left: no catalog.id, a catalog at schema version 3 (no catalog_meta).
        Files.delete(dataDir().resolve(CatalogBinding.FILE));
        try (java.sql.Connection c =
                        java.sql.DriverManager.getConnection("jdbc:sqlite:" + catalogDb());
                java.sql.Statement s = c.createStatement()) {
            for (String t : // schema version 7
                    new String[] {
                        "registry_schemas",
                        "registry_schema_refs",
                        "registry_subjects",
                        "registry_versions",
                        "registry_field_ids",
                        "registry_config"
                    }) {
                s.execute("DROP TABLE " + t);
            }
            s.execute("DROP TABLE catalog_meta");
            s.execute("DROP TABLE retired_objects"); // schema version 6
            s.execute("ALTER TABLE partitions DROP COLUMN cold_cleaned");
            s.execute("ALTER TABLE partitions DROP COLUMN last_cold_cleaning");
            s.execute("ALTER TABLE partitions DROP COLUMN log_start"); // schema version 5
            s.execute("DELETE FROM schema_version WHERE version >= 4");
        }
        server = TierlogServer.start(config(port));
        try {
            Optional<UUID> adopted = CatalogBinding.read(dataDir());
            assertThat(adopted).isPresent();
            assertEveryRecordFromTheStart(port, n);
            server.close();
            server = TierlogServer.start(config(port)); // and it stays bound
            assertThat(CatalogBinding.read(dataDir())).isEqualTo(adopted);
        } finally {
            server.close();
        }
    }

    @Test
    void inspectAndVerifyChangeNoFileAndCreateNoDataDir() throws Exception {
        Path missing = dir.resolve("never-made");
        Cli onMissing = cli("inspect", "--set", "data.dir=" + missing);
        assertThat(onMissing.exit()).isEqualTo(2);
        assertThat(cli("verify", "--set", "data.dir=" + missing).exit()).isEqualTo(2);
        assertThat(missing).doesNotExist();

        TierlogServer server = TierlogServer.start(config(0));
        produce(server.port(), 0, 5_000);
        awaitOffloaded(server);
        server.close();
        Map<String, String> before = snapshot(dataDir());
        Cli inspect = cli("inspect", "--set", "data.dir=" + dataDir());
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains(TOPIC);
        Cli verify = cli("verify", "--deep", "--set", "data.dir=" + dataDir());
        assertThat(verify.exit()).as(verify.out() + verify.err()).isZero();
        assertThat(snapshot(dataDir())).isEqualTo(before);
    }

    // ---------------------------------------------------------------------------------------

    private void deleteCatalogFiles() throws IOException {
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            Files.deleteIfExists(Path.of(catalogDb() + suffix));
        }
    }

    private static double healthy(TieredLog t) {
        return t.meterRegistry().get(MetricNames.CATALOG_HEALTHY).gauge().value();
    }

    private static double refusals(TieredLog t) {
        return t.meterRegistry().get(MetricNames.CATALOG_REFUSALS).functionCounter().count();
    }

    private static void await(BooleanSupplier condition, String what) {
        Await.until(what, condition::getAsBoolean, Duration.ofMinutes(1));
    }

    /** Path, size and modification time of everything under {@code root}. */
    static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> m = new java.util.TreeMap<>();
        try (var s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                var a = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class);
                m.put(
                        root.relativize(p).toString(),
                        (a.isDirectory() ? "dir" : Long.toString(a.size()))
                                + "@"
                                + a.lastModifiedTime().toMillis());
            }
        }
        return m;
    }

    static Cli cli(String... args) {
        return InProcessCli.run(args);
    }

    private static void awaitOffloaded(TierlogServer server) {
        TieredWaits.awaitOffloaded(server, TOPIC, (256 << 10) + (128 << 10), Duration.ofMinutes(3));
    }

    /** Polls until the position reaches {@code until}, checking every record; returns it. */
    private static long readUpTo(KafkaConsumer<byte[], byte[]> c, long next, long until) {
        return TieredWaits.readInOrder(
                c,
                next,
                until,
                Duration.ofMinutes(3),
                TieredServers.produced(CatalogLossIT::value));
    }

    /** Every acknowledged record, read from offset 0 with a new consumer. */
    private static void assertEveryRecordFromTheStart(int port, long n) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(port)) {
            c.assign(List.of(TP));
            c.seekToBeginning(List.of(TP));
            assertThat(readUpTo(c, 0, n)).isEqualTo(n);
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(int port) {
        return TieredServers.consumer(
                "127.0.0.1:" + port,
                Map.of(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 256 << 10));
    }

    /** Produces {@code count} records with acks=all; every send must be acknowledged. */
    private static void produce(int port, long from, int count) throws Exception {
        TieredServers.produce("127.0.0.1:" + port, TOPIC, from, count, CatalogLossIT::value);
    }
}

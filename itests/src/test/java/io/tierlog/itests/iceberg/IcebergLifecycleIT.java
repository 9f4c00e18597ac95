package io.tierlog.itests.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.common.testing.Await;
import io.tierlog.itests.iceberg.TableReader.LiveFile;
import io.tierlog.itests.iceberg.TableReader.TableView;
import io.tierlog.itests.testing.TieredServers;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's lifecycle: what retention, topic delete, turning tables on and snapshot expiry do to a
 * topic's table, on a live {@code tierlog serve} child, read straight from {@code iceberg.db} and
 * the bucket's files (no tierlog code in the reading).
 */
class IcebergLifecycleIT {
    private static final String NS = "tierlog";
    private static final long SNAPSHOT_RETENTION_MS = 3000;

    @TempDir Path dir;

    private Path data;
    private ServerChild server;
    private TableReader reader;

    @BeforeEach
    void start() throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.iceberg", "warn");
        data = dir.resolve("data");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Map<String, String> s = new HashMap<>();
        s.put("data.dir", data.toString());
        s.put("schema.registry.listen", "");
        s.put("num.network.threads", "2");
        s.put("segment.bytes", "8192");
        s.put("retention.ms", "-1");
        s.put("retention.check.interval.ms", "300");
        s.put("offload.interval.ms", "200");
        s.put("offload.merge.enabled", "false");
        s.put("offload.orphan.grace.ms", "1000");
        s.put("offload.sweep.interval.ms", "500");
        s.put("iceberg.freshness.target.ms", "2000");
        s.put("iceberg.snapshot.retention.ms", Long.toString(SNAPSHOT_RETENTION_MS));
        server = new ServerChild(port, s, dir.resolve("serve.log"));
        server.startListening();
        reader = new TableReader(data, "tierlog");
    }

    @AfterEach
    void stop() throws Exception {
        server.kill();
    }

    @Test
    void totalRetentionTakesFilesOutOfTheTableBeforeTheBucketDeletesThem() throws Exception {
        String topic = "life-retained";
        create(topic, Map.of());
        // timestamps of 2023: any small retention.ms retains every closed object away
        TieredServers.produce(server.bootstrap(), topic, 0, 3000, i -> value(topic, i));
        TableCheck registered = awaitExact(topic, c -> c.catalogObjects() >= 3);
        Set<String> keys = keysOf(reader.read(NS, topic).orElseThrow());
        System.out.println("before retention: " + registered.describe());

        alter(topic, "retention.ms", "1000");
        Map<String, Long> leftTable = new HashMap<>();
        Map<String, Long> leftBucket = new HashMap<>();
        List<String> violations = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline && leftBucket.size() < keys.size()) {
            Optional<TableView> t;
            try {
                t = reader.read(NS, topic);
            } catch (RuntimeException e) {
                Thread.sleep(100); // a metadata file replaced under the read: poll again
                continue;
            }
            long now = System.nanoTime();
            Set<String> live = t.map(IcebergLifecycleIT::keysOf).orElse(Set.of());
            for (LiveFile f : t.map(TableView::files).orElse(List.of())) {
                if (!reader.inBucket(f.location())) {
                    violations.add("the table references " + f.key() + ", the bucket lacks it");
                }
            }
            for (String k : keys) {
                if (!live.contains(k)) {
                    leftTable.putIfAbsent(k, now);
                }
                if (!reader.inBucket("s3://tierlog/" + k)) {
                    leftBucket.putIfAbsent(k, now);
                    if (live.contains(k)) {
                        violations.add(k + " left the bucket while the table still had it");
                    }
                }
            }
            Thread.sleep(100); // the poll interval
        }
        assertThat(violations).as("table before bucket").isEmpty();
        assertThat(leftTable.keySet())
                .as("objects retention took out of the table")
                .isEqualTo(keys);
        assertThat(leftBucket.keySet())
                .as("objects deleted from the bucket after the table let go (log %s)", server.log())
                .isEqualTo(keys);
        for (String k : keys) {
            assertThat(leftTable.get(k))
                    .as("%s left the table first", k)
                    .isLessThanOrEqualTo(leftBucket.get(k));
        }
        // what is left in the table is exactly what is left in the catalog
        TableCheck after = awaitExact(topic, c -> true);
        System.out.println("after retention: " + after.describe());
    }

    @Test
    void tierlogExpiresItsOwnOldSnapshots() throws Exception {
        String topic = "life-snapshots";
        create(topic, Map.of());
        Set<Long> seen = new HashSet<>();
        // many small commits over more than the snapshot retention
        long until = System.nanoTime() + Duration.ofMillis(4 * SNAPSHOT_RETENTION_MS).toNanos();
        int i = 0;
        while (System.nanoTime() < until) {
            TieredServers.produce(server.bootstrap(), topic, i, 200, n -> value(topic, n));
            i += 200;
            reader.read(NS, topic)
                    .ifPresent(t -> t.snapshots().forEach(s -> seen.add(s.snapshotId())));
            Thread.sleep(300); // the producer's pace
        }
        TableView t =
                Await.until(
                        "snapshots older than the retention expired",
                        () -> {
                            Optional<TableView> v = reader.read(NS, topic);
                            v.ifPresent(x -> x.snapshots().forEach(s -> seen.add(s.snapshotId())));
                            return v.orElse(null);
                        },
                        v -> v != null && oldSnapshots(v).isEmpty(),
                        Duration.ofSeconds(30));
        System.out.printf(
                "snapshots: %d seen, %d kept (%s)%n",
                seen.size(),
                t.snapshots().size(),
                t.snapshots().stream().map(Snapshot::operation).toList());
        assertThat(seen.size())
                .as("tierlog committed many snapshots")
                .isGreaterThan(t.snapshots().size());
        assertThat(t.snapshots()).as("snapshots kept").isNotEmpty();
        awaitExact(topic, c -> true);
    }

    @Test
    void deletingATopicDropsItsTable() throws Exception {
        String topic = "life-dropped";
        create(topic, Map.of());
        TieredServers.produce(server.bootstrap(), topic, 0, 1000, i -> value(topic, i));
        TableView before =
                Await.until(
                        "the table has files",
                        () -> reader.read(NS, topic).orElse(null),
                        v -> v != null && !v.files().isEmpty(),
                        Duration.ofSeconds(60));
        String metadataDir = metadataDir(before);
        deleteTopic(topic);
        Await.until(
                "the table dropped with its topic",
                () -> !reader.tables(NS).contains(topic),
                Duration.ofSeconds(60));
        assertThat(reader.tables(NS)).as("no renamed copy").noneMatch(n -> n.startsWith(topic));
        Await.until(
                "the table's metadata files deleted",
                () -> countFiles(reader.io().file(metadataDir)) == 0,
                Duration.ofSeconds(30));
    }

    @Test
    void withDropTableOffADeletedTopicLeavesARenamedTableThatStillReads() throws Exception {
        String topic = "life-kept";
        create(topic, Map.of("iceberg.drop.table.on.topic.delete", "false"));
        TieredServers.produce(server.bootstrap(), topic, 0, 1000, i -> value(topic, i));
        TableCheck registered = awaitExact(topic, c -> c.catalogObjects() >= 2);
        deleteTopic(topic);
        String renamed =
                Await.until(
                        "the table renamed as its topic is deleted",
                        () ->
                                reader.tables(NS).stream()
                                        .filter(n -> n.startsWith(topic + "__deleted_"))
                                        .findFirst()
                                        .orElse(null),
                        n -> n != null && !reader.tables(NS).contains(topic),
                        Duration.ofSeconds(60));
        assertThat(renamed).matches(topic + "__deleted_[0-9a-f]{8}");
        TableView kept = reader.read(NS, renamed).orElseThrow();
        assertThat(kept.files()).hasSize(registered.liveFiles());
        assertThat(kept.files().stream().mapToLong(LiveFile::records).sum())
                .isEqualTo(registered.liveRecords());
        assertThat(kept.properties()).containsEntry("tierlog.owner", "released");
        // the files stay readable: still in the bucket well after the delete (sweeps ran)
        Thread.sleep(3000); // several sweep intervals: the files must survive them
        for (LiveFile f : reader.read(NS, renamed).orElseThrow().files()) {
            assertThat(reader.inBucket(f.location())).as("%s kept", f.key()).isTrue();
        }
    }

    @Test
    void turningIcebergOnForATopicWithHistoryRegistersEveryExistingObject() throws Exception {
        String topic = "life-backfill";
        create(topic, Map.of("iceberg.enabled", "false"));
        TieredServers.produce(server.bootstrap(), topic, 0, 3000, i -> value(topic, i));
        int objects =
                Await.until(
                        "cold history (closed segments offloaded, no table)",
                        () -> catalogObjects(topic).size(),
                        n -> n >= 1,
                        Duration.ofSeconds(60));
        assertThat(reader.read(NS, topic).map(v -> v.files().size()).orElse(0))
                .as("no table files while iceberg.enabled=false")
                .isZero();
        alter(topic, "iceberg.enabled", "true");
        TableCheck c = awaitExact(topic, x -> x.catalogObjects() >= objects);
        System.out.println("backfilled: " + c.describe());
        assertThat(c.liveFiles()).isGreaterThanOrEqualTo(objects);
    }

    // ---- helpers

    private static byte[] value(String topic, long i) {
        return (topic + "-" + i + "-" + "v".repeat(100)).getBytes(StandardCharsets.UTF_8);
    }

    private void create(String topic, Map<String, String> configs) throws Exception {
        try (Admin a = Admin.create(Map.of("bootstrap.servers", server.bootstrap()))) {
            a.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all().get();
        }
    }

    private void alter(String topic, String key, String value) throws Exception {
        try (Admin a = Admin.create(Map.of("bootstrap.servers", server.bootstrap()))) {
            a.incrementalAlterConfigs(
                            Map.of(
                                    new ConfigResource(ConfigResource.Type.TOPIC, topic),
                                    List.of(
                                            new AlterConfigOp(
                                                    new ConfigEntry(key, value),
                                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get();
        }
    }

    private void deleteTopic(String topic) throws Exception {
        try (Admin a = Admin.create(Map.of("bootstrap.servers", server.bootstrap()))) {
            a.deleteTopics(List.of(topic)).all().get();
        }
    }

    private Map<String, ColdObject> catalogObjects(String topic) {
        try (Catalog c =
                Catalog.open(
                        "jdbc:sqlite:" + data.resolve("catalog.db"),
                        Map.of(),
                        Catalog.OpenMode.READ_ONLY)) {
            return TableCheck.catalogObjects(c, topic);
        }
    }

    /** Polls until the table holds exactly the catalog's objects and {@code also} holds. */
    private TableCheck awaitExact(String topic, java.util.function.Predicate<TableCheck> also) {
        TableCheck c =
                Await.atMost(
                        Duration.ofSeconds(60),
                        () -> {
                            try {
                                return TableCheck.of(
                                        topic,
                                        reader.read(NS, topic),
                                        catalogObjects(topic),
                                        reader);
                            } catch (RuntimeException e) {
                                return null;
                            }
                        },
                        x -> x != null && x.exact() && also.test(x));
        assertThat(c).as("the table of %s (log %s)", topic, server.log()).isNotNull();
        assertThat(c.safety()).as("safety of %s", topic).isEmpty();
        assertThat(c.exact()).as("%s", c.describe()).isTrue();
        return c;
    }

    private static Set<String> keysOf(TableView t) {
        Set<String> keys = new HashSet<>();
        t.files().forEach(f -> keys.add(f.key()));
        return keys;
    }

    private static List<Snapshot> oldSnapshots(TableView t) {
        long cutoff = System.currentTimeMillis() - SNAPSHOT_RETENTION_MS - 5000;
        Long current = t.snapshotId().orElse(null);
        return t.snapshots().stream()
                .filter(s -> !Long.valueOf(s.snapshotId()).equals(current))
                .filter(s -> s.timestampMillis() < cutoff)
                .toList();
    }

    private static String metadataDir(TableView t) {
        String m = t.metadataLocation();
        return m.substring(0, m.lastIndexOf('/'));
    }

    private static long countFiles(Path dir) throws java.io.IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).count();
        }
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.catalog.Catalog;
import io.tierlog.catalog.ColdObject;
import io.tierlog.hot.TopicNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data dir written by the release at 50e958a (its server kept topics in {@code
 * meta/topics/*.properties}) opens unchanged: its topics are imported into the catalog with their
 * Kafka ids, partitions and configs, also over the rows that release's engine registered with
 * random ids and no configs (cold objects kept); a deletion in progress is finished; unreadable
 * files are skipped; the import is idempotent, and the files are moved aside once it committed.
 */
class LegacyTopicImportTest {
    @TempDir Path dir;

    private final Uuid ordersId = Uuid.randomUuid();
    private final Uuid longId = Uuid.randomUuid();
    private final String longName = "l".repeat(248) + "z";

    /** Writes what 50e958a (and the later format with topic.name and hashed stems) left behind. */
    private Path writeOldDataDir() throws Exception {
        Path data = dir.resolve("data");
        Path topics = Files.createDirectories(data.resolve("meta/topics"));
        // 50e958a: named by the topic, no topic.name
        Files.writeString(
                topics.resolve("orders.properties"),
                "#tierlog topic orders\ntopic.id="
                        + ordersId
                        + "\npartitions=3\nconfig.segment.bytes=1048576\n");
        Files.writeString(
                topics.resolve(TopicNames.fileStem(longName, 16) + ".properties"),
                "topic.name=" + longName + "\ntopic.id=" + longId + "\npartitions=1\n");
        Files.writeString(
                topics.resolve("old.deleting"),
                "topic.id=" + Uuid.randomUuid() + "\npartitions=1\n");
        Files.writeString(
                topics.resolve("half.creating"),
                "topic.name=half\ntopic.id=" + Uuid.randomUuid() + "\npartitions=1\n");
        Files.writeString(topics.resolve("broken.properties"), "topic.id=not-a-uuid\n");
        for (String p : new String[] {"orders-0", "orders-1", "orders-2", "old-0", "broken-0"}) {
            Files.createDirectories(data.resolve("log").resolve(p));
        }
        // what that release's engine did for every partition it offloaded: a catalog row with
        // a random id and no configs, and the cold objects under it
        try (Catalog c = Catalog.open("jdbc:sqlite:" + data.resolve("catalog.db"))) {
            c.ensureTopic("orders", 3);
            c.commit(
                    new ColdObject(
                            "orders", 1, 0, 9, 1000, 2000, 10, 100, "k/orders/1/a", Instant.now()));
        }
        return data;
    }

    @Test
    void anOldDataDirOpensWithItsTopicsIdsPartitionsAndConfigs() throws Exception {
        Path data = writeOldDataDir();
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            TopicRegistry r = log.topicRegistry();
            TopicInfo orders = r.topic("orders").orElseThrow();
            assertThat(orders.id()).isEqualTo(ordersId);
            assertThat(orders.partitions()).isEqualTo(3);
            assertThat(orders.configs()).isEqualTo(Map.of("segment.bytes", "1048576"));
            assertThat(r.topic(ordersId)).contains(orders);
            assertThat(log.catalog().topic("orders").orElseThrow().id())
                    .isEqualTo(TopicInfo.uuid(ordersId));
            assertThat(log.catalog().objects("orders", 1)).hasSize(1);
            assertThat(log.offsets(new TopicPartition("orders", 1)).coldHighWatermark())
                    .isEqualTo(10);
            assertThat(r.topic(longName).orElseThrow().id()).isEqualTo(longId);
            // deleted as the old release was doing; the unreadable file's data adopted
            assertThat(r.topic("old")).isEmpty();
            assertThat(data.resolve("log/old-0")).doesNotExist();
            assertThat(r.topic("half")).isEmpty();
            assertThat(r.topic("broken").orElseThrow().partitions()).isEqualTo(1);
        }
        assertThat(data.resolve("meta/topics")).doesNotExist();
        try (Stream<Path> s = Files.list(data.resolve("meta/topics.migrated"))) {
            assertThat(s.map(p -> p.getFileName().toString())).contains("orders.properties");
        }
        // a second open finds nothing to import and keeps everything
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            assertThat(log.topicRegistry().topic("orders").orElseThrow().id()).isEqualTo(ordersId);
            assertThat(log.topics()).containsExactly("broken", longName, "orders");
        }
    }

    @Test
    void anImportInterruptedBeforeTheFilesMovedIsRepeatedWithoutChange() throws Exception {
        Path data = writeOldDataDir();
        Path saved = dir.resolve("saved");
        Files.createDirectories(saved);
        try (Stream<Path> s = Files.list(data.resolve("meta/topics"))) {
            for (Path f : s.toList()) {
                Files.copy(f, saved.resolve(f.getFileName()));
            }
        }
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            assertThat(log.topicRegistry().topic("orders")).isPresent();
        }
        // the state of a crash after the import committed, before the files were moved aside
        Files.createDirectories(data.resolve("meta/topics"));
        try (Stream<Path> s = Files.list(saved)) {
            for (Path f : s.toList()) {
                if (!f.getFileName().toString().endsWith(".deleting")) {
                    Files.copy(f, data.resolve("meta/topics").resolve(f.getFileName()));
                }
            }
        }
        try (TieredLog log = TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()))) {
            TopicInfo orders = log.topicRegistry().topic("orders").orElseThrow();
            assertThat(orders.id()).isEqualTo(ordersId);
            assertThat(orders.configs()).isEqualTo(Map.of("segment.bytes", "1048576"));
            assertThat(log.catalog().objects("orders", 1)).hasSize(1);
        }
        assertThat(data.resolve("meta/topics.migrated.1")).isDirectory();
    }
}

package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.hot.TopicNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topic hints, the data dir's copy of the registry that outlives a lost catalog (real SQLite,
 * hot tier only): they follow every change and every open; a damaged one is skipped and written
 * again from the catalog, never fatal; partition folders that a catalog restored from an old backup
 * does not know are adopted under their hint's id and configs.
 */
class TopicHintsTest {
    @TempDir Path dir;

    private TieredLog open() throws Exception {
        return TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()));
    }

    private Path data() {
        return dir.resolve("data");
    }

    private Map<String, TopicHints.Hint> hints() throws Exception {
        return new TopicHints(data()).read();
    }

    @Test
    void hintsFollowCreationPartitionsConfigsAndDeletionAlsoForTheLongestNames() throws Exception {
        String longName = "l".repeat(248) + "z";
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            TopicInfo a = r.create("a", 1, Map.of("segment.bytes", "1048576"), false);
            r.create(longName, 1, Map.of(), false);
            assertThat(hints().get("a")).isEqualTo(TopicHints.Hint.of(a));
            TopicInfo grown = r.addPartitions("a", 4);
            assertThat(hints().get("a")).isEqualTo(TopicHints.Hint.of(grown));
            TopicInfo altered = r.alterConfigs("a", Map.of("retention.ms", "60000"));
            assertThat(hints().get("a")).isEqualTo(TopicHints.Hint.of(altered));
            assertThat(hints().get(longName).partitions()).isEqualTo(1);
            r.delete(longName);
            assertThat(hints()).containsOnlyKeys("a");
        }
    }

    @Test
    void aDamagedOrTornHintIsSkippedAtOpenAndWrittenAgainFromTheCatalog() throws Exception {
        TopicInfo t;
        try (TieredLog log = open()) {
            t = log.topicRegistry().create("t", 2, Map.of("retention.ms", "60000"), false);
        }
        Path hintDir = data().resolve("meta").resolve(TopicHints.DIR);
        Files.writeString(hintDir.resolve("t.properties"), "topic.id=not-an-id\npartitions=x\n");
        Files.writeString(hintDir.resolve("junk.properties"), "\u0000\u0001garbage");
        // a write torn by a crash before its rename: never read
        Files.writeString(hintDir.resolve("t.properties.tmp"), "topic.name=t\ntopic.id=");
        assertThat(hints()).doesNotContainKey("t");
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().topic("t")).contains(t);
        }
        assertThat(hints().get("t")).isEqualTo(TopicHints.Hint.of(t));
    }

    @Test
    void foldersACatalogRestoredFromAnOldBackupForgotKeepTheirHintsIdAndConfigs() throws Exception {
        Path db = data().resolve("catalog.db");
        Path backup = dir.resolve("catalog.backup");
        try (TieredLog log = open()) {
            log.topicRegistry().create("old", 1, Map.of(), false);
        }
        Files.copy(db, backup);
        TopicInfo late;
        try (TieredLog log = open()) {
            late = log.topicRegistry().create("late", 3, Map.of("segment.bytes", "1048576"), false);
        }
        for (String suffix : new String[] {"-wal", "-shm"}) {
            Files.deleteIfExists(Path.of(db + suffix));
        }
        Files.copy(backup, db, StandardCopyOption.REPLACE_EXISTING);
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().topic("late")).contains(late);
        }
    }

    @Test
    void theRebuildReadsTheHintsAloneOnceTheyExistElseTheMigratedFilesLaterOnesWinning()
            throws Exception {
        Path meta = Files.createDirectories(data().resolve("meta"));
        Path migrated = Files.createDirectories(meta.resolve("topics.migrated"));
        Path migrated1 = Files.createDirectories(meta.resolve("topics.migrated.1"));
        String id1 = org.apache.kafka.common.Uuid.randomUuid().toString();
        String id2 = org.apache.kafka.common.Uuid.randomUuid().toString();
        // 50e958a's layout: the stem is the name
        Files.writeString(
                migrated.resolve("x.properties"),
                "topic.id=" + id1 + "\npartitions=2\nconfig.retention.ms=1\n");
        Files.writeString(
                migrated1.resolve("x.properties"),
                "topic.id=" + id2 + "\npartitions=3\nconfig.retention.ms=2\n");
        Files.writeString(migrated1.resolve("bad.properties"), "partitions=1\n");
        Files.writeString(migrated1.resolve("y.deleting"), "topic.id=" + id1 + "\npartitions=1\n");
        TopicHints.Found f = TopicHints.forRebuild(data());
        assertThat(f.hints()).containsOnlyKeys("x");
        assertThat(f.hints().get("x").partitions()).isEqualTo(3);
        assertThat(TopicInfo.kafkaId(f.hints().get("x").id()).toString()).isEqualTo(id2);
        assertThat(f.notes()).anyMatch(n -> n.startsWith("skipped damaged topic hint"));

        Files.createDirectories(meta.resolve(TopicHints.DIR));
        assertThat(TopicHints.forRebuild(data()).hints())
                .as("an empty hint folder: every topic was deleted since the upgrade")
                .isEmpty();
        assertThat(TopicNames.fileStem("x", 16)).isEqualTo("x");
    }
}

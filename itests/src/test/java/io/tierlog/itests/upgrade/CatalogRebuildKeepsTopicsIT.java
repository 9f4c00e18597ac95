package io.tierlog.itests.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.engine.TopicInfo;
import io.tierlog.engine.TopicRegistry;
import io.tierlog.itests.testing.InProcessCli;
import io.tierlog.itests.testing.InProcessCli.Cli;
import io.tierlog.server.TierlogServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog is the one topic registry, so a lost catalog must not lose the topics' Kafka ids,
 * partition counts and configs: {@code tierlog catalog rebuild} gives them back from the data dir's
 * topic hints (topics created, grown and altered through {@code serve}; a deleted one stays
 * deleted), and for a dir upgraded from 50e958a by a release that kept no hints, from the old
 * registry files the migration moved to {@code meta/topics.migrated}. Real server with the embedded
 * default (embedded S3, SQLite catalog in the data dir), the CLI run in this JVM.
 */
class CatalogRebuildKeepsTopicsIT {
    @TempDir Path tmp;

    private static Config config(Path dataDir) {
        return Config.of(
                Map.of(
                        "data.dir", dataDir.toString(),
                        "listeners", "PLAINTEXT://127.0.0.1:0",
                        "schema.registry.listen", "",
                        "num.network.threads", "2",
                        // the fixture's timestamps are from 2023
                        "retention.ms", "-1"));
    }

    @Test
    void topicsCreatedAlteredAndDeletedThroughServeComeBackWithTheirIdsAfterARebuild()
            throws Exception {
        Path dataDir = tmp.resolve("data");
        List<TopicInfo> before;
        try (TierlogServer server = TierlogServer.start(config(dataDir))) {
            TopicRegistry r = server.engine().topicRegistry();
            r.create("orders", 2, Map.of("segment.bytes", "1048576"), false);
            r.addPartitions("orders", 3);
            r.alterConfigs("orders", Map.of("segment.bytes", "1048576", "retention.ms", "600000"));
            r.create("plain", 1, Map.of(), false);
            r.create("gone", 1, Map.of("retention.ms", "1000"), false);
            r.delete("gone");
            before = r.topics();
        }
        assertThat(before).extracting(TopicInfo::name).containsExactly("orders", "plain");

        deleteCatalog(dataDir);
        Cli rebuild = cli("catalog", "rebuild", "--set", "data.dir=" + dataDir);
        assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
        assertThat(rebuild.out())
                .contains("topic ids and configs of 2 topics from " + dataDir.resolve("meta"))
                .contains("rebuilt: 2 topics");

        try (TierlogServer server = TierlogServer.start(config(dataDir))) {
            assertThat(server.engine().topicRegistry().topics())
                    .as("topics after the rebuild (name, id, partitions, configs)")
                    .isEqualTo(before);
        }
    }

    @Test
    void aDirUpgradedFrom50e958aWithoutHintsGetsItsIdsAndConfigsFromTheMigratedFiles()
            throws Exception {
        Path dataDir = UpgradeFrom50e958aIT.unpack(tmp);
        List<TopicInfo> before;
        try (TierlogServer server = TierlogServer.start(config(dataDir))) {
            before = server.engine().topicRegistry().topics();
        }
        assertThat(dataDir.resolve("meta/topics.migrated")).isDirectory();
        assertThat(before).extracting(TopicInfo::name).containsExactly("audit", "events", "orders");
        // as a release that migrated the dir but kept no hints would have left it
        deleteTree(dataDir.resolve("meta/topic-hints"));

        deleteCatalog(dataDir);
        Cli rebuild = cli("catalog", "rebuild", "--set", "data.dir=" + dataDir);
        assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
        assertThat(rebuild.out())
                .contains("of 3 topics from " + dataDir.resolve("meta/topics.migrated"));

        try (TierlogServer server = TierlogServer.start(config(dataDir))) {
            List<TopicInfo> after = server.engine().topicRegistry().topics();
            assertThat(after).as("topics after the rebuild").isEqualTo(before);
            assertThat(after.get(2).id().toString())
                    .as("Kafka id of orders as 50e958a handed it out")
                    .isEqualTo("mY4Xx507T72d025EmcjKxA");
            assertThat(after.get(1).configs()).containsEntry("segment.bytes", "8192");
        }
    }

    private static void deleteCatalog(Path dataDir) throws Exception {
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            Files.deleteIfExists(dataDir.resolve("catalog.db" + suffix));
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    static Cli cli(String... args) {
        return InProcessCli.run(args);
    }
}

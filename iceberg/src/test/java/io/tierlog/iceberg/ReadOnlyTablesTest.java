package io.tierlog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** inspect and verify open the tables read-only: not one file of the data dir may change. */
class ReadOnlyTablesTest {
    @TempDir Path dir;

    private static Map<String, String> files(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (Files.isRegularFile(p)
                        && !p.startsWith(root.resolve("s3"))
                        && !p.getFileName().toString().startsWith("catalog.db")) {
                    out.put(
                            root.relativize(p).toString(),
                            Files.size(p) + "@" + Files.getLastModifiedTime(p).toMillis());
                }
            }
        }
        return out;
    }

    @Test
    void aReadOnlyOpenOfAWrittenCatalogCreatesAndChangesNoFile() throws Exception {
        try (TablesFixture fx = new TablesFixture(dir, "jdbc")) {
            fx.catalog.createTopic("events", 1, Map.of());
            fx.append("events", 0, 5);
            try (IcebergTopicTables t = fx.open()) {
                t.sync("events");
            }
            Map<String, String> before = files(fx.dataDir());
            assertThat(before).containsKey("iceberg.db");
            try (TopicTables ro = TopicTables.openReadOnly(fx.setup())) {
                TableState state = ro.state("events").orElseThrow();
                assertThat(state.files()).isEqualTo(1);
                assertThat(ro.audit("events").clean()).isTrue();
                assertThat(ro.pinned(fx.catalog.objects("events", 0).get(0).key())).isFalse();
            }
            assertThat(files(fx.dataDir())).isEqualTo(before);
        }
    }

    @Test
    void aReadOnlyOpenWithoutIcebergDbCreatesNoneAndReportsEveryTableUnavailable()
            throws Exception {
        try (TablesFixture fx = new TablesFixture(dir, "jdbc")) {
            fx.catalog.createTopic("events", 1, Map.of());
            fx.append("events", 0, 5);
            Map<String, String> before = files(fx.dataDir());
            try (TopicTables ro = TopicTables.openReadOnly(fx.setup())) {
                TableAudit a = ro.audit("events");
                assertThat(a.checked()).isFalse();
                assertThat(a.unavailable()).contains("no iceberg catalog");
                assertThat(ro.state("events")).isEmpty();
            }
            assertThat(files(fx.dataDir())).isEqualTo(before);
            assertThat(fx.dataDir().resolve("iceberg.db")).doesNotExist();
        }
    }
}

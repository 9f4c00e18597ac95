package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's identity and durability checks: an id stored with the catalog, a data dir bound to
 * it, SQLite files deleted or replaced under an open connection detected, read-only opening that
 * never writes a byte.
 */
class CatalogIdentityTest {
    @TempDir Path dir;

    private Path db() {
        return dir.resolve("catalog.db");
    }

    private String url() {
        return "jdbc:sqlite:" + db();
    }

    private static ColdObject object(long first, long last) {
        return new ColdObject(
                "t", 0, first, last, 1, 2, last - first + 1, 100, "t/0/" + first, Instant.EPOCH);
    }

    @Test
    void idIsCreatedWithTheCatalogAndStableAcrossOpens() {
        UUID id;
        try (Catalog c = Catalog.open(url())) {
            id = c.id();
            assertThat(c.durableId()).isEqualTo(id);
        }
        try (Catalog c = Catalog.open(url(), Map.of(), Catalog.OpenMode.EXISTING)) {
            assertThat(c.id()).isEqualTo(id);
        }
        try (Catalog c = Catalog.open(url(), Map.of(), Catalog.OpenMode.READ_ONLY)) {
            assertThat(c.id()).isEqualTo(id);
        }
    }

    @Test
    void existingModeNeverCreatesAMissingFile() {
        assertThatThrownBy(() -> Catalog.open(url(), Map.of(), Catalog.OpenMode.EXISTING))
                .isInstanceOf(CatalogUnavailableException.class)
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> Catalog.open(url(), Map.of(), Catalog.OpenMode.READ_ONLY))
                .isInstanceOf(CatalogUnavailableException.class);
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void existingModeRefusesAnEmptyDatabase() throws Exception {
        Files.createFile(db());
        assertThatThrownBy(() -> Catalog.open(url(), Map.of(), Catalog.OpenMode.EXISTING))
                .isInstanceOf(CatalogUnavailableException.class)
                .hasMessageContaining("empty");
        assertThat(Files.size(db())).isZero();
    }

    @Test
    void deletedFileIsDetectedAndARestoredCopyWithTheSameIdIsAcceptedAgain() throws Exception {
        UUID id;
        try (Catalog c = Catalog.open(url())) {
            c.createTopic("t", 1, Map.of());
            c.commit(object(0, 9));
            id = c.id();
        }
        Path backup = dir.resolve("backup.db");
        Files.copy(db(), backup);
        try (Catalog c = Catalog.open(url())) {
            c.commit(object(10, 19));
            assertThat(c.durableId()).isEqualTo(id);
            deleteCatalogFiles();
            assertThatThrownBy(c::durableId)
                    .isInstanceOf(CatalogUnavailableException.class)
                    .hasMessageContaining("no longer exists")
                    .hasMessageContaining(db().toString());
            assertThat(db()).doesNotExist(); // checking never recreates it

            Files.copy(backup, db()); // a restore from backup: another inode, same id
            assertThat(c.durableId()).isEqualTo(id);
            assertThat(c.partitionState("t", 0).coldHighWatermark()).isEqualTo(10L);
        }
    }

    @Test
    void deletedWriteAheadLogIsRepairedByReconnectingWithoutLosingCommits() throws Exception {
        try (Catalog c = Catalog.open(url())) {
            c.createTopic("t", 1, Map.of());
            c.commit(object(0, 9));
            assertThat(c.durableId()).isNotNull(); // records the -wal now present
            Path wal = Path.of(db() + "-wal");
            assertThat(wal).exists();
            Files.delete(wal);
            UUID id = c.durableId(); // reconnects: closing checkpoints the unlinked log
            assertThat(id).isEqualTo(c.id());
            c.commit(object(10, 19));
        }
        try (Catalog c = Catalog.open(url(), Map.of(), Catalog.OpenMode.EXISTING)) {
            assertThat(c.objects("t", 0)).hasSize(2);
        }
    }

    @Test
    void replacedFileIsReopenedAndJudgedByItsId() throws Exception {
        UUID first;
        try (Catalog c = Catalog.open(url())) {
            first = c.id();
            Path other = dir.resolve("sub").resolve("catalog.db");
            UUID second;
            try (Catalog o = Catalog.open("jdbc:sqlite:" + other)) {
                second = o.id();
            }
            deleteCatalogFiles();
            Files.move(other, db(), StandardCopyOption.REPLACE_EXISTING);
            assertThat(c.durableId()).isEqualTo(second).isNotEqualTo(first);
        }
    }

    @Test
    void readOnlyOpeningChangesNoFile() throws Exception {
        try (Catalog c = Catalog.open(url())) {
            c.createTopic("t", 1, Map.of());
            c.commit(object(0, 9));
        }
        Map<String, String> before = snapshot();
        try (Catalog c = Catalog.open(url(), Map.of(), Catalog.OpenMode.READ_ONLY)) {
            assertThat(c.objects("t", 0)).hasSize(1);
            assertThatThrownBy(() -> c.createTopic("u", 1, Map.of()))
                    .isInstanceOf(CatalogException.class);
        }
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void readOnlyOpeningWorksWhileAWriterHoldsTheCatalog() throws Exception {
        try (Catalog w = Catalog.open(url())) {
            w.createTopic("t", 1, Map.of());
            w.commit(object(0, 9));
            try (Catalog r = Catalog.open(url(), Map.of(), Catalog.OpenMode.READ_ONLY)) {
                assertThat(r.objects("t", 0)).hasSize(1);
                w.commit(object(10, 19));
                assertThat(r.objects("t", 0)).hasSize(2);
            }
        }
    }

    @Test
    void catalogOfThePreviousReleaseGetsAnIdWhenUpgraded() throws Exception {
        try (Connection c = DriverManager.getConnection(url())) {
            SchemaMigrations.migrate(c, Dialect.SQLITE, 3);
        }
        try (Catalog c = Catalog.open(url(), Map.of(), Catalog.OpenMode.READ_ONLY)) {
            assertThatThrownBy(c::id).isInstanceOf(CatalogUnavailableException.class);
        }
        UUID id;
        try (Catalog c = Catalog.open(url(), Map.of(), Catalog.OpenMode.EXISTING)) {
            id = c.id();
        }
        try (Catalog c = Catalog.open(url())) {
            assertThat(c.id()).isEqualTo(id);
        }
    }

    @Test
    void dataDirAdoptsTheCatalogIdOnFirstUseAndThenRefusesAnyOther() throws Exception {
        Path dataDir = dir.resolve("data");
        UUID id;
        try (Catalog c = CatalogBinding.openBound(dataDir, url(), Map.of())) {
            id = c.id();
        }
        assertThat(CatalogBinding.read(dataDir)).hasValue(id);
        try (Catalog c = CatalogBinding.openBound(dataDir, url(), Map.of())) {
            assertThat(c.id()).isEqualTo(id);
        }
        deleteCatalogFiles();
        assertThatThrownBy(() -> CatalogBinding.openBound(dataDir, url(), Map.of()))
                .isInstanceOf(CatalogUnavailableException.class)
                .hasMessageContaining("does not exist")
                .hasMessageContaining("tierlog catalog rebuild")
                .hasMessageNotContaining("\n");
        assertThat(db()).doesNotExist();

        try (Catalog other = Catalog.open(url())) {
            assertThat(other.id()).isNotEqualTo(id);
        }
        assertThatThrownBy(() -> CatalogBinding.openBound(dataDir, url(), Map.of()))
                .isInstanceOf(CatalogUnavailableException.class)
                .hasMessageContaining("has id")
                .hasMessageContaining(id.toString())
                .hasMessageContaining("tierlog catalog rebuild");
    }

    @Test
    void guardRefusesWhileTheCatalogIsGoneAndAllowsOnceItIsBack() throws Exception {
        Path backup = dir.resolve("backup.db");
        UUID id;
        try (Catalog c = Catalog.open(url())) {
            id = c.id();
        }
        Files.copy(db(), backup);
        AtomicLong clock = new AtomicLong();
        try (Catalog c = Catalog.open(url())) {
            CatalogGuard guard = new CatalogGuard(c, id, clock::get);
            assertThat(guard.allows("deleting segments of t-0")).isTrue();
            deleteCatalogFiles();
            assertThat(guard.allows("deleting segments of t-0")).isFalse();
            assertThat(guard.allows("commit of t/0/x")).isFalse();
            assertThat(guard.healthy()).isFalse();
            assertThat(guard.refusals()).isEqualTo(2);
            Files.copy(backup, db());
            assertThat(guard.allows("deleting segments of t-0")).isTrue();
            assertThat(guard.healthy()).isTrue();

            CatalogGuard wrong = new CatalogGuard(c, UUID.randomUUID(), clock::get);
            assertThat(wrong.allows("deleting segments of t-0")).isFalse();
        }
    }

    private void deleteCatalogFiles() throws IOException {
        for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
            Files.deleteIfExists(Path.of(db() + suffix));
        }
    }

    private Map<String, String> snapshot() throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                m.put(p.toString(), a.size() + "@" + a.lastModifiedTime().toMillis());
            }
        }
        return m;
    }
}

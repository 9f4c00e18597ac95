package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog contract on the embedded default: a SQLite file in WAL mode. */
class SqliteCatalogTest extends CatalogContract {
    @TempDir Path dir;

    @Override
    String url() {
        return "jdbc:sqlite:" + dir.resolve("data/catalog.db");
    }

    @Override
    List<String> commitTrapTrigger() {
        return List.of(
                "CREATE TRIGGER trap_insert AFTER INSERT ON cold_objects"
                        + " BEGIN INSERT INTO trap VALUES (42); END");
    }

    @Override
    public List<String> fieldIdTrapStatements() {
        return List.of(
                "CREATE TRIGGER field_id_trap BEFORE INSERT ON registry_field_ids"
                        + " WHEN NEW.path = 'boom' BEGIN SELECT RAISE(ABORT, 'injected'); END");
    }

    @Test
    void theFileIsCreatedWithItsDirectoryAndUsesWriteAheadLogging() throws Exception {
        assertThat(dir.resolve("data/catalog.db")).exists();
        try (Connection c = rawConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
        }
    }

    @Test
    void anUnsupportedUrlGetsAClearError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> Catalog.open("jdbc:mysql://localhost/x"))
                .isInstanceOf(CatalogException.class)
                .hasMessageContaining("jdbc:sqlite:");
    }

    @Test
    void aFileThatIsNotADatabaseGetsAClearErrorAndIsLeftAlone() throws Exception {
        Path bogus = dir.resolve("bogus.db");
        Files.writeString(bogus, "this is not a database, it is a very important text file\n");
        byte[] before = Files.readAllBytes(bogus);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> Catalog.open("jdbc:sqlite:" + bogus))
                .isInstanceOf(CatalogException.class);
        assertThat(Files.readAllBytes(bogus)).isEqualTo(before);
    }

    @Test
    void topicsCreatedBeforeAConnectionIsReusedAreVisibleToAnotherProcessesConnection() {
        catalog.createTopic(T, 1, Map.of());
        try (Catalog other = openCatalog()) {
            other.commit(obj(0, 4));
        }
        assertThat(catalog.partitionState(T, 0).coldHighWatermark()).isEqualTo(5);
    }
}

package io.tierlog.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A newer tierlog opens an older catalog; an older tierlog refuses a newer one. */
class SchemaMigrationTest {
    @TempDir Path dir;

    private String url() {
        return "jdbc:sqlite:" + dir.resolve("catalog.db");
    }

    /** The version-1 schema exactly as the first release wrote it, with data. */
    private void createVersionOneCatalogByHand() throws Exception {
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
                            + " description VARCHAR(255) NOT NULL, applied_at BIGINT NOT NULL)");
            s.execute(
                    "CREATE TABLE topics (id VARCHAR(36) PRIMARY KEY, name VARCHAR(255) NOT NULL"
                            + " UNIQUE, partition_count INTEGER NOT NULL, created_at BIGINT NOT"
                            + " NULL)");
            s.execute(
                    "CREATE TABLE partitions (topic_id VARCHAR(36) NOT NULL REFERENCES"
                            + " topics(id) ON DELETE CASCADE, partition_id INTEGER NOT NULL,"
                            + " cold_hw BIGINT, PRIMARY KEY (topic_id, partition_id))");
            s.execute(
                    "CREATE TABLE cold_objects (topic_id VARCHAR(36) NOT NULL, partition_id"
                            + " INTEGER NOT NULL, first_offset BIGINT NOT NULL, last_offset BIGINT"
                            + " NOT NULL, min_ts BIGINT NOT NULL, max_ts BIGINT NOT NULL,"
                            + " record_count BIGINT NOT NULL, size_bytes BIGINT NOT NULL,"
                            + " object_key VARCHAR(1024) NOT NULL UNIQUE, created_at BIGINT NOT"
                            + " NULL, PRIMARY KEY (topic_id, partition_id, first_offset), FOREIGN"
                            + " KEY (topic_id, partition_id) REFERENCES partitions(topic_id,"
                            + " partition_id) ON DELETE CASCADE)");
            s.execute("INSERT INTO schema_version VALUES (1, 'v1', 0)");
            String id = "2b1f5e3c-1f1e-4d5a-9a77-0d3c0b6a8a01";
            s.execute("INSERT INTO topics VALUES ('" + id + "', 'old', 2, 1000)");
            s.execute("INSERT INTO partitions VALUES ('" + id + "', 0, 300)");
            s.execute("INSERT INTO partitions VALUES ('" + id + "', 1, NULL)");
            s.execute(
                    "INSERT INTO cold_objects VALUES ('"
                            + id
                            + "', 0, 100, 199, 1, 2, 100, 4096, 'old/0/a', 5)");
            s.execute(
                    "INSERT INTO cold_objects VALUES ('"
                            + id
                            + "', 0, 200, 299, 3, 4, 100, 4096, 'old/0/b', 6)");
        }
    }

    @Test
    void aVersionOneCatalogIsMigratedToTheLatestVersionKeepingItsData() throws Exception {
        createVersionOneCatalogByHand();
        try (Catalog catalog = Catalog.open(url())) {
            PartitionState s = catalog.partitionState("old", 0);
            assertThat(s.coldHighWatermark()).isEqualTo(300);
            // Backfilled by migration 2 from the first object.
            assertThat(s.coldLogStartOffset()).isEqualTo(100);
            assertThat(s.objectCount()).isEqualTo(2);
            assertThat(catalog.partitionState("old", 1).empty()).isTrue();
            // Migration 5: no log start recorded until a DeleteRecords moves it.
            assertThat(s.logStartOffset()).isZero();
            assertThat(catalog.advanceLogStart("old", 0, 250, 250).removed())
                    .extracting(ColdObject::key)
                    .containsExactly("old/0/a");
            assertThat(catalog.partitionState("old", 0).logStartOffset()).isEqualTo(250);
            assertThat(catalog.objectFor("old", 0, 250).orElseThrow().key()).isEqualTo("old/0/b");
            assertThat(catalog.commit(CatalogContract.obj("old", 0, 300, 309, "old/0/c")))
                    .isEqualTo(CommitResult.COMMITTED);
            assertThat(catalog.updateTopicConfigs("old", Map.of("k", "v")).configs())
                    .containsEntry("k", "v");
        }
        try (Connection c = DriverManager.getConnection(url())) {
            assertThat(SchemaMigrations.currentVersion(c))
                    .isEqualTo(SchemaMigrations.latestVersion());
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM schema_version")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(SchemaMigrations.latestVersion());
            }
        }
    }

    @Test
    void aVersionFiveCatalogGainsRetiredObjectsAndTheColdCleanedOffsetKeepingItsData()
            throws Exception {
        try (Connection c = DriverManager.getConnection(url())) {
            SchemaMigrations.migrate(c, Dialect.SQLITE, 5);
            assertThat(SchemaMigrations.currentVersion(c)).isEqualTo(5);
        }
        try (Catalog v5 = JdbcCatalog.open(url(), Map.of(), Catalog.OpenMode.READ_ONLY)) {
            assertThat(v5.topics()).isEmpty(); // opened without migrating
        }
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            assertThat(SchemaMigrations.currentVersion(c)).isEqualTo(5);
            String id = "2b1f5e3c-1f1e-4d5a-9a77-0d3c0b6a8a05";
            s.execute("INSERT INTO topics VALUES ('" + id + "', 'old', 1, 1000)");
            s.execute(
                    "INSERT INTO partitions (topic_id, partition_id, cold_hw, cold_log_start,"
                            + " log_start) VALUES ('"
                            + id
                            + "', 0, 300, 100, 150)");
            s.execute(
                    "INSERT INTO cold_objects VALUES ('"
                            + id
                            + "', 0, 100, 199, 1, 2, 100, 4096, 'old/0/a', 5)");
            s.execute(
                    "INSERT INTO cold_objects VALUES ('"
                            + id
                            + "', 0, 200, 299, 3, 4, 100, 4096, 'old/0/b', 6)");
        }
        try (Catalog catalog = Catalog.open(url())) {
            PartitionState s = catalog.partitionState("old", 0);
            assertThat(s.coldHighWatermark()).isEqualTo(300);
            assertThat(s.logStartOffset()).isEqualTo(150);
            assertThat(s.coldCleanedOffset()).isZero();
            assertThat(s.lastColdCleaningMs()).isEqualTo(-1);
            assertThat(catalog.retiredObjects(Long.MAX_VALUE)).isEmpty();
            ColdObject c = CatalogContract.obj("old", 0, 100, 299, "old/0/c");
            assertThat(catalog.replaceObjects("old", 0, List.of("old/0/a", "old/0/b"), c, 300, 9))
                    .isEqualTo(CommitResult.COMMITTED);
            assertThat(catalog.objects("old", 0)).containsExactly(c);
            assertThat(catalog.partitionState("old", 0).coldCleanedOffset()).isEqualTo(300);
            assertThat(catalog.retiredObjects(9)).hasSize(2);
        }
    }

    @Test
    void openingTwiceDoesNotMigrateAgain() {
        Catalog.open(url()).close();
        try (Catalog catalog = Catalog.open(url())) {
            assertThat(catalog.topics()).isEmpty();
        }
    }

    @Test
    void aCatalogWrittenByANewerTierlogIsRefusedUntouched() throws Exception {
        Catalog.open(url()).close();
        try (Connection c = DriverManager.getConnection(url());
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO schema_version VALUES (999, 'from the future', 0)");
        }
        assertThatThrownBy(() -> Catalog.open(url()))
                .isInstanceOf(CatalogException.class)
                .hasMessageContaining("newer than this tierlog supports");
    }
}

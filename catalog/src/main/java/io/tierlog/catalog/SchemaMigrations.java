package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog's schema, as an ordered list of migrations, and the code that brings a database up to
 * the latest one. A shipped migration is never edited: a change is a new migration appended to
 * {@link #ALL}, so a newer tierlog opens an older catalog. A catalog newer than this code is
 * refused rather than misread. Each migration runs in its own transaction together with its {@code
 * schema_version} row, so a crash mid-migration leaves the previous version intact. Stateless, so
 * thread-safe; concurrent migrators of one database serialise on a lock (see {@link Dialect}).
 *
 * <p>Tables (latest version):
 *
 * <ul>
 *   <li>{@code schema_version(version, description, applied_at)}: one row per applied migration.
 *   <li>{@code topics(id, name, partition_count, created_at)}: id is a UUID string; name unique.
 *   <li>{@code topic_configs(topic_id, config_key, config_value)} (since v2).
 *   <li>{@code partitions(topic_id, partition_id, cold_hw, cold_log_start, log_start)}: {@code
 *       cold_hw} is the next offset not in cold, NULL until the first commit; {@code
 *       cold_log_start} (since v2) the first offset still in cold; {@code log_start} (since v5) the
 *       partition's log start offset as moved by DeleteRecords, NULL until then; {@code
 *       cold_cleaned} and {@code last_cold_cleaning} (since v6) the offset below which the cold
 *       tier is compacted and when it last was (epoch millis), NULL until the first {@link
 *       Catalog#replaceObjects}.
 *   <li>{@code cold_objects(topic_id, partition_id, first_offset, last_offset, min_ts, max_ts,
 *       record_count, size_bytes, object_key, created_at)}: key unique; timestamps epoch millis.
 *   <li>{@code retired_objects(object_key, topic_name, partition_id, retired_at)} (since v6):
 *       objects a replace-commit took out of a partition, until the sweeper deleted them; keyed by
 *       the topic's name, not its id, so that they outlive a deleted topic until their grace period
 *       ends. A key is never both here and in {@code cold_objects}.
 *   <li>{@code catalog_meta(id, created_at)} (since v4): one row, the catalog's identity (a UUID
 *       string), inserted when the catalog is first opened read-write at v4 (see {@link
 *       JdbcCatalog}); a data dir records it in {@code catalog.id} (see {@link CatalogBinding}).
 *   <li>The schema registry's tables (since v7; see {@link SchemaStore} for the numbering rules):
 *       {@code registry_schemas(id, schema_type, schema_text, fingerprint, created_at)}, one row
 *       per global schema id, never deleted, fingerprint unique; {@code
 *       registry_schema_refs(schema_id, position, ref_name, ref_subject, ref_version,
 *       ref_schema_id)}, the id so that a reference resolves after a permanent delete too; {@code
 *       registry_subjects(subject, next_version, next_field_id)}, the per-subject counters that
 *       never go down (the row outlives a hard-deleted subject); {@code registry_versions(subject,
 *       version, schema_id, deleted, created_at)}, deleted 1 when soft-deleted, the row gone when
 *       hard-deleted; {@code registry_field_ids(subject, version, path, field_id)}; {@code
 *       registry_config(scope, config_key, config_value)}, scope '' for registry-wide settings.
 * </ul>
 */
final class SchemaMigrations {
    private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrations.class);

    /** One schema step. */
    record Migration(int version, String description, List<String> statements) {}

    static final List<Migration> ALL =
            List.of(
                    new Migration(
                            1,
                            "topics, partitions with cold high watermark, cold objects",
                            List.of(
                                    "CREATE TABLE topics ("
                                            + " id VARCHAR(36) PRIMARY KEY,"
                                            + " name VARCHAR(255) NOT NULL UNIQUE,"
                                            + " partition_count INTEGER NOT NULL,"
                                            + " created_at BIGINT NOT NULL)",
                                    "CREATE TABLE partitions ("
                                            + " topic_id VARCHAR(36) NOT NULL"
                                            + " REFERENCES topics(id) ON DELETE CASCADE,"
                                            + " partition_id INTEGER NOT NULL,"
                                            + " cold_hw BIGINT,"
                                            + " PRIMARY KEY (topic_id, partition_id))",
                                    "CREATE TABLE cold_objects ("
                                            + " topic_id VARCHAR(36) NOT NULL,"
                                            + " partition_id INTEGER NOT NULL,"
                                            + " first_offset BIGINT NOT NULL,"
                                            + " last_offset BIGINT NOT NULL,"
                                            + " min_ts BIGINT NOT NULL,"
                                            + " max_ts BIGINT NOT NULL,"
                                            + " record_count BIGINT NOT NULL,"
                                            + " size_bytes BIGINT NOT NULL,"
                                            + " object_key VARCHAR(1024) NOT NULL UNIQUE,"
                                            + " created_at BIGINT NOT NULL,"
                                            + " PRIMARY KEY (topic_id, partition_id, first_offset),"
                                            + " FOREIGN KEY (topic_id, partition_id)"
                                            + " REFERENCES partitions(topic_id, partition_id)"
                                            + " ON DELETE CASCADE)")),
                    new Migration(
                            2,
                            "topic configs; cold log start offset",
                            List.of(
                                    "CREATE TABLE topic_configs ("
                                            + " topic_id VARCHAR(36) NOT NULL"
                                            + " REFERENCES topics(id) ON DELETE CASCADE,"
                                            + " config_key VARCHAR(255) NOT NULL,"
                                            + " config_value TEXT NOT NULL,"
                                            + " PRIMARY KEY (topic_id, config_key))",
                                    "ALTER TABLE partitions ADD COLUMN cold_log_start BIGINT",
                                    "UPDATE partitions SET cold_log_start = (SELECT"
                                            + " MIN(o.first_offset) FROM cold_objects o"
                                            + " WHERE o.topic_id = partitions.topic_id"
                                            + " AND o.partition_id = partitions.partition_id)")),
                    new Migration(
                            3,
                            "index for timestamp lookups",
                            List.of(
                                    "CREATE INDEX cold_objects_max_ts ON cold_objects"
                                            + " (topic_id, partition_id, max_ts)")),
                    new Migration(
                            4,
                            "catalog identity",
                            List.of(
                                    "CREATE TABLE catalog_meta ("
                                            + " id VARCHAR(36) PRIMARY KEY,"
                                            + " created_at BIGINT NOT NULL)")),
                    new Migration(
                            5,
                            "log start offset",
                            List.of("ALTER TABLE partitions ADD COLUMN log_start BIGINT")),
                    new Migration(
                            6,
                            "compaction of the cold tier: retired objects, cold cleaned offset",
                            List.of(
                                    "ALTER TABLE partitions ADD COLUMN cold_cleaned BIGINT",
                                    "ALTER TABLE partitions ADD COLUMN last_cold_cleaning BIGINT",
                                    "CREATE TABLE retired_objects ("
                                            + " object_key VARCHAR(1024) PRIMARY KEY,"
                                            + " topic_name VARCHAR(255) NOT NULL,"
                                            + " partition_id INTEGER NOT NULL,"
                                            + " retired_at BIGINT NOT NULL)",
                                    "CREATE INDEX retired_objects_at ON retired_objects"
                                            + " (retired_at)")),
                    new Migration(
                            7,
                            "schema registry: schemas, subject versions, field ids, settings",
                            List.of(
                                    "CREATE TABLE registry_schemas ("
                                            + " id INTEGER PRIMARY KEY,"
                                            + " schema_type VARCHAR(16) NOT NULL,"
                                            + " schema_text TEXT NOT NULL,"
                                            + " fingerprint VARCHAR(128) NOT NULL UNIQUE,"
                                            + " created_at BIGINT NOT NULL)",
                                    "CREATE TABLE registry_schema_refs ("
                                            + " schema_id INTEGER NOT NULL,"
                                            + " position INTEGER NOT NULL,"
                                            + " ref_name TEXT NOT NULL,"
                                            + " ref_subject VARCHAR(1024) NOT NULL,"
                                            + " ref_version INTEGER NOT NULL,"
                                            + " ref_schema_id INTEGER NOT NULL,"
                                            + " PRIMARY KEY (schema_id, position))",
                                    "CREATE INDEX registry_schema_refs_target ON"
                                            + " registry_schema_refs (ref_subject, ref_version)",
                                    "CREATE TABLE registry_subjects ("
                                            + " subject VARCHAR(1024) PRIMARY KEY,"
                                            + " next_version INTEGER NOT NULL,"
                                            + " next_field_id INTEGER NOT NULL)",
                                    "CREATE TABLE registry_versions ("
                                            + " subject VARCHAR(1024) NOT NULL,"
                                            + " version INTEGER NOT NULL,"
                                            + " schema_id INTEGER NOT NULL,"
                                            + " deleted SMALLINT NOT NULL,"
                                            + " created_at BIGINT NOT NULL,"
                                            + " PRIMARY KEY (subject, version))",
                                    "CREATE INDEX registry_versions_schema ON registry_versions"
                                            + " (schema_id)",
                                    "CREATE TABLE registry_field_ids ("
                                            + " subject VARCHAR(1024) NOT NULL,"
                                            + " version INTEGER NOT NULL,"
                                            + " path TEXT NOT NULL,"
                                            + " field_id INTEGER NOT NULL,"
                                            + " PRIMARY KEY (subject, version, path))",
                                    "CREATE TABLE registry_config ("
                                            + " scope VARCHAR(1024) NOT NULL,"
                                            + " config_key VARCHAR(64) NOT NULL,"
                                            + " config_value TEXT NOT NULL,"
                                            + " PRIMARY KEY (scope, config_key))")));

    private SchemaMigrations() {}

    /** The version this code writes and reads. */
    static int latestVersion() {
        return ALL.get(ALL.size() - 1).version();
    }

    /**
     * Migrates the database to {@code target} (normally {@link #latestVersion()}).
     *
     * @return the version before migrating (0 for a new database)
     */
    static int migrate(Connection c, Dialect dialect, int target) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE IF NOT EXISTS schema_version ("
                            + " version INTEGER PRIMARY KEY,"
                            + " description VARCHAR(255) NOT NULL,"
                            + " applied_at BIGINT NOT NULL)");
        }
        int initial = -1;
        while (true) {
            dialect.begin(c);
            boolean done = false;
            try {
                dialect.lockForMigration(c);
                int current = currentVersion(c);
                if (initial < 0) {
                    initial = current;
                }
                if (current > latestVersion()) {
                    throw new CatalogException(
                            "catalog schema version "
                                    + current
                                    + " is newer than this tierlog supports ("
                                    + latestVersion()
                                    + "): upgrade tierlog");
                }
                if (current >= target) {
                    dialect.rollback(c);
                    done = true;
                    return initial;
                }
                Migration m = ALL.get(current); // versions are 1..n, contiguous
                try (Statement s = c.createStatement()) {
                    for (String sql : m.statements()) {
                        s.execute(sql);
                    }
                }
                try (PreparedStatement ps =
                        c.prepareStatement(
                                "INSERT INTO schema_version (version, description, applied_at)"
                                        + " VALUES (?, ?, ?)")) {
                    ps.setInt(1, m.version());
                    ps.setString(2, m.description());
                    ps.setLong(3, System.currentTimeMillis());
                    ps.executeUpdate();
                }
                dialect.commit(c);
                done = true;
                if (initial > 0) {
                    LOG.info(
                            "catalog schema migrated from version {} to {}: {}",
                            current,
                            m.version(),
                            m.description());
                } else {
                    LOG.debug("catalog schema created at version {}", m.version());
                }
            } finally {
                if (!done) {
                    try {
                        dialect.rollback(c);
                    } catch (SQLException suppressed) {
                        LOG.debug("rollback after failed migration failed", suppressed);
                    }
                }
            }
        }
    }

    /** Whether the database holds a tierlog schema at all (a {@code schema_version} table). */
    static boolean hasSchema(Connection c) throws SQLException {
        String schema = c.getSchema(); // PostgreSQL: only the current schema counts
        try (ResultSet rs = c.getMetaData().getTables(null, schema, "schema_version", null)) {
            if (rs.next()) {
                return true;
            }
        }
        try (ResultSet rs = c.getMetaData().getTables(null, schema, "SCHEMA_VERSION", null)) {
            return rs.next();
        }
    }

    static int currentVersion(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }
}

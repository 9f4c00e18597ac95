package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link JdbcCatalog} does once per database when it opens: refusing a missing or empty
 * catalog where it must exist, migrating (unless read-only), giving the catalog its id, and
 * choosing the URL of a read-only SQLite connection that creates no side file. Stateless, so
 * thread-safe.
 */
final class CatalogSetup {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogSetup.class);

    private CatalogSetup() {}

    static long sizeOf(java.nio.file.Path f) {
        try {
            return java.nio.file.Files.size(f);
        } catch (java.io.IOException e) {
            throw new CatalogUnavailableException("catalog file " + f + " is unreadable: " + e, e);
        }
    }

    /**
     * The URL a read-only connection opens: SQLite creates the {@code -wal} and {@code -shm} files
     * of a WAL database even for a read-only connection unless they exist. They exist while a
     * writer has the catalog open (and are then read as they are); without a write-ahead log no
     * writer is active and the file is complete, so it is opened {@code immutable} (no locks, no
     * side files). A write-ahead log without its shared-memory file (a writer that crashed) would
     * need the side file created; it is then also read immutable, without the log's last commits.
     */
    static String readOnlyUrl(java.nio.file.Path db) {
        boolean wal = java.nio.file.Files.exists(java.nio.file.Path.of(db + "-wal"));
        boolean shm = java.nio.file.Files.exists(java.nio.file.Path.of(db + "-shm"));
        if (wal && shm) {
            return "jdbc:sqlite:" + db.toUri() + "?mode=ro";
        }
        if (wal) {
            LOG.warn(
                    "catalog {} has a write-ahead log but no shared-memory file (a writer"
                            + " crashed?): reading it without the log's last commits",
                    db);
        }
        return "jdbc:sqlite:" + db.toUri() + "?mode=ro&immutable=1";
    }

    /**
     * Checks and migrates the schema as {@code mode} allows and makes sure the catalog has an id
     * (inserting a fresh one, under the migration lock, if it has none); returns the id (null only
     * for a read-only catalog older than schema v4).
     */
    static UUID prepare(Connection c, Dialect dialect, Catalog.OpenMode mode, String name)
            throws SQLException {
        boolean hasSchema = SchemaMigrations.hasSchema(c);
        if (!hasSchema && mode != Catalog.OpenMode.CREATE) {
            throw new CatalogUnavailableException(
                    "catalog " + name + " is empty (no tierlog schema)");
        }
        if (mode == Catalog.OpenMode.READ_ONLY) {
            int v = SchemaMigrations.currentVersion(c);
            if (v > SchemaMigrations.latestVersion()) {
                throw new CatalogException(
                        "catalog schema version "
                                + v
                                + " is newer than this tierlog supports ("
                                + SchemaMigrations.latestVersion()
                                + "): upgrade tierlog");
            }
            return v >= 4 ? readId(c).orElse(null) : null;
        }
        int before = SchemaMigrations.migrate(c, dialect, SchemaMigrations.latestVersion());
        LOG.debug("catalog {} opened at schema version {}", name, before);
        Optional<UUID> existing = readId(c);
        if (existing.isPresent()) {
            return existing.get();
        }
        dialect.begin(c);
        boolean done = false;
        try {
            dialect.lockForMigration(c);
            Optional<UUID> raced = readId(c);
            UUID fresh = raced.orElseGet(UUID::randomUUID);
            if (raced.isEmpty()) {
                try (PreparedStatement ps =
                        c.prepareStatement(
                                "INSERT INTO catalog_meta (id, created_at) VALUES (?, ?)")) {
                    ps.setString(1, fresh.toString());
                    ps.setLong(2, System.currentTimeMillis());
                    ps.executeUpdate();
                }
                LOG.info("catalog {} has id {}", name, fresh);
            }
            dialect.commit(c);
            done = true;
            return fresh;
        } finally {
            if (!done) {
                try {
                    dialect.rollback(c);
                } catch (SQLException e) {
                    LOG.debug("rollback after a failed id insert failed", e);
                }
            }
        }
    }

    static Optional<UUID> readId(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM catalog_meta");
                ResultSet rs = ps.executeQuery()) {
            Optional<UUID> id = Optional.empty();
            while (rs.next()) {
                if (id.isPresent()) {
                    throw new CatalogException("catalog_meta holds more than one id");
                }
                id = Optional.of(UUID.fromString(rs.getString(1).trim()));
            }
            return id;
        }
    }
}

package io.tierlog.catalog;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

/**
 * The differences between the SQL databases the catalog runs on, kept in one place; every other
 * statement is plain SQL shared by both. Stateless, so thread-safe.
 *
 * <ul>
 *   <li>SQLite: WAL journal, {@code synchronous=FULL} (the catalog row is a commit point), foreign
 *       keys on, a busy timeout so processes sharing the file wait for each other, and write
 *       transactions opened with {@code BEGIN IMMEDIATE} so that two writers serialise at the start
 *       instead of failing when a reader upgrades to a writer.
 *   <li>PostgreSQL: JDBC transactions in READ COMMITTED, the partition row locked with {@code FOR
 *       UPDATE}, and migrations serialised by a table lock.
 * </ul>
 */
enum Dialect {
    SQLITE {
        @Override
        Properties connectionProperties() {
            Properties p = new Properties();
            p.setProperty("journal_mode", "WAL");
            p.setProperty("synchronous", "FULL");
            p.setProperty("foreign_keys", "true");
            p.setProperty("busy_timeout", Integer.toString(BUSY_TIMEOUT_MS));
            return p;
        }

        @Override
        void prepareUrl(String jdbcUrl) throws CatalogException {
            String file = jdbcUrl.substring("jdbc:sqlite:".length());
            int query = file.indexOf('?');
            if (query >= 0) {
                file = file.substring(0, query);
            }
            if (file.isEmpty() || file.equals(":memory:") || file.startsWith("file:")) {
                return;
            }
            Path parent = Path.of(file).toAbsolutePath().getParent();
            try {
                if (parent != null) {
                    Files.createDirectories(parent);
                }
            } catch (java.io.IOException e) {
                throw new CatalogException(
                        "cannot create directory " + parent + " for the catalog", e);
            }
        }

        @Override
        void begin(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("BEGIN IMMEDIATE");
            }
        }

        @Override
        void commit(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("COMMIT");
            }
        }

        @Override
        void rollback(Connection c) throws SQLException {
            if (!c.getAutoCommit()) {
                c.rollback();
                return;
            }
            try (Statement s = c.createStatement()) {
                s.execute("ROLLBACK");
            }
        }

        @Override
        String forUpdate() {
            return "";
        }

        @Override
        void lockForMigration(Connection c) {
            // BEGIN IMMEDIATE already holds the database's only write lock.
        }

        @Override
        boolean isUniqueViolation(SQLException e) {
            // SQLITE_CONSTRAINT (19) with extended codes UNIQUE (2067) or PRIMARYKEY (1555).
            String m = String.valueOf(e.getMessage()).toUpperCase(Locale.ROOT);
            return e.getErrorCode() == 19 && (m.contains("UNIQUE") || m.contains("PRIMARY"));
        }

        @Override
        boolean isConnectionLost(SQLException e) {
            return false;
        }
    },

    POSTGRESQL {
        @Override
        Properties connectionProperties() {
            Properties p = new Properties();
            p.setProperty("ApplicationName", "tierlog");
            p.setProperty("connectTimeout", "10");
            p.setProperty("socketTimeout", "60");
            return p;
        }

        @Override
        void prepareUrl(String jdbcUrl) {}

        @Override
        void begin(Connection c) throws SQLException {
            c.setAutoCommit(false);
        }

        @Override
        void commit(Connection c) throws SQLException {
            c.commit();
            c.setAutoCommit(true);
        }

        @Override
        void rollback(Connection c) throws SQLException {
            if (!c.getAutoCommit()) {
                c.rollback();
                c.setAutoCommit(true);
            }
        }

        @Override
        String forUpdate() {
            return " FOR UPDATE";
        }

        @Override
        void lockForMigration(Connection c) throws SQLException {
            try (Statement s = c.createStatement()) {
                s.execute("LOCK TABLE schema_version IN ACCESS EXCLUSIVE MODE");
            }
        }

        @Override
        boolean isUniqueViolation(SQLException e) {
            return "23505".equals(e.getSQLState());
        }

        @Override
        boolean isConnectionLost(SQLException e) {
            String state = e.getSQLState();
            return state != null && (state.startsWith("08") || state.startsWith("57P"));
        }
    };

    static final int BUSY_TIMEOUT_MS = 30_000;

    /**
     * The database file of a {@code jdbc:sqlite:} URL, if it names one (not {@code :memory:} or a
     * {@code file:} URI).
     */
    static java.util.Optional<Path> sqliteFile(String jdbcUrl) {
        if (!jdbcUrl.startsWith("jdbc:sqlite:")) {
            return java.util.Optional.empty();
        }
        String file = jdbcUrl.substring("jdbc:sqlite:".length());
        int query = file.indexOf('?');
        if (query >= 0) {
            file = file.substring(0, query);
        }
        if (file.isEmpty() || file.equals(":memory:") || file.startsWith("file:")) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(Path.of(file).toAbsolutePath().normalize());
    }

    static Dialect forUrl(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:sqlite:")) {
            return SQLITE;
        }
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        throw new CatalogException(
                "unsupported catalog.url '"
                        + jdbcUrl
                        + "': expected jdbc:sqlite:<file> or jdbc:postgresql://...");
    }

    abstract Properties connectionProperties();

    /** Prepares the environment for the URL (for SQLite: creates the file's directory). */
    abstract void prepareUrl(String jdbcUrl) throws CatalogException;

    /** Starts a write transaction on a connection in auto-commit mode. */
    abstract void begin(Connection c) throws SQLException;

    /** Commits the transaction {@link #begin} started and returns to auto-commit mode. */
    abstract void commit(Connection c) throws SQLException;

    /** Rolls back the transaction {@link #begin} started and returns to auto-commit mode. */
    abstract void rollback(Connection c) throws SQLException;

    /** Suffix of a SELECT that locks the selected row until the transaction ends. */
    abstract String forUpdate();

    /** Makes concurrent migrations of one database wait for each other. */
    abstract void lockForMigration(Connection c) throws SQLException;

    abstract boolean isUniqueViolation(SQLException e);

    /** True if the connection is unusable and must be replaced. */
    abstract boolean isConnectionLost(SQLException e);
}

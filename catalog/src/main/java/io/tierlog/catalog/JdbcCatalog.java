package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Catalog} over one JDBC connection (SQLite or PostgreSQL, see {@link Dialect}). Calls are
 * serialised on a lock: catalog operations are a few small statements each, and SQLite allows only
 * one writer anyway. A connection found broken is replaced on the next call. Commits are in {@link
 * CommitTransaction} and {@link ReplaceTransaction}, retention's removals in {@link
 * RetentionTransactions}, retired objects in {@link RetiredObjects}. Thread-safe.
 */
final class JdbcCatalog implements Catalog {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcCatalog.class);

    /** sqlite-jdbc's {@code open_mode} flags: READWRITE | OPEN_URI, without CREATE. */
    private static final String SQLITE_OPEN_EXISTING = Integer.toString(0x02 | 0x40);

    /** sqlite-jdbc's {@code open_mode} flags: READONLY | OPEN_URI. */
    private static final String SQLITE_OPEN_READ_ONLY = Integer.toString(0x01 | 0x40);

    private final String url;
    private final String connectUrl;
    private final Dialect dialect;
    private final Properties properties;
    private final Catalog.OpenMode mode;
    private final SqliteStorage storage; // null unless a SQLite file; guarded by lock
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection; // guarded by lock
    private boolean closed; // guarded by lock
    private volatile UUID id; // null only for a read-only catalog older than schema v4
    private final JdbcSchemaStore schemas = new JdbcSchemaStore(this);

    private JdbcCatalog(String url, Dialect dialect, Properties properties, Catalog.OpenMode mode) {
        this.url = url;
        this.dialect = dialect;
        this.properties = properties;
        this.mode = mode;
        this.storage = Dialect.sqliteFile(url).map(SqliteStorage::new).orElse(null);
        this.connectUrl =
                mode == Catalog.OpenMode.READ_ONLY && storage != null
                        ? CatalogSetup.readOnlyUrl(storage.db())
                        : url;
    }

    static JdbcCatalog open(String jdbcUrl, Map<String, String> extraProperties) {
        return open(jdbcUrl, extraProperties, Catalog.OpenMode.CREATE);
    }

    static JdbcCatalog open(
            String jdbcUrl, Map<String, String> extraProperties, Catalog.OpenMode mode) {
        Dialect dialect = Dialect.forUrl(jdbcUrl);
        Optional<java.nio.file.Path> file = Dialect.sqliteFile(jdbcUrl);
        if (mode != Catalog.OpenMode.CREATE
                && file.isPresent()
                && !java.nio.file.Files.isRegularFile(file.get())) {
            throw new CatalogUnavailableException("catalog file " + file.get() + " does not exist");
        }
        if (mode != Catalog.OpenMode.CREATE
                && file.isPresent()
                && CatalogSetup.sizeOf(file.get()) == 0) {
            // Connecting would write a header into it (journal mode).
            throw new CatalogUnavailableException(
                    "catalog " + file.get() + " is empty (no tierlog schema)");
        }
        if (mode == Catalog.OpenMode.CREATE) {
            dialect.prepareUrl(jdbcUrl);
        }
        Properties props = dialect.connectionProperties();
        if (mode == Catalog.OpenMode.READ_ONLY && dialect == Dialect.SQLITE) {
            props.remove("journal_mode"); // setting it is a write
            props.setProperty("open_mode", SQLITE_OPEN_READ_ONLY);
        } else if (mode == Catalog.OpenMode.EXISTING && dialect == Dialect.SQLITE) {
            props.setProperty("open_mode", SQLITE_OPEN_EXISTING);
        }
        extraProperties.forEach(props::setProperty);
        JdbcCatalog catalog = new JdbcCatalog(jdbcUrl, dialect, props, mode);
        try {
            catalog.call(
                    c -> {
                        catalog.id = CatalogSetup.prepare(c, dialect, mode, catalog.redactedUrl());
                        return null;
                    });
        } catch (RuntimeException e) {
            catalog.close();
            throw e;
        }
        if (dialect == Dialect.SQLITE && mode == Catalog.OpenMode.CREATE) {
            // Created (if it had to be) once: a reconnect must never create an empty file in
            // place of one deleted under us.
            props.setProperty("open_mode", SQLITE_OPEN_EXISTING);
        }
        return catalog;
    }

    @Override
    public UUID id() {
        UUID i = id;
        if (i == null) {
            throw new CatalogUnavailableException(
                    "catalog " + redactedUrl() + " has no id (schema older than version 4)");
        }
        return i;
    }

    @Override
    public UUID durableId() {
        lock.lock();
        try {
            if (closed) {
                throw new CatalogException("catalog " + redactedUrl() + " is closed");
            }
            if (storage != null) {
                Optional<SqliteStorage.Problem> p = storage.check();
                if (p.isPresent() && p.get().reconnect()) {
                    LOG.warn("{}: reopening the catalog", p.get().description());
                    dropConnection();
                    connection(); // connects without creating: fails if the file is gone
                    p = storage.check();
                }
                if (p.isPresent()) {
                    throw new CatalogUnavailableException(p.get().description());
                }
            }
            Connection c = connection();
            try {
                UUID now =
                        CatalogSetup.readId(c)
                                .orElseThrow(
                                        () ->
                                                new CatalogUnavailableException(
                                                        "catalog " + redactedUrl() + " has no id"));
                id = now;
                return now;
            } catch (SQLException e) {
                if (dialect.isConnectionLost(e)) {
                    dropConnection();
                }
                throw new CatalogUnavailableException(
                        "catalog " + redactedUrl() + " is unreadable: " + e.getMessage(), e);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Replaces the id (see {@link CatalogBinding#assignId}). */
    void assignId(UUID newId) {
        inTransaction(
                c -> {
                    try (PreparedStatement ps = c.prepareStatement("DELETE FROM catalog_meta")) {
                        ps.executeUpdate();
                    }
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "INSERT INTO catalog_meta (id, created_at) VALUES (?, ?)")) {
                        ps.setString(1, newId.toString());
                        ps.setLong(2, System.currentTimeMillis());
                        ps.executeUpdate();
                    }
                    return null;
                });
        id = newId;
    }

    @Override
    public String describe() {
        return storage != null ? storage.db().toString() : redactedUrl();
    }

    /** Work done with the connection; may throw SQLException. */
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} on the connection under the lock, opening or replacing the connection as
     * needed. SQL failures become {@link CatalogException}s naming {@code what}.
     */
    <T> T call(SqlWork<T> work) {
        lock.lock();
        try {
            if (closed) {
                throw new CatalogException("catalog " + redactedUrl() + " is closed");
            }
            Connection c = connection();
            try {
                return work.run(c);
            } catch (SQLException e) {
                if (dialect.isConnectionLost(e)) {
                    dropConnection();
                }
                throw new CatalogException("catalog " + redactedUrl() + ": " + e.getMessage(), e);
            }
        } finally {
            lock.unlock();
        }
    }

    Dialect dialect() {
        return dialect;
    }

    private Connection connection() {
        try {
            if (connection != null && !connection.isClosed()) {
                return connection;
            }
            connection = DriverManager.getConnection(connectUrl, properties);
            if (mode == Catalog.OpenMode.READ_ONLY && dialect == Dialect.POSTGRESQL) {
                connection.setReadOnly(true); // SQLite is read-only by its open flags
            }
            if (storage != null) {
                storage.connected();
            }
            return connection;
        } catch (SQLException e) {
            connection = null;
            throw new CatalogException(
                    "cannot connect to catalog " + redactedUrl() + ": " + e.getMessage(), e);
        }
    }

    /** Closes the connection so the next call opens a fresh one (after a lost connection). */
    void dropConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.debug("closing a broken catalog connection failed", e);
            }
        }
    }

    String redactedUrl() {
        int q = url.indexOf('?');
        return q < 0 ? url : url.substring(0, q);
    }

    @Override
    public TopicRecord createTopic(String name, int partitions, Map<String, String> configs) {
        try {
            return createTopicOnce(name, partitions, configs);
        } catch (CatalogException e) {
            if (e.getCause() instanceof SQLException sql && dialect.isUniqueViolation(sql)) {
                // Another process created it between our read and insert: decide against its row.
                return createTopicOnce(name, partitions, configs);
            }
            throw e;
        }
    }

    private TopicRecord createTopicOnce(String name, int partitions, Map<String, String> configs) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("topic name must not be empty");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        Map<String, String> wanted = Map.copyOf(configs);
        return inTransaction(
                c -> {
                    Optional<TopicRecord> existing = CatalogQueries.readTopic(c, name);
                    if (existing.isPresent()) {
                        TopicRecord t = existing.get();
                        if (t.partitions() == partitions && t.configs().equals(wanted)) {
                            return t;
                        }
                        throw new TopicConflictException(
                                "topic '"
                                        + name
                                        + "' already exists with "
                                        + t.partitions()
                                        + " partitions and configs "
                                        + new TreeMap<>(t.configs()),
                                t);
                    }
                    TopicRecord t =
                            new TopicRecord(
                                    UUID.randomUUID(),
                                    name,
                                    partitions,
                                    wanted,
                                    Instant.ofEpochMilli(System.currentTimeMillis()));
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "INSERT INTO topics (id, name, partition_count, created_at)"
                                            + " VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, t.id().toString());
                        ps.setString(2, name);
                        ps.setInt(3, partitions);
                        ps.setLong(4, t.createdAt().toEpochMilli());
                        ps.executeUpdate();
                    }
                    CatalogQueries.insertPartitions(c, t.id(), 0, partitions);
                    CatalogQueries.writeConfigs(c, t.id(), wanted);
                    return t;
                });
    }

    @Override
    public TopicRecord importTopic(
            UUID id, String name, int partitions, Map<String, String> configs) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        Map<String, String> wanted = Map.copyOf(configs);
        return inTransaction(
                c -> {
                    Optional<TopicRecord> existing = CatalogQueries.readTopic(c, name);
                    Instant createdAt =
                            existing.map(TopicRecord::createdAt)
                                    .orElse(Instant.ofEpochMilli(System.currentTimeMillis()));
                    int count =
                            Math.max(partitions, existing.map(TopicRecord::partitions).orElse(0));
                    if (existing.isEmpty()) {
                        insertTopicRow(c, id, name, count, createdAt);
                        CatalogQueries.insertPartitions(c, id, 0, count);
                    } else if (!existing.get().id().equals(id)) {
                        reId(c, existing.get(), id, count);
                    } else if (existing.get().partitions() < count) {
                        try (PreparedStatement ps =
                                c.prepareStatement(
                                        "UPDATE topics SET partition_count = ? WHERE id = ?")) {
                            ps.setInt(1, count);
                            ps.setString(2, id.toString());
                            ps.executeUpdate();
                        }
                        CatalogQueries.insertPartitions(c, id, existing.get().partitions(), count);
                    }
                    try (PreparedStatement ps =
                            c.prepareStatement("DELETE FROM topic_configs WHERE topic_id = ?")) {
                        ps.setString(1, id.toString());
                        ps.executeUpdate();
                    }
                    CatalogQueries.writeConfigs(c, id, wanted);
                    return new TopicRecord(id, name, count, wanted, createdAt);
                });
    }

    private static void insertTopicRow(
            Connection c, UUID id, String name, int partitions, Instant createdAt)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO topics (id, name, partition_count, created_at)"
                                + " VALUES (?, ?, ?, ?)")) {
            ps.setString(1, id.toString());
            ps.setString(2, name);
            ps.setInt(3, partitions);
            ps.setLong(4, createdAt.toEpochMilli());
            ps.executeUpdate();
        }
    }

    /**
     * Moves a topic's rows to a new id (the foreign keys have no ON UPDATE CASCADE): the old row is
     * renamed out of the way of the unique name, the new rows are written, the cold objects are
     * pointed at them, and the old rows deleted; all in the caller's transaction.
     */
    private static void reId(Connection c, TopicRecord old, UUID id, int partitions)
            throws SQLException {
        String from = old.id().toString();
        String to = id.toString();
        try (PreparedStatement ps = c.prepareStatement("UPDATE topics SET name = ? WHERE id = ?")) {
            ps.setString(1, "~re-id~" + from); // never a topic name: no "~" in one
            ps.setString(2, from);
            ps.executeUpdate();
        }
        insertTopicRow(c, id, old.name(), partitions, old.createdAt());
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO partitions (topic_id, partition_id, cold_hw, cold_log_start,"
                                + " cold_cleaned, last_cold_cleaning) SELECT ?, partition_id,"
                                + " cold_hw, cold_log_start, cold_cleaned, last_cold_cleaning FROM"
                                + " partitions WHERE topic_id = ?")) {
            ps.setString(1, to);
            ps.setString(2, from);
            ps.executeUpdate();
        }
        if (partitions > old.partitions()) {
            CatalogQueries.insertPartitions(c, id, old.partitions(), partitions);
        }
        update(c, "UPDATE cold_objects SET topic_id = ? WHERE topic_id = ?", to, from);
        update(c, "DELETE FROM topic_configs WHERE topic_id = ?", from);
        update(c, "DELETE FROM partitions WHERE topic_id = ?", from);
        update(c, "DELETE FROM topics WHERE id = ?", from);
    }

    private static void update(Connection c, String sql, String... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setString(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }

    @Override
    public Optional<TopicRecord> topic(String name) {
        return call(c -> CatalogQueries.readTopic(c, name));
    }

    @Override
    public List<TopicRecord> topics() {
        return call(
                c -> {
                    List<String> names = new ArrayList<>();
                    try (PreparedStatement ps =
                                    c.prepareStatement("SELECT name FROM topics ORDER BY name");
                            ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            names.add(rs.getString(1));
                        }
                    }
                    List<TopicRecord> out = new ArrayList<>(names.size());
                    for (String n : names) {
                        CatalogQueries.readTopic(c, n).ifPresent(out::add);
                    }
                    return out;
                });
    }

    @Override
    public void deleteTopic(String name) {
        inTransaction(
                c -> {
                    Optional<TopicRecord> t = CatalogQueries.readTopic(c, name);
                    if (t.isEmpty()) {
                        return null;
                    }
                    String id = t.get().id().toString();
                    // Explicit deletes, child tables first: no reliance on ON DELETE CASCADE being
                    // enabled on every connection.
                    for (String table :
                            List.of("cold_objects", "partitions", "topic_configs", "topics")) {
                        String column = table.equals("topics") ? "id" : "topic_id";
                        try (PreparedStatement ps =
                                c.prepareStatement(
                                        "DELETE FROM " + table + " WHERE " + column + " = ?")) {
                            ps.setString(1, id);
                            ps.executeUpdate();
                        }
                    }
                    return null;
                });
    }

    @Override
    public TopicRecord ensurePartitions(String name, int partitions) {
        return inTransaction(
                c -> {
                    TopicRecord t = CatalogQueries.requireTopic(c, name);
                    if (t.partitions() >= partitions) {
                        return t;
                    }
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "UPDATE topics SET partition_count = ? WHERE id = ?")) {
                        ps.setInt(1, partitions);
                        ps.setString(2, t.id().toString());
                        ps.executeUpdate();
                    }
                    CatalogQueries.insertPartitions(c, t.id(), t.partitions(), partitions);
                    return new TopicRecord(t.id(), name, partitions, t.configs(), t.createdAt());
                });
    }

    @Override
    public TopicRecord updateTopicConfigs(String name, Map<String, String> configs) {
        Map<String, String> wanted = Map.copyOf(configs);
        return inTransaction(
                c -> {
                    TopicRecord t = CatalogQueries.requireTopic(c, name);
                    try (PreparedStatement ps =
                            c.prepareStatement("DELETE FROM topic_configs WHERE topic_id = ?")) {
                        ps.setString(1, t.id().toString());
                        ps.executeUpdate();
                    }
                    CatalogQueries.writeConfigs(c, t.id(), wanted);
                    return new TopicRecord(t.id(), name, t.partitions(), wanted, t.createdAt());
                });
    }

    @Override
    public PartitionState partitionState(String topic, int partition) {
        return call(
                c ->
                        CatalogQueries.readPartitionState(c, topic, partition)
                                .orElseThrow(
                                        () ->
                                                new CatalogException(
                                                        "unknown partition "
                                                                + topic
                                                                + "-"
                                                                + partition)));
    }

    @Override
    public CommitResult commit(ColdObject obj) {
        return new CommitTransaction(this, obj).run();
    }

    @Override
    public Optional<ColdObject> objectFor(String topic, int partition, long offset) {
        return call(
                c ->
                        CatalogQueries.firstObject(
                                c,
                                topic,
                                partition,
                                " AND o.first_offset <= ? AND o.last_offset >= ?"
                                        + " ORDER BY o.first_offset DESC",
                                offset,
                                offset));
    }

    @Override
    public Optional<ColdObject> firstObjectReaching(String topic, int partition, long timestampMs) {
        return call(
                c ->
                        CatalogQueries.firstObject(
                                c,
                                topic,
                                partition,
                                " AND o.max_ts >= ? ORDER BY o.first_offset",
                                timestampMs));
    }

    @Override
    public List<ColdObject> objects(String topic, int partition) {
        return call(
                c -> CatalogQueries.queryObjects(c, topic, partition, " ORDER BY o.first_offset"));
    }

    @Override
    public List<ColdObject> removeObjectsBelow(String topic, int partition, long offset) {
        return inTransaction(
                c -> RetentionTransactions.removeBelow(c, dialect, topic, partition, offset));
    }

    @Override
    public LogStartUpdate advanceLogStart(
            String topic, int partition, long offset, long coldFloor) {
        if (coldFloor > offset) {
            throw new IllegalArgumentException(
                    "cold floor " + coldFloor + " above the log start " + offset);
        }
        return inTransaction(
                c ->
                        RetentionTransactions.advanceLogStart(
                                c, dialect, topic, partition, offset, coldFloor));
    }

    @Override
    public CommitResult replaceObjects(
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long cleanedOffset,
            long atMs) {
        if (cleanedOffset < 0) {
            throw new IllegalArgumentException("negative cleaned offset " + cleanedOffset);
        }
        return new ReplaceTransaction(
                        this, topic, partition, replacedKeys, replacement, cleanedOffset, atMs)
                .run();
    }

    @Override
    public CommitResult mergeObjects(
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long atMs) {
        return new ReplaceTransaction(
                        this,
                        topic,
                        partition,
                        replacedKeys,
                        replacement,
                        ReplaceTransaction.NO_CLEANING,
                        atMs)
                .run();
    }

    @Override
    public List<RetiredObject> retiredObjects(long retiredAtOrBeforeMs) {
        return call(c -> RetiredObjects.retiredAtOrBefore(c, retiredAtOrBeforeMs));
    }

    @Override
    public void forgetRetired(String key) {
        call(
                c -> {
                    RetiredObjects.forget(c, key);
                    return null;
                });
    }

    @Override
    public List<String> allObjectKeys() {
        return call(
                c -> {
                    List<String> keys = new ArrayList<>();
                    try (PreparedStatement ps =
                                    c.prepareStatement(
                                            "SELECT object_key FROM cold_objects"
                                                    + " ORDER BY object_key");
                            ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            keys.add(rs.getString(1));
                        }
                    }
                    return keys;
                });
    }

    @Override
    public SchemaStore schemas() {
        return schemas;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            dropConnection();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "JdbcCatalog[" + redactedUrl() + "]";
    }

    /** Runs {@code work} in one write transaction; rolls back on any failure. */
    <T> T inTransaction(SqlWork<T> work) {
        return call(
                c -> {
                    dialect.begin(c);
                    boolean committed = false;
                    try {
                        T result = work.run(c);
                        dialect.commit(c);
                        committed = true;
                        return result;
                    } finally {
                        if (!committed) {
                            rollbackQuietly(c);
                        }
                    }
                });
    }

    void rollbackQuietly(Connection c) {
        try {
            dialect.rollback(c);
        } catch (SQLException e) {
            LOG.debug("catalog rollback failed; dropping the connection", e);
            dropConnection();
        }
    }
}

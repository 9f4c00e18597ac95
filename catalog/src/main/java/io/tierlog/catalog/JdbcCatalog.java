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
 * CommitTransaction}. Thread-safe.
 */
final class JdbcCatalog implements Catalog {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcCatalog.class);

    private final String url;
    private final Dialect dialect;
    private final Properties properties;
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection; // guarded by lock
    private boolean closed; // guarded by lock

    private JdbcCatalog(String url, Dialect dialect, Properties properties) {
        this.url = url;
        this.dialect = dialect;
        this.properties = properties;
    }

    static JdbcCatalog open(String jdbcUrl, Map<String, String> extraProperties) {
        Dialect dialect = Dialect.forUrl(jdbcUrl);
        dialect.prepareUrl(jdbcUrl);
        Properties props = dialect.connectionProperties();
        extraProperties.forEach(props::setProperty);
        JdbcCatalog catalog = new JdbcCatalog(jdbcUrl, dialect, props);
        try {
            catalog.call(
                    c -> {
                        int before =
                                SchemaMigrations.migrate(
                                        c, dialect, SchemaMigrations.latestVersion());
                        LOG.debug("catalog {} opened at schema version {}", jdbcUrl, before);
                        return null;
                    });
        } catch (RuntimeException e) {
            catalog.close();
            throw e;
        }
        return catalog;
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
            connection = DriverManager.getConnection(url, properties);
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
                        throw new TopicExistsException(
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
                    TopicRecord t =
                            CatalogQueries.readTopic(c, name)
                                    .orElseThrow(
                                            () ->
                                                    new CatalogException(
                                                            "unknown topic '" + name + "'"));
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
                    TopicRecord t =
                            CatalogQueries.readTopic(c, name)
                                    .orElseThrow(
                                            () ->
                                                    new CatalogException(
                                                            "unknown topic '" + name + "'"));
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
                c -> {
                    List<ColdObject> removed =
                            CatalogQueries.queryObjects(
                                    c,
                                    topic,
                                    partition,
                                    " AND o.last_offset < ? ORDER BY o.first_offset",
                                    offset);
                    if (removed.isEmpty()) {
                        return removed;
                    }
                    String topicId = CommitTransaction.topicId(c, topic).orElseThrow();
                    long newStart = removed.get(removed.size() - 1).nextOffset();
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "DELETE FROM cold_objects WHERE topic_id = ? AND"
                                            + " partition_id = ? AND last_offset < ?")) {
                        ps.setString(1, topicId);
                        ps.setInt(2, partition);
                        ps.setLong(3, offset);
                        ps.executeUpdate();
                    }
                    try (PreparedStatement ps =
                            c.prepareStatement(
                                    "UPDATE partitions SET cold_log_start = ? WHERE topic_id = ?"
                                            + " AND partition_id = ?")) {
                        ps.setLong(1, newStart);
                        ps.setString(2, topicId);
                        ps.setInt(3, partition);
                        ps.executeUpdate();
                    }
                    return removed;
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

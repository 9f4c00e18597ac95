package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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

    static final String OBJECT_COLUMNS =
            "first_offset, last_offset, min_ts, max_ts, record_count, size_bytes, object_key,"
                    + " created_at";

    /** {@link #OBJECT_COLUMNS} qualified with a table alias. */
    static String objectColumns(String alias) {
        return alias + "." + OBJECT_COLUMNS.replace(", ", ", " + alias + ".");
    }

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
                    Optional<TopicRecord> existing = readTopic(c, name);
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
                    insertPartitions(c, t.id(), 0, partitions);
                    writeConfigs(c, t.id(), wanted);
                    return t;
                });
    }

    @Override
    public Optional<TopicRecord> topic(String name) {
        return call(c -> readTopic(c, name));
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
                        readTopic(c, n).ifPresent(out::add);
                    }
                    return out;
                });
    }

    @Override
    public void deleteTopic(String name) {
        inTransaction(
                c -> {
                    Optional<TopicRecord> t = readTopic(c, name);
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
                            readTopic(c, name)
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
                    insertPartitions(c, t.id(), t.partitions(), partitions);
                    return new TopicRecord(t.id(), name, partitions, t.configs(), t.createdAt());
                });
    }

    @Override
    public TopicRecord updateTopicConfigs(String name, Map<String, String> configs) {
        Map<String, String> wanted = Map.copyOf(configs);
        return inTransaction(
                c -> {
                    TopicRecord t =
                            readTopic(c, name)
                                    .orElseThrow(
                                            () ->
                                                    new CatalogException(
                                                            "unknown topic '" + name + "'"));
                    try (PreparedStatement ps =
                            c.prepareStatement("DELETE FROM topic_configs WHERE topic_id = ?")) {
                        ps.setString(1, t.id().toString());
                        ps.executeUpdate();
                    }
                    writeConfigs(c, t.id(), wanted);
                    return new TopicRecord(t.id(), name, t.partitions(), wanted, t.createdAt());
                });
    }

    @Override
    public PartitionState partitionState(String topic, int partition) {
        return call(
                c ->
                        readPartitionState(c, topic, partition)
                                .orElseThrow(
                                        () ->
                                                new CatalogException(
                                                        "unknown partition "
                                                                + topic
                                                                + "-"
                                                                + partition)));
    }

    /** The partition's state read with {@code c}, empty if the topic or partition is unknown. */
    static Optional<PartitionState> readPartitionState(Connection c, String topic, int partition)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT p.cold_hw, p.cold_log_start,"
                                + " (SELECT COUNT(*) FROM cold_objects o WHERE o.topic_id ="
                                + " p.topic_id AND o.partition_id = p.partition_id),"
                                + " (SELECT COALESCE(SUM(o.size_bytes), 0) FROM cold_objects o"
                                + " WHERE o.topic_id = p.topic_id AND o.partition_id ="
                                + " p.partition_id)"
                                + " FROM partitions p JOIN topics t ON t.id = p.topic_id"
                                + " WHERE t.name = ? AND p.partition_id = ?")) {
            ps.setString(1, topic);
            ps.setInt(2, partition);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                long hw = rs.getLong(1);
                boolean never = rs.wasNull();
                long start = rs.getLong(2);
                boolean noStart = rs.wasNull();
                long count = rs.getLong(3);
                long bytes = rs.getLong(4);
                if (never) {
                    hw = 0;
                }
                if (noStart || count == 0) {
                    start = hw;
                }
                return Optional.of(new PartitionState(topic, partition, hw, start, count, bytes));
            }
        }
    }

    @Override
    public CommitResult commit(ColdObject obj) {
        return new CommitTransaction(this, obj).run();
    }

    @Override
    public Optional<ColdObject> objectFor(String topic, int partition, long offset) {
        return call(
                c ->
                        firstObject(
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
                        firstObject(
                                c,
                                topic,
                                partition,
                                " AND o.max_ts >= ? ORDER BY o.first_offset",
                                timestampMs));
    }

    @Override
    public List<ColdObject> objects(String topic, int partition) {
        return call(c -> queryObjects(c, topic, partition, " ORDER BY o.first_offset"));
    }

    @Override
    public List<ColdObject> removeObjectsBelow(String topic, int partition, long offset) {
        return inTransaction(
                c -> {
                    List<ColdObject> removed =
                            queryObjects(
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

    private static Optional<TopicRecord> readTopic(Connection c, String name) throws SQLException {
        String id;
        int partitions;
        long createdAt;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT id, partition_count, created_at FROM topics WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                id = rs.getString(1);
                partitions = rs.getInt(2);
                createdAt = rs.getLong(3);
            }
        }
        Map<String, String> configs = new HashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT config_key, config_value FROM topic_configs WHERE topic_id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    configs.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return Optional.of(
                new TopicRecord(
                        UUID.fromString(id),
                        name,
                        partitions,
                        configs,
                        Instant.ofEpochMilli(createdAt)));
    }

    private static void insertPartitions(Connection c, UUID topicId, int from, int to)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO partitions (topic_id, partition_id, cold_hw, cold_log_start)"
                                + " VALUES (?, ?, NULL, NULL)")) {
            for (int p = from; p < to; p++) {
                ps.setString(1, topicId.toString());
                ps.setInt(2, p);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static void writeConfigs(Connection c, UUID topicId, Map<String, String> configs)
            throws SQLException {
        if (configs.isEmpty()) {
            return;
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO topic_configs (topic_id, config_key, config_value)"
                                + " VALUES (?, ?, ?)")) {
            for (Map.Entry<String, String> e : new TreeMap<>(configs).entrySet()) {
                ps.setString(1, topicId.toString());
                ps.setString(2, e.getKey());
                ps.setString(3, e.getValue());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static Optional<ColdObject> firstObject(
            Connection c, String topic, int partition, String where, long... args)
            throws SQLException {
        List<ColdObject> list = queryObjects(c, topic, partition, where + " LIMIT 1", args);
        return list.isEmpty() ? Optional.empty() : Optional.of(list.get(0));
    }

    static List<ColdObject> queryObjects(
            Connection c, String topic, int partition, String whereAndOrder, long... args)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT "
                                + objectColumns("o")
                                + " FROM cold_objects o JOIN topics t ON t.id = o.topic_id"
                                + " WHERE t.name = ? AND o.partition_id = ?"
                                + whereAndOrder)) {
            ps.setString(1, topic);
            ps.setInt(2, partition);
            for (int i = 0; i < args.length; i++) {
                ps.setLong(3 + i, args[i]);
            }
            List<ColdObject> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(readObject(rs, topic, partition));
                }
            }
            return out;
        }
    }

    static ColdObject readObject(ResultSet rs, String topic, int partition) throws SQLException {
        return new ColdObject(
                topic,
                partition,
                rs.getLong(1),
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getString(7),
                Instant.ofEpochMilli(rs.getLong(8)));
    }
}

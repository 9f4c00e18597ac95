package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code retired_objects} table (see {@link SchemaMigrations}): objects a replace-commit took
 * out of a partition, kept until the sweeper deleted them from the store. Plain SQL on a connection
 * the caller owns (writes inside the caller's transaction), and {@link #restore} for a catalog
 * rebuilt from the bucket. Stateless, so thread-safe.
 */
public final class RetiredObjects {
    private RetiredObjects() {}

    /**
     * For {@code tierlog catalog rebuild}: records objects found in the bucket that a compacted
     * object (committed to {@code catalog} already) replaced, as retired at {@code atMs}, and moves
     * the partition's cold cleaned offset up to {@code cleanedOffset} with its last cleaning at
     * {@code atMs}; one transaction. A key already retired keeps its time.
     *
     * @throws CatalogException if the partition is unknown, a key is committed (a retired object is
     *     never referenced), or {@code catalog} is not a catalog this module opened
     */
    public static void restore(
            Catalog catalog,
            String topic,
            int partition,
            List<String> keys,
            long cleanedOffset,
            long atMs) {
        if (!(catalog instanceof JdbcCatalog jdbc)) {
            throw new CatalogException("cannot restore retired objects into " + catalog);
        }
        jdbc.inTransaction(
                c -> {
                    String topicId =
                            CatalogCommit.topicId(c, topic)
                                    .orElseThrow(
                                            () ->
                                                    new CatalogException(
                                                            "unknown topic '" + topic + "'"));
                    for (String key : keys) {
                        if (CatalogCommit.objectByKey(c, key).isPresent()) {
                            throw new CatalogException(
                                    "cannot retire " + key + ": it is a committed object");
                        }
                        if (!isRetired(c, key)) {
                            insert(c, topic, partition, key, atMs);
                        }
                    }
                    if (!recordCleaning(c, topicId, partition, cleanedOffset, atMs)) {
                        throw new CatalogException("unknown partition " + topic + "-" + partition);
                    }
                    return null;
                });
    }

    static boolean isRetired(Connection c, String key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("SELECT 1 FROM retired_objects WHERE object_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    static void insert(Connection c, String topic, int partition, String key, long atMs)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO retired_objects (object_key, topic_name, partition_id,"
                                + " retired_at) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, topic);
            ps.setInt(3, partition);
            ps.setLong(4, atMs);
            ps.executeUpdate();
        }
    }

    /**
     * Sets the partition's cold cleaned offset to {@code max(current, cleanedOffset)} and its last
     * cleaning to {@code atMs}; false if the partition row does not exist.
     */
    static boolean recordCleaning(
            Connection c, String topicId, int partition, long cleanedOffset, long atMs)
            throws SQLException {
        // CASE rather than MAX/GREATEST: the one spelling SQLite and PostgreSQL share.
        try (PreparedStatement ps =
                c.prepareStatement(
                        "UPDATE partitions SET cold_cleaned = CASE WHEN cold_cleaned IS NULL OR"
                                + " cold_cleaned < ? THEN ? ELSE cold_cleaned END,"
                                + " last_cold_cleaning = ? WHERE topic_id = ? AND partition_id"
                                + " = ?")) {
            ps.setLong(1, cleanedOffset);
            ps.setLong(2, cleanedOffset);
            ps.setLong(3, atMs);
            ps.setString(4, topicId);
            ps.setInt(5, partition);
            return ps.executeUpdate() == 1;
        }
    }

    static List<RetiredObject> retiredAtOrBefore(Connection c, long atMs) throws SQLException {
        List<RetiredObject> out = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT topic_name, partition_id, object_key, retired_at FROM"
                                + " retired_objects WHERE retired_at <= ? ORDER BY retired_at,"
                                + " object_key")) {
            ps.setLong(1, atMs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(
                            new RetiredObject(
                                    rs.getString(1), rs.getInt(2), rs.getString(3), rs.getLong(4)));
                }
            }
        }
        return out;
    }

    static void forget(Connection c, String key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM retired_objects WHERE object_key = ?")) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
    }
}

package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Retention's writes of a partition's object list ({@link Catalog#removeObjectsBelow}, {@link
 * Catalog#advanceLogStart}), run in the caller's transaction. Each locks the partition row before
 * it reads the objects, as every writer of the list does ({@link CatalogCommit}): a concurrent
 * commit or replace-commit then finishes first or waits, so the objects removed are the ones read
 * and the cold log start is the first offset of an object that is still there. Stateless, so
 * thread-safe.
 */
final class RetentionTransactions {
    private RetentionTransactions() {}

    /** See {@link Catalog#removeObjectsBelow}; an unknown topic or partition removes nothing. */
    static List<ColdObject> removeBelow(
            Connection c, Dialect dialect, String topic, int partition, long offset)
            throws SQLException {
        Optional<String> topicId = CatalogCommit.topicId(c, topic);
        if (topicId.isEmpty() || lockPartition(c, dialect, topicId.get(), partition).isEmpty()) {
            return List.of();
        }
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
        long newStart = removed.get(removed.size() - 1).nextOffset();
        try (PreparedStatement ps =
                c.prepareStatement(
                        "DELETE FROM cold_objects WHERE topic_id = ? AND"
                                + " partition_id = ? AND last_offset < ?")) {
            ps.setString(1, topicId.get());
            ps.setInt(2, partition);
            ps.setLong(3, offset);
            ps.executeUpdate();
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "UPDATE partitions SET cold_log_start = ? WHERE topic_id = ?"
                                + " AND partition_id = ?")) {
            ps.setLong(1, newStart);
            ps.setString(2, topicId.get());
            ps.setInt(3, partition);
            ps.executeUpdate();
        }
        return removed;
    }

    /** Locks the partition row; its cold high watermark (empty if the row is absent). */
    private static Optional<Long> lockPartition(
            Connection c, Dialect dialect, String topicId, int partition) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT COALESCE(cold_hw, -1) FROM partitions WHERE topic_id = ? AND"
                                + " partition_id = ?"
                                + dialect.forUpdate())) {
            ps.setString(1, topicId);
            ps.setInt(2, partition);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
            }
        }
    }

    /** See {@link Catalog#advanceLogStart} (the cold floor checked by the caller). */
    static LogStartUpdate advanceLogStart(
            Connection c, Dialect dialect, String topic, int partition, long offset, long coldFloor)
            throws SQLException {
        String topicId =
                CommitTransaction.topicId(c, topic)
                        .orElseThrow(() -> new CatalogException("unknown topic '" + topic + "'"));
        Long hw;
        long current;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT cold_hw, log_start FROM partitions WHERE topic_id = ?"
                                + " AND partition_id = ?"
                                + dialect.forUpdate())) {
            ps.setString(1, topicId);
            ps.setInt(2, partition);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new CatalogException("unknown partition " + topic + "-" + partition);
                }
                long v = rs.getLong(1);
                hw = rs.wasNull() ? null : v;
                current = Math.max(0, rs.getLong(2));
            }
        }
        long start = Math.max(current, offset);
        List<ColdObject> removed =
                CatalogQueries.queryObjects(
                        c,
                        topic,
                        partition,
                        " AND o.last_offset < ? ORDER BY o.first_offset",
                        start);
        try (PreparedStatement ps =
                c.prepareStatement(
                        "DELETE FROM cold_objects WHERE topic_id = ? AND"
                                + " partition_id = ? AND last_offset < ?")) {
            ps.setString(1, topicId);
            ps.setInt(2, partition);
            ps.setLong(3, start);
            ps.executeUpdate();
        }
        // Also when nothing was ever committed: an upload of offsets below the
        // floor, under way now, must then conflict rather than commit a range the
        // hot tier is deleting (the next object could not follow it without a gap).
        Long newHw = hw == null || hw < coldFloor ? Long.valueOf(coldFloor) : hw;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "UPDATE partitions SET log_start = ?, cold_hw = ?,"
                                + " cold_log_start = COALESCE((SELECT"
                                + " MIN(o.first_offset) FROM cold_objects o WHERE"
                                + " o.topic_id = ? AND o.partition_id = ?), ?)"
                                + " WHERE topic_id = ? AND partition_id = ?")) {
            ps.setLong(1, start);
            if (newHw == null) {
                ps.setNull(2, java.sql.Types.BIGINT);
            } else {
                ps.setLong(2, newHw);
            }
            ps.setString(3, topicId);
            ps.setInt(4, partition);
            if (newHw == null) {
                ps.setNull(5, java.sql.Types.BIGINT);
            } else {
                ps.setLong(5, newHw);
            }
            ps.setString(6, topicId);
            ps.setInt(7, partition);
            ps.executeUpdate();
        }
        return new LogStartUpdate(start, removed);
    }
}

package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The catalog's row mapping: plain SQL shared by every dialect, run on a connection the caller owns
 * (and, for writes, inside the caller's transaction). Stateless, so thread-safe.
 */
final class CatalogQueries {
    private CatalogQueries() {}

    static final String OBJECT_COLUMNS =
            "first_offset, last_offset, min_ts, max_ts, record_count, size_bytes, object_key,"
                    + " created_at";

    /** {@link #OBJECT_COLUMNS} qualified with a table alias. */
    static String objectColumns(String alias) {
        return alias + "." + OBJECT_COLUMNS.replace(", ", ", " + alias + ".");
    }

    /** The partition's state read with {@code c}, empty if the topic or partition is unknown. */
    static Optional<PartitionState> readPartitionState(Connection c, String topic, int partition)
            throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT p.cold_hw, p.cold_log_start, p.log_start, p.cold_cleaned,"
                                + " p.last_cold_cleaning,"
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
                long logStart = Math.max(0, rs.getLong(3)); // NULL reads as 0
                long cleaned = Math.max(0, rs.getLong(4)); // NULL reads as 0
                long lastCleaning = rs.getLong(5);
                if (rs.wasNull()) {
                    lastCleaning = -1;
                }
                long count = rs.getLong(6);
                long bytes = rs.getLong(7);
                if (never) {
                    hw = 0;
                }
                if (noStart || count == 0) {
                    start = hw;
                }
                return Optional.of(
                        new PartitionState(
                                topic,
                                partition,
                                hw,
                                start,
                                count,
                                bytes,
                                logStart,
                                cleaned,
                                lastCleaning));
            }
        }
    }

    /** As {@link #readTopic}, for updates of a topic that must exist. */
    static TopicRecord requireTopic(Connection c, String name) throws SQLException {
        return readTopic(c, name)
                .orElseThrow(() -> new CatalogException("unknown topic '" + name + "'"));
    }

    static Optional<TopicRecord> readTopic(Connection c, String name) throws SQLException {
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

    static void insertPartitions(Connection c, UUID topicId, int from, int to) throws SQLException {
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

    static void writeConfigs(Connection c, UUID topicId, Map<String, String> configs)
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

    static Optional<ColdObject> firstObject(
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

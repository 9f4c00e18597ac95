package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * One {@link Catalog#commit}: a conditional append to a partition's object list.
 *
 * <p>Steps, in one transaction: resolve the topic; lock the partition row and read its cold high
 * watermark ({@code cold_hw}, NULL before the first commit); if the object's key is already
 * committed with the same range, succeed without writing; refuse a first offset other than the
 * watermark; advance the watermark with a compare-and-set {@code UPDATE ... WHERE cold_hw = ?} (so
 * even without the row lock, two racing writers cannot both succeed); insert the object row (its
 * primary key {@code (topic, partition, first_offset)} is a last guard against overlap); commit.
 *
 * <p>Failure classification: anything before the database's COMMIT is a {@link
 * CommitFailedException} or {@link CommitConflictException} (the transaction is rolled back or dies
 * with its connection, so nothing was written); a failure of COMMIT itself is a {@link
 * CommitStateUnknownException}.
 *
 * <p>Single use; not thread-safe (runs under {@link JdbcCatalog}'s lock).
 */
final class CommitTransaction {
    private final JdbcCatalog catalog;
    private final ColdObject obj;

    CommitTransaction(JdbcCatalog catalog, ColdObject obj) {
        this.catalog = catalog;
        this.obj = obj;
    }

    CommitResult run() {
        try {
            return catalog.call(this::attempt);
        } catch (CommitFailedException | CommitStateUnknownException e) {
            throw e;
        } catch (CatalogException e) {
            // SQL failure before the commit point (including failing to connect): nothing written.
            throw new CommitFailedException(
                    "commit of " + obj.key() + " failed: " + e.getMessage(), e);
        }
    }

    private CommitResult attempt(Connection c) throws SQLException {
        Dialect dialect = catalog.dialect();
        dialect.begin(c);
        boolean finished = false;
        try {
            CommitResult result = prepare(c);
            if (result == CommitResult.ALREADY_COMMITTED) {
                dialect.rollback(c);
                finished = true;
                return result;
            }
            try {
                dialect.commit(c);
            } catch (SQLException e) {
                finished = true; // the outcome is unknown: do not pretend to roll back
                catalog.dropConnection();
                throw new CommitStateUnknownException(
                        "commit of "
                                + obj.key()
                                + " ("
                                + obj.describeRange()
                                + ") has an unknown outcome: "
                                + e.getMessage(),
                        e);
            }
            finished = true;
            return CommitResult.COMMITTED;
        } catch (CasLost e) {
            catalog.rollbackQuietly(c);
            finished = true;
            throw conflict(c, "the cold high watermark moved during the commit");
        } catch (SQLException e) {
            if (dialect.isUniqueViolation(e)) {
                catalog.rollbackQuietly(c);
                finished = true;
                throw conflict(c, "another writer committed the range first");
            }
            throw e;
        } finally {
            if (!finished) {
                catalog.rollbackQuietly(c);
            }
        }
    }

    /** Everything up to the commit point; returns ALREADY_COMMITTED or COMMITTED (pending). */
    private CommitResult prepare(Connection c) throws SQLException {
        String topicId =
                topicId(c, obj.topic())
                        .orElseThrow(
                                () ->
                                        new CommitFailedException(
                                                "commit of "
                                                        + obj.key()
                                                        + ": unknown topic '"
                                                        + obj.topic()
                                                        + "'"));
        Long hw;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT cold_hw FROM partitions WHERE topic_id = ? AND partition_id = ?"
                                + catalog.dialect().forUpdate())) {
            ps.setString(1, topicId);
            ps.setInt(2, obj.partition());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new CommitFailedException(
                            "commit of "
                                    + obj.key()
                                    + ": unknown partition "
                                    + obj.topic()
                                    + "-"
                                    + obj.partition());
                }
                long v = rs.getLong(1);
                hw = rs.wasNull() ? null : v;
            }
        }
        Optional<ColdObject> sameKey = objectByKey(c, obj.key());
        if (sameKey.isPresent()) {
            if (sameKey.get().sameObjectAs(obj)) {
                return CommitResult.ALREADY_COMMITTED;
            }
            throw new CommitFailedException(
                    "commit of "
                            + obj.key()
                            + ": that key is already committed for "
                            + sameKey.get().describeRange());
        }
        if (hw != null && obj.firstOffset() != hw) {
            throw conflict(
                    hw,
                    false,
                    obj.firstOffset() > hw
                            ? "gap: the object starts after the cold high watermark"
                            : "overlap: the object starts below the cold high watermark");
        }
        String cas =
                "UPDATE partitions SET cold_hw = ?, cold_log_start = COALESCE(cold_log_start, ?)"
                        + " WHERE topic_id = ? AND partition_id = ? AND "
                        + (hw == null ? "cold_hw IS NULL" : "cold_hw = ?");
        int updated;
        try (PreparedStatement ps = c.prepareStatement(cas)) {
            ps.setLong(1, obj.nextOffset());
            ps.setLong(2, obj.firstOffset());
            ps.setString(3, topicId);
            ps.setInt(4, obj.partition());
            if (hw != null) {
                ps.setLong(5, hw);
            }
            updated = ps.executeUpdate();
        }
        if (updated != 1) {
            // Cannot happen while the row lock holds; the watermark is re-read after the rollback.
            throw new CasLost();
        }
        try (PreparedStatement ps =
                c.prepareStatement(
                        "INSERT INTO cold_objects (topic_id, partition_id, "
                                + CatalogQueries.OBJECT_COLUMNS
                                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, topicId);
            ps.setInt(2, obj.partition());
            ps.setLong(3, obj.firstOffset());
            ps.setLong(4, obj.lastOffset());
            ps.setLong(5, obj.minTimestamp());
            ps.setLong(6, obj.maxTimestamp());
            ps.setLong(7, obj.recordCount());
            ps.setLong(8, obj.sizeInBytes());
            ps.setString(9, obj.key());
            ps.setLong(10, obj.createdAt().toEpochMilli());
            ps.executeUpdate();
        }
        return CommitResult.COMMITTED;
    }

    /**
     * A conflict carrying the watermark as re-read with {@code c} after the transaction ended (-1
     * if it cannot be read).
     */
    private CommitConflictException conflict(Connection c, String why) {
        Optional<PartitionState> state;
        try {
            state = CatalogQueries.readPartitionState(c, obj.topic(), obj.partition());
        } catch (SQLException | RuntimeException e) {
            state = Optional.empty();
        }
        long hw = state.map(PartitionState::coldHighWatermark).orElse(-1L);
        boolean empty = state.map(PartitionState::empty).orElse(false);
        return conflict(hw, empty, why);
    }

    private CommitConflictException conflict(long hw, boolean empty, String why) {
        return new CommitConflictException(
                "commit of "
                        + obj.key()
                        + " ("
                        + obj.describeRange()
                        + ") refused, "
                        + why
                        + "; cold high watermark is "
                        + (empty ? "unset (no object yet)" : Long.toString(hw)),
                hw,
                empty);
    }

    static Optional<String> topicId(Connection c, String topic) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM topics WHERE name = ?")) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    private static Optional<ColdObject> objectByKey(Connection c, String key) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT "
                                + CatalogQueries.objectColumns("o")
                                + ", t.name, o.partition_id FROM cold_objects o JOIN topics t ON"
                                + " t.id = o.topic_id WHERE o.object_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(CatalogQueries.readObject(rs, rs.getString(9), rs.getInt(10)));
            }
        }
    }

    /** The compare-and-set update matched no row. */
    private static final class CasLost extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CasLost() {
            super(null, null, false, false);
        }
    }
}

package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The frame of a conditional write of a partition's object list ({@link CommitTransaction}, {@link
 * ReplaceTransaction}): one transaction whose checks ({@link #prepare}) lock the partition row
 * first, then the database's COMMIT as the commit point.
 *
 * <p>Failure classification: anything before the database's COMMIT is a {@link
 * CommitFailedException} or {@link CommitConflictException} (the transaction is rolled back or dies
 * with its connection, so nothing was written; a unique-key violation is a conflict: another writer
 * took the range or key first); a failure of COMMIT itself is a {@link
 * CommitStateUnknownException}. A conflict carries the partition's cold high watermark re-read
 * after the rollback.
 *
 * <p>Single use; not thread-safe (runs under {@link JdbcCatalog}'s lock).
 */
abstract class CatalogCommit {
    final JdbcCatalog catalog;
    private final String topic;
    private final int partition;

    CatalogCommit(JdbcCatalog catalog, String topic, int partition) {
        this.catalog = catalog;
        this.topic = topic;
        this.partition = partition;
    }

    /** What a message calls this write, e.g. {@code commit of <key>}. */
    abstract String subject();

    /** The offsets it writes, e.g. {@code t-0 offsets 0..9}. */
    abstract String range();

    /**
     * Everything up to the commit point, in the open transaction: returns {@link
     * CommitResult#ALREADY_COMMITTED} (nothing to write; rolled back) or {@link
     * CommitResult#COMMITTED} (written, to be committed); throws {@link CommitFailedException},
     * {@link CommitConflictException} or {@link CasLost}.
     */
    abstract CommitResult prepare(Connection c) throws SQLException;

    final CommitResult run() {
        try {
            return catalog.call(this::attempt);
        } catch (CommitFailedException | CommitStateUnknownException e) {
            throw e;
        } catch (CatalogException e) {
            // SQL failure before the commit point (including failing to connect): nothing written.
            throw new CommitFailedException(subject() + " failed: " + e.getMessage(), e);
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
                        subject() + " (" + range() + ") has an unknown outcome: " + e.getMessage(),
                        e);
            }
            finished = true;
            return CommitResult.COMMITTED;
        } catch (CasLost e) {
            catalog.rollbackQuietly(c);
            finished = true;
            throw conflict(c, e.getMessage());
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

    /**
     * A conflict carrying the watermark as re-read with {@code c} after the transaction ended (-1
     * if it cannot be read).
     */
    final CommitConflictException conflict(Connection c, String why) {
        Optional<PartitionState> state;
        try {
            state = CatalogQueries.readPartitionState(c, topic, partition);
        } catch (SQLException | RuntimeException e) {
            state = Optional.empty();
        }
        long hw = state.map(PartitionState::coldHighWatermark).orElse(-1L);
        boolean empty = state.map(PartitionState::empty).orElse(false);
        return conflict(hw, empty, why);
    }

    final CommitConflictException conflict(long hw, boolean empty, String why) {
        return new CommitConflictException(
                subject()
                        + " ("
                        + range()
                        + ") refused, "
                        + why
                        + "; cold high watermark is "
                        + (empty ? "unset (no object yet)" : Long.toString(hw)),
                hw,
                empty);
    }

    /** The topic's id, to write rows with. */
    final String requireTopicId(Connection c) throws SQLException {
        return topicId(c, topic)
                .orElseThrow(
                        () ->
                                new CommitFailedException(
                                        subject() + ": unknown topic '" + topic + "'"));
    }

    final CommitFailedException unknownPartition() {
        return new CommitFailedException(
                subject() + ": unknown partition " + topic + "-" + partition);
    }

    static Optional<String> topicId(Connection c, String topic) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM topics WHERE name = ?")) {
            ps.setString(1, topic);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        }
    }

    /** The committed object of key {@code key}, in whatever partition. */
    static Optional<ColdObject> objectByKey(Connection c, String key) throws SQLException {
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

    /** Inserts the row of {@code obj} into {@code cold_objects}. */
    static void insertObject(Connection c, String topicId, ColdObject obj) throws SQLException {
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
    }

    /**
     * A conditional update matched no row, or a checked row was gone: the state moved under the
     * transaction. The message says why.
     */
    static final class CasLost extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CasLost(String why) {
            super(why, null, false, false);
        }
    }
}

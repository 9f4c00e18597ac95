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
 * Failures are classified as {@link CatalogCommit} says.
 *
 * <p>Single use; not thread-safe (runs under {@link JdbcCatalog}'s lock).
 */
final class CommitTransaction extends CatalogCommit {
    private final ColdObject obj;

    CommitTransaction(JdbcCatalog catalog, ColdObject obj) {
        super(catalog, obj.topic(), obj.partition());
        this.obj = obj;
    }

    @Override
    String subject() {
        return "commit of " + obj.key();
    }

    @Override
    String range() {
        return obj.describeRange();
    }

    @Override
    CommitResult prepare(Connection c) throws SQLException {
        String topicId = requireTopicId(c);
        Long hw;
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT cold_hw FROM partitions WHERE topic_id = ? AND partition_id = ?"
                                + catalog.dialect().forUpdate())) {
            ps.setString(1, topicId);
            ps.setInt(2, obj.partition());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw unknownPartition();
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
                    subject()
                            + ": that key is already committed for "
                            + sameKey.get().describeRange());
        }
        if (RetiredObjects.isRetired(c, obj.key())) {
            // A replace-commit took it out after it was committed: this is a late retry.
            return CommitResult.ALREADY_COMMITTED;
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
            throw new CasLost("the cold high watermark moved during the commit");
        }
        insertObject(c, topicId, obj);
        return CommitResult.COMMITTED;
    }

    /** The topic's id, if the topic exists. */
    static Optional<String> topicId(Connection c, String topic) throws SQLException {
        return CatalogCommit.topicId(c, topic);
    }
}

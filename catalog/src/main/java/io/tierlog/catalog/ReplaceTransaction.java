package io.tierlog.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * One {@link Catalog#replaceObjects}: a run of a partition's committed objects replaced by one
 * object of the same range, conditional on the run being exactly as the caller saw it.
 *
 * <p>Steps, in one transaction: resolve the topic; lock the partition row (every writer of a
 * partition's object list locks it first, so writers of one partition serialise and cannot
 * deadlock); if the replacement's key is committed with the same range and no replaced key is, or
 * the replacement is itself retired (a later compaction replaced it), succeed without writing (a
 * retry after an unknown outcome); read the replaced objects by key and refuse unless each is
 * committed in this partition, they are adjacent in the order given, no other object lies in their
 * range, and the replacement's range is exactly theirs; delete each replaced row, checking that it
 * was there (a guard for databases where the row lock is not taken); record each as retired; insert
 * the replacement (the primary key on the first offset and the unique key are last guards); record
 * the cleaned offset and cleaning time (not for a merge, {@link Catalog#mergeObjects}); commit. The
 * cold high watermark and the cold log start do not change: the replacement starts and ends where
 * the run did. Failures are classified as {@link CatalogCommit} says.
 *
 * <p>Single use; not thread-safe (runs under {@link JdbcCatalog}'s lock).
 */
final class ReplaceTransaction extends CatalogCommit {
    private final String topic;
    private final int partition;
    private final List<String> replacedKeys;
    private final ColdObject replacement;
    private final long cleanedOffset; // NO_CLEANING: a merge, the cleaning state is left alone
    private final long atMs;

    /** The {@code cleanedOffset} of a merge ({@link Catalog#mergeObjects}): nothing recorded. */
    static final long NO_CLEANING = -1;

    ReplaceTransaction(
            JdbcCatalog catalog,
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long cleanedOffset,
            long atMs) {
        super(catalog, topic, partition);
        if (replacedKeys.isEmpty()) {
            throw new IllegalArgumentException("no object to replace by " + replacement.key());
        }
        if (new HashSet<>(replacedKeys).size() != replacedKeys.size()) {
            throw new IllegalArgumentException("a replaced key is given twice: " + replacedKeys);
        }
        if (!replacement.topic().equals(topic) || replacement.partition() != partition) {
            throw new IllegalArgumentException(
                    "replacement "
                            + replacement.key()
                            + " is of "
                            + replacement.topic()
                            + "-"
                            + replacement.partition()
                            + ", not of "
                            + topic
                            + "-"
                            + partition);
        }
        if (replacedKeys.contains(replacement.key())) {
            throw new IllegalArgumentException(
                    "an object cannot replace itself: " + replacement.key());
        }
        if (cleanedOffset < 0 && cleanedOffset != NO_CLEANING) {
            throw new IllegalArgumentException("negative cleaned offset " + cleanedOffset);
        }
        this.topic = topic;
        this.partition = partition;
        this.replacedKeys = List.copyOf(replacedKeys);
        this.replacement = replacement;
        this.cleanedOffset = cleanedOffset;
        this.atMs = atMs;
    }

    @Override
    String subject() {
        return (cleanedOffset == NO_CLEANING ? "merge-commit of " : "replace-commit of ")
                + replacement.key()
                + " for "
                + replacedKeys.size()
                + " object"
                + (replacedKeys.size() == 1 ? "" : "s");
    }

    @Override
    String range() {
        return replacement.describeRange();
    }

    @Override
    CommitResult prepare(Connection c) throws SQLException {
        String topicId = requireTopicId(c);
        try (PreparedStatement ps =
                c.prepareStatement(
                        "SELECT cold_hw FROM partitions WHERE topic_id = ? AND partition_id = ?"
                                + catalog.dialect().forUpdate())) {
            ps.setString(1, topicId);
            ps.setInt(2, partition);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw unknownPartition();
                }
            }
        }
        List<ColdObject> run = new ArrayList<>(replacedKeys.size());
        for (String key : replacedKeys) {
            Optional<ColdObject> o = objectByKey(c, key);
            if (o.isPresent()
                    && (!o.get().topic().equals(topic) || o.get().partition() != partition)) {
                throw new CommitFailedException(
                        subject() + ": " + key + " is an object of " + o.get().describeRange());
            }
            o.ifPresent(run::add);
        }
        Optional<CommitResult> done = alreadyDone(c, run.isEmpty());
        if (done.isPresent()) {
            return done.get();
        }
        checkRun(c, run);
        for (ColdObject o : run) {
            try (PreparedStatement ps =
                    c.prepareStatement("DELETE FROM cold_objects WHERE object_key = ?")) {
                ps.setString(1, o.key());
                if (ps.executeUpdate() != 1) {
                    throw new CasLost(o.key() + " was removed during the replace-commit");
                }
            }
            RetiredObjects.insert(c, topic, partition, o.key(), atMs);
        }
        insertObject(c, topicId, replacement);
        if (cleanedOffset != NO_CLEANING) {
            RetiredObjects.recordCleaning(c, topicId, partition, cleanedOffset, atMs);
        }
        return CommitResult.COMMITTED;
    }

    /**
     * ALREADY_COMMITTED if an earlier attempt won: the replacement stands (committed with the same
     * range, none of the run left) or was itself replaced since (retired). Empty to go on.
     */
    private Optional<CommitResult> alreadyDone(Connection c, boolean runGone) throws SQLException {
        Optional<ColdObject> same = objectByKey(c, replacement.key());
        if (same.isPresent()) {
            if (!same.get().sameObjectAs(replacement)) {
                throw new CommitFailedException(
                        subject()
                                + ": that key is already committed for "
                                + same.get().describeRange());
            }
            if (!runGone) {
                // The replacement's range covers the run: both cannot stand.
                throw new CommitFailedException(
                        subject() + ": the replacement is committed but replaced objects are too");
            }
            return Optional.of(CommitResult.ALREADY_COMMITTED);
        }
        if (RetiredObjects.isRetired(c, replacement.key())) {
            return Optional.of(CommitResult.ALREADY_COMMITTED);
        }
        return Optional.empty();
    }

    /**
     * Refuses (a conflict) unless {@code run} is every replaced key, adjacent, exactly the range.
     */
    private void checkRun(Connection c, List<ColdObject> run) throws SQLException {
        if (run.size() != replacedKeys.size()) {
            List<String> missing = new ArrayList<>(replacedKeys);
            run.forEach(o -> missing.remove(o.key()));
            throw conflict(
                    c,
                    "replaced objects are no longer committed (another compaction, retention or"
                            + " DeleteRecords changed the partition first): "
                            + missing);
        }
        for (int i = 1; i < run.size(); i++) {
            if (run.get(i).firstOffset() != run.get(i - 1).nextOffset()) {
                throw conflict(
                        c,
                        "replaced objects are not adjacent in the order given: "
                                + run.get(i - 1).key()
                                + " ends at "
                                + run.get(i - 1).lastOffset()
                                + ", "
                                + run.get(i).key()
                                + " starts at "
                                + run.get(i).firstOffset());
            }
        }
        long first = run.get(0).firstOffset();
        long last = run.get(run.size() - 1).lastOffset();
        if (replacement.firstOffset() != first || replacement.lastOffset() != last) {
            throw conflict(
                    c,
                    "the range does not match the replaced objects' offsets "
                            + first
                            + ".."
                            + last);
        }
        List<ColdObject> inRange =
                CatalogQueries.queryObjects(
                        c,
                        topic,
                        partition,
                        " AND o.last_offset >= ? AND o.first_offset <= ?",
                        first,
                        last);
        if (inRange.size() != run.size()) {
            throw conflict(c, "other objects lie in the replaced range");
        }
    }
}

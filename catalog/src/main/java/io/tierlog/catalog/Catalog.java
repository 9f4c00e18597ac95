package io.tierlog.catalog;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The source of truth for what the cold tier holds: topics, per-partition cold state, and the
 * ordered, contiguous list of committed cold objects of each partition.
 *
 * <p>Contract: every method is one transaction. Commits are conditional on the partition's current
 * cold high watermark (compare-and-set), so several processes sharing one catalog (a SQLite file or
 * a PostgreSQL database) never commit overlapping ranges: exactly one wins, the others get a {@link
 * CommitConflictException}. "Not found" is an empty {@link Optional} (or an empty list), never an
 * exception, except for writes to an unknown topic or partition. Failures are unchecked {@link
 * CatalogException}s. The caller closes the catalog.
 *
 * <p>Thread-safe.
 */
public interface Catalog extends AutoCloseable {

    /**
     * Opens (creating if needed) the catalog at {@code jdbcUrl} and migrates its schema to the
     * latest version. {@code jdbc:sqlite:<file>} (WAL mode; parent directories are created) or
     * {@code jdbc:postgresql:...}.
     */
    static Catalog open(String jdbcUrl) throws CatalogException {
        return open(jdbcUrl, Map.of());
    }

    /**
     * Like {@link #open(String)}, with extra JDBC connection properties (for example {@code user}
     * and {@code password}).
     */
    static Catalog open(String jdbcUrl, Map<String, String> connectionProperties)
            throws CatalogException {
        return JdbcCatalog.open(jdbcUrl, connectionProperties);
    }

    /** How {@link #open(String, Map, OpenMode)} treats the database it is given. */
    enum OpenMode {
        /** Creates the database (SQLite file, schema, id) if needed and migrates it. */
        CREATE,
        /**
         * The database must exist and hold a tierlog schema (a missing SQLite file or an empty
         * database is a {@link CatalogUnavailableException}, and nothing is created); migrates it.
         */
        EXISTING,
        /**
         * As {@link #EXISTING}, and nothing is ever written: no migration, SQLite opened with
         * read-only flags. For {@code inspect} and {@code verify}.
         */
        READ_ONLY
    }

    /**
     * Opens the catalog at {@code jdbcUrl} as {@code mode} says.
     *
     * @throws CatalogUnavailableException if {@code mode} is not {@link OpenMode#CREATE} and the
     *     catalog does not exist or is empty
     */
    static Catalog open(String jdbcUrl, Map<String, String> connectionProperties, OpenMode mode)
            throws CatalogException {
        return JdbcCatalog.open(jdbcUrl, connectionProperties, mode);
    }

    /**
     * The catalog's identity: a UUID stored in the catalog when it was created (or first opened by
     * a tierlog that knows ids), as read when it was opened.
     *
     * @throws CatalogUnavailableException for a read-only catalog too old to have one
     */
    UUID id();

    /**
     * Proves the catalog is still there and durable, and returns its id as stored now: for a SQLite
     * file, that the files the connection holds open are still the ones at the path (reconnecting
     * where a fresh connection repairs it), then the id is read from the database.
     *
     * @throws CatalogUnavailableException naming the catalog and what is wrong
     */
    UUID durableId();

    /** What to call the catalog in a message: the SQLite file, or the URL without parameters. */
    String describe();

    /**
     * Creates a topic with partitions {@code 0..partitions-1}. Idempotent: if a topic of that name
     * exists with the same partition count and configs, returns it.
     *
     * @throws TopicConflictException if it exists with a different partition count or configs
     */
    TopicRecord createTopic(String name, int partitions, Map<String, String> configs);

    /**
     * Makes sure a topic exists with at least {@code partitions} partitions: creates it with no
     * configs if absent, else raises its partition count (never lowers it, never touches its
     * configs). The one way a process registers a partition it found on disk (an offload of a log
     * dir, an orphan partition folder). Idempotent; safe against a concurrent creator.
     */
    default TopicRecord ensureTopic(String name, int partitions) {
        if (topic(name).isEmpty()) {
            try {
                return createTopic(name, partitions, Map.of());
            } catch (TopicConflictException e) {
                // created concurrently, or exists with other settings: raise it below
            }
        }
        return ensurePartitions(name, partitions);
    }

    /**
     * Imports a topic known elsewhere under a fixed id (the topic registry of an older release), in
     * one transaction: absent, it is created with {@code id}; present, it takes {@code id} (its
     * partitions and cold objects keep their state), at least {@code partitions} partitions and
     * {@code configs}. Idempotent: importing the same topic again changes nothing.
     */
    TopicRecord importTopic(UUID id, String name, int partitions, Map<String, String> configs);

    /** The topic named {@code name}, if any. */
    Optional<TopicRecord> topic(String name);

    /** All topics, ordered by name. */
    List<TopicRecord> topics();

    /**
     * Deletes a topic with its partitions and object rows; its objects become orphans for the
     * sweeper. No-op if absent.
     */
    void deleteTopic(String name);

    /**
     * Raises a topic's partition count (Kafka's CreatePartitions). No-op if it already has at least
     * {@code partitions}; never lowers it.
     *
     * @throws CatalogException if the topic does not exist
     */
    TopicRecord ensurePartitions(String name, int partitions);

    /**
     * Replaces a topic's configs.
     *
     * @throws CatalogException if the topic does not exist
     */
    TopicRecord updateTopicConfigs(String name, Map<String, String> configs);

    /**
     * The cold state of one partition.
     *
     * @throws CatalogException if the topic or partition does not exist
     */
    PartitionState partitionState(String topic, int partition);

    /**
     * Appends {@code obj} if its first offset equals the partition's cold high watermark (or, while
     * the partition has no object yet, at any first offset), advancing the watermark to {@code
     * obj.lastOffset() + 1}, in one transaction. Committing the same object (same key and range)
     * again is a no-op success, also once a {@link #replaceObjects} has retired it.
     *
     * @return {@link CommitResult#COMMITTED} or {@link CommitResult#ALREADY_COMMITTED}
     * @throws CommitConflictException gap or overlap, or another writer committed first: nothing
     *     was written
     * @throws CommitFailedException unknown topic/partition or a failure before the commit point:
     *     nothing was written, the object may be deleted
     * @throws CommitStateUnknownException the outcome is unknown: never delete the object
     */
    CommitResult commit(ColdObject obj);

    /** The committed object whose range holds {@code offset}, if any. */
    Optional<ColdObject> objectFor(String topic, int partition, long offset);

    /**
     * The first committed object (lowest offsets) holding a record with timestamp {@code >=
     * timestampMs}, if any.
     */
    Optional<ColdObject> firstObjectReaching(String topic, int partition, long timestampMs);

    /** The committed objects of a partition, ordered by offset (empty for an unknown partition). */
    List<ColdObject> objects(String topic, int partition);

    /**
     * Removes from the catalog the objects of a partition that lie entirely below {@code offset}
     * (cold retention) and advances the cold log start offset. The removed objects are returned so
     * the caller can delete them from the store; if it does not, the sweeper will.
     */
    List<ColdObject> removeObjectsBelow(String topic, int partition, long offset);

    /**
     * Moves a partition's log start offset up to {@code offset} (Kafka's DeleteRecords), in one
     * transaction: records {@code max(current, offset)} as the log start; removes the objects lying
     * wholly below it (an object partly below stays, and readers skip its records below the start)
     * and advances the cold log start; and, when the cold high watermark is below {@code coldFloor}
     * (or not set: nothing was ever committed), sets it to {@code coldFloor}, since the offsets
     * between are deleted and the next object must start where the hot log then does (an upload of
     * lower offsets under way then conflicts instead of committing). Never lowers anything, so it
     * is idempotent: a repeated call returns the same log start and no objects.
     *
     * @param coldFloor at most {@code offset}: the first offset the hot tier keeps
     * @throws CatalogException if the topic or partition does not exist
     */
    LogStartUpdate advanceLogStart(String topic, int partition, long offset, long coldFloor);

    /**
     * Replaces a run of committed objects of one partition by one object holding the same offset
     * range (a compacted copy of the run), in one transaction, so the partition's offset ranges
     * stay contiguous: the replaced objects leave the partition's list, {@code replacement} takes
     * their place, the cold high watermark and cold log start do not move, and each replaced object
     * is recorded as retired at {@code atMs} (see {@link #retiredObjects}); the partition's cold
     * cleaned offset becomes {@code max(current, cleanedOffset)} and its last cold cleaning {@code
     * atMs}. The same exactly-one-winner and unknown-outcome rules as {@link #commit} apply.
     *
     * @param replacedKeys the keys of the replaced objects: committed, adjacent, in offset order
     * @param replacement the compacted object: same topic and partition, its range exactly the
     *     first replaced object's first offset to the last one's last offset, a key not yet
     *     committed
     * @param cleanedOffset the offset below which the partition's cold tier is compacted after this
     *     commit (the end of the cleaned run of a compaction pass; a pass committing several runs
     *     passes the current value for all but its last)
     * @param atMs epoch millis: the retirement time of the replaced objects and the cleaning time
     * @return {@link CommitResult#COMMITTED}, or {@link CommitResult#ALREADY_COMMITTED} when {@code
     *     replacement} already stands in place of the run, or was itself replaced since (a retry
     *     after an unknown outcome); nothing is written then
     * @throws CommitConflictException the run is not committed as given (another compaction,
     *     retention or DeleteRecords changed it first), or the range does not match: nothing was
     *     written
     * @throws CommitFailedException unknown topic/partition or a failure before the commit point:
     *     nothing was written, the replacement may be deleted
     * @throws CommitStateUnknownException the outcome is unknown: never delete the replacement
     */
    CommitResult replaceObjects(
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long cleanedOffset,
            long atMs);

    /**
     * Replaces a run of small committed objects of one partition by one object holding exactly
     * their batches (the compactor's small-object merge), in one transaction: as {@link
     * #replaceObjects} (the same checks, retirement of the replaced objects at {@code atMs},
     * exactly-one-winner and unknown-outcome rules), except that the partition's cold cleaned
     * offset and last cold cleaning are left alone, since a merge drops nothing and is not a
     * compaction.
     *
     * <p>A catalog that wraps another (a test's fault injector) delegates it; the default throws,
     * and the compactor then does not merge.
     *
     * @param replacedKeys the keys of the merged objects: committed, adjacent, in offset order
     * @param replacement the merged object: same topic and partition, its range exactly the first
     *     merged object's first offset to the last one's last offset, a key not yet committed
     * @param atMs epoch millis: the retirement time of the replaced objects
     * @return {@link CommitResult#COMMITTED}, or {@link CommitResult#ALREADY_COMMITTED} when {@code
     *     replacement} already stands in place of the run, or was itself replaced since
     * @throws CommitConflictException the run is not committed as given: nothing was written
     * @throws CommitFailedException unknown topic/partition or a failure before the commit point:
     *     nothing was written, the replacement may be deleted
     * @throws CommitStateUnknownException the outcome is unknown: never delete the replacement
     * @throws UnsupportedOperationException for a catalog that cannot merge
     */
    default CommitResult mergeObjects(
            String topic,
            int partition,
            List<String> replacedKeys,
            ColdObject replacement,
            long atMs) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot merge objects");
    }

    /**
     * Objects that {@link #replaceObjects} or {@link #mergeObjects} took out of a partition,
     * retired at or before {@code retiredAtOrBeforeMs}, oldest first. They are no longer referenced
     * by any partition but may still be read by a reader that resolved them before; the sweeper
     * deletes them from the store once their grace period passed, then calls {@link
     * #forgetRetired}. Until then they are not orphans.
     */
    List<RetiredObject> retiredObjects(long retiredAtOrBeforeMs);

    /** Forgets a retired object (after it was deleted from the store). Idempotent. */
    void forgetRetired(String key);

    /** The keys of every committed object of every topic, for the orphan sweeper. */
    List<String> allObjectKeys();

    /**
     * The schema registry's rows in this catalog, so every process sharing the catalog shares the
     * registry. A catalog that wraps another (a test's fault injector) delegates it.
     *
     * @throws UnsupportedOperationException for a catalog without one
     */
    default SchemaStore schemas() {
        throw new UnsupportedOperationException(getClass().getName() + " has no schema store");
    }

    /** Releases the connection(s). Idempotent. */
    @Override
    void close();
}

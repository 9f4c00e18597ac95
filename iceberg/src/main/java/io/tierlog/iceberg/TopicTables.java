package io.tierlog.iceberg;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Every topic an Iceberg table whose data files are the topic's cold objects, registered in place.
 *
 * <p>The truth is tierlog's catalog: a registrar thread ({@code tierlog-iceberg}) reconciles each
 * enabled topic's table with the catalog's committed objects, one validated table commit per round
 * (files added only when absent, removed only when present, refused when the table moved since it
 * was read), so every committed object is in the table exactly once whatever the moment of a crash,
 * and a restart resumes from what the table itself records. A table that is down or slow costs
 * freshness only: it never blocks offload, reads or appends.
 *
 * <p>Thread-safe.
 */
public interface TopicTables extends AutoCloseable {

    /**
     * Opens the tables read-write and starts the registrar: creates the Iceberg catalog (and {@code
     * <data.dir>/iceberg.db}) if missing, loads every enabled topic's table (creating it when
     * absent) and reconciles it in the background. Failing to reach the Iceberg catalog does not
     * fail the open: the registrar retries, and {@link #state} reports it.
     */
    static TopicTables open(TableSetup setup) {
        return IcebergTopicTables.open(setup, false);
    }

    /**
     * Opens the tables read-write as {@link #open} does, but starts no registrar thread: rounds run
     * only when {@link #sync} or {@link #syncAll} is called (an engine whose background work is
     * off, such as tests driving it by hand, and tools).
     */
    static TopicTables openForeground(TableSetup setup) {
        return IcebergTopicTables.open(setup, false, false);
    }

    /**
     * Opens the tables for reading only ({@code inspect}, {@code verify}): never creates, writes or
     * locks anything (no {@code iceberg.db} is created when there is none: every table then reads
     * as missing), starts no thread.
     */
    static TopicTables openReadOnly(TableSetup setup) {
        return IcebergTopicTables.open(setup, true);
    }

    /**
     * Tables off everywhere ({@code iceberg.enabled=false} as a broker default cannot be undone).
     */
    static TopicTables disabled() {
        return DisabledTopicTables.INSTANCE;
    }

    /** Whether {@code topic} is a table now ({@code iceberg.enabled} of its effective config). */
    boolean enabled(String topic);

    /** An object of {@code topic}-{@code partition} was committed (or replaced): reconcile soon. */
    void onCommitted(String topic, int partition);

    /** Objects of {@code topic} left the catalog (retention, topic delete): reconcile soon. */
    default void onRemoved(String topic) {
        onCommitted(topic, -1);
    }

    /**
     * Reconciles {@code topic}'s table with the catalog now, on the calling thread (waiting for a
     * round under way): what the offload daemon's {@code --once}, retention and tests use.
     *
     * @throws TableException if the table could not be brought in line (catalog down, drift)
     */
    SyncResult sync(String topic);

    /**
     * {@link #sync} for every enabled topic; failures are logged and reported by {@link #state}.
     */
    List<SyncResult> syncAll();

    /**
     * The topic's table as of its last round; empty for a topic that is not a table, or whose table
     * no round has read yet. In memory: never waits on a catalog (the append path asks it).
     */
    Optional<TableState> state(String topic);

    /**
     * Whether the object at {@code key} may be referenced by a table, so must not be deleted from
     * the bucket: it is a live file of a loaded table, part of a commit under way, or belongs to an
     * enabled topic whose table has not been read yet. Quick (in memory).
     */
    boolean pinned(String key);

    /**
     * Removes {@code topic}'s table as the topic is deleted (before its catalog row): drops it when
     * {@code iceberg.drop.table.on.topic.delete} (the metadata files too, never the data files,
     * which the caller deletes), otherwise renames it to {@code <topic>__deleted_<8 hex of the id>}
     * and keeps its objects pinned. Idempotent; a table whose {@code tierlog.topic.id} is not
     * {@code topicId} is left alone.
     *
     * @throws TableException if the catalog could not be reached (the caller retries the delete)
     */
    void dropTable(String topic, UUID topicId);

    /** Checks {@code topic}'s table against the catalog (reads only). */
    TableAudit audit(String topic);

    /** Tells {@code listener} of every table commit; add it before the first commit. */
    void addListener(RegistrationListener listener);

    /** Stops the registrar (a round under way finishes or is abandoned safely) and closes. */
    @Override
    void close();
}

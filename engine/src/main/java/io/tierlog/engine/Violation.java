package io.tierlog.engine;

import org.apache.kafka.common.TopicPartition;

/**
 * A broken invariant found by {@link Verifier}. Immutable, so thread-safe.
 *
 * @param tp the partition (null for a finding about the catalog as a whole)
 * @param kind which invariant
 * @param message what was found, with offsets and object keys
 */
public record Violation(TopicPartition tp, Kind kind, String message) {

    /** The invariants of docs/invariants.md that {@code tierlog verify} checks. */
    public enum Kind {
        /** Cold objects overlap, leave a gap, or disagree with the partition's cold offsets. */
        COLD_NOT_CONTIGUOUS,
        /** Offsets between the cold high watermark and the hot log start are in neither tier. */
        GAP_BETWEEN_TIERS,
        /** A catalogued object is missing from the store or has another size. */
        OBJECT_MISSING,
        /** A catalogued object cannot be read or holds other offsets than the catalog says. */
        OBJECT_UNREADABLE,
        /** Hot and cold hold different records for the same offsets. */
        TIERS_DISAGREE,
        /** A hot segment holds an invalid batch (length, magic, CRC or offsets). */
        HOT_CORRUPT,
        /**
         * Objects in the bucket hold offsets that neither the catalog nor the hot tier holds (a
         * lost or rolled-back catalog): {@code tierlog catalog rebuild} recovers them.
         */
        OBJECTS_NOT_IN_CATALOG,
        /** The catalog is not the one the data dir's {@code catalog.id} names. */
        CATALOG_NOT_OWN,
        /**
         * An object a compaction replaced (retired, waiting for the sweeper) is also a committed
         * object of a partition: the sweeper would delete data the catalog serves.
         */
        RETIRED_STILL_REFERENCED,
        /**
         * A cold object reaches the partition's last stable offset: it may hold data of a
         * transaction still open (offload stops below the LSO, which never moves back), which a
         * {@code read_committed} reader of the cold tier could then see.
         */
        OPEN_TRANSACTION_IN_COLD,
        /**
         * A schema registry entry of the catalog is missing from its copy in the bucket, or differs
         * there: a catalog rebuilt from the bucket would lack it (ids could be handed out twice).
         */
        REGISTRY_NOT_IN_BUCKET,
        /**
         * A committed cold object of a topic that is an Iceberg table is not in the table's current
         * snapshot although it was committed longer than the topic's freshness target ago (a
         * younger one is registration lag, reported as a note only).
         */
        ICEBERG_TABLE_MISSING_OBJECT,
        /** A data file of a topic's table is not a committed object of tierlog's catalog. */
        ICEBERG_TABLE_EXTRA_FILE,
        /** A data file path appears more than once in a table's current snapshot. */
        ICEBERG_TABLE_DUPLICATE,
        /**
         * Someone else wrote the table (a snapshot without tierlog's writer: Spark compaction):
         * registration is paused, Kafka is served from tierlog's catalog regardless.
         */
        ICEBERG_TABLE_DRIFT,
        /** A topic's table could not be read (Iceberg catalog unreachable, metadata missing). */
        ICEBERG_TABLE_UNAVAILABLE
    }

    @Override
    public String toString() {
        return (tp == null ? "catalog" : tp.toString()) + " " + kind + ": " + message;
    }
}

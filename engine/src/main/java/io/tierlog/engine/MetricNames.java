package io.tierlog.engine;

/**
 * Every metric the engine registers, by Micrometer name (Prometheus turns dots into underscores and
 * adds {@code _total}, {@code _seconds}, ... suffixes). Tags: {@code tier} = {@code hot}|{@code
 * cold}; {@code op} = {@code put}|{@code get}|{@code head}|{@code list}|{@code delete}; {@code
 * result} = {@code hit}|{@code miss}.
 *
 * <p>Constants only; thread-safe.
 */
public final class MetricNames {
    private MetricNames() {}

    /** Counter, bytes appended (tier=hot) or committed to the object store (tier=cold). */
    public static final String BYTES_IN = "tierlog.bytes.in";

    /**
     * Gauge, per {@code topic} and {@code partition} of a topic that is an Iceberg table: ms since
     * the oldest record not yet queryable in the table was appended (0 when all are).
     */
    public static final String ICEBERG_FRESHNESS_LAG_MS = "tierlog.iceberg.freshness.lag.ms";

    /**
     * Timer, per {@code topic}: from a record's append to the table commit that made it queryable
     * (the oldest record of each commit's range).
     */
    public static final String ICEBERG_FRESHNESS = "tierlog.iceberg.freshness";

    /**
     * Counter, per {@code topic}: partitions going past {@code iceberg.freshness.target.ms}
     * (counted on the edge, once per breach).
     */
    public static final String ICEBERG_FRESHNESS_BREACHES = "tierlog.iceberg.freshness.breaches";

    /** Counter, bytes returned by reads, per tier. */
    public static final String BYTES_OUT = "tierlog.bytes.out";

    /** Counter, reads answered, per tier. */
    public static final String READS = "tierlog.reads";

    /**
     * Counter, cold reads that failed, tagged {@code cause}: {@code not_found}, {@code corrupt},
     * {@code timeout}, {@code unavailable}, {@code catalog} or {@code other}.
     */
    public static final String COLD_READ_ERRORS = "tierlog.cold.read.errors";

    /**
     * Counter, records refused at produce time by a topic's schema contract ({@code
     * confluent.value.schema.validation}, {@code confluent.key.schema.validation}), tagged {@code
     * part} = {@code value}|{@code key} and {@code reason} = {@code no_header}|{@code
     * unknown_id}|{@code not_in_subject}|{@code malformed_indexes}.
     */
    public static final String SCHEMA_VALIDATION_REFUSED = "tierlog.schema.validation.refused";

    /** Counter, segment bytes the hot tier's log cleaner read (offset maps and recopying). */
    public static final String CLEANER_BYTES_READ = "tierlog.cleaner.bytes.read";

    /** Counter, bytes of cleaned segments the log cleaner wrote. */
    public static final String CLEANER_BYTES_WRITTEN = "tierlog.cleaner.bytes.written";

    /** Counter, cleanings the log cleaner finished (one partition each). */
    public static final String CLEANER_PASSES = "tierlog.cleaner.passes";

    /** Gauge, the highest dirty ratio of a compacted partition (0..1). */
    public static final String CLEANER_MAX_DIRTY_RATIO = "tierlog.cleaner.max.dirty.ratio";

    /** Gauge, bytes the log cleaner may clean now, all compacted partitions. */
    public static final String CLEANER_CLEANABLE_BYTES = "tierlog.cleaner.cleanable.bytes";

    /**
     * Gauge, ms the most overdue compacted partition is past its {@code max.compaction.lag.ms} (0
     * when none is): Kafka's {@code max-compaction-delay-secs}.
     */
    public static final String CLEANER_MAX_COMPACTION_DELAY_MS =
            "tierlog.cleaner.max.compaction.delay.ms";

    /** Gauge, ms since the longest-uncleaned compacted partition was last cleaned (-1: none). */
    public static final String CLEANER_TIME_SINCE_LAST_RUN_MS =
            "tierlog.cleaner.time.since.last.run.ms";

    /** Gauge, closed-segment bytes not yet in the cold tier, all partitions. */
    public static final String OFFLOAD_LAG_BYTES = "tierlog.offload.lag.bytes";

    /**
     * Counter, records whose value ({@code part=value}) or key ({@code part=key}) the offload wrote
     * typed columns for, tagged {@code stored}: {@code once} (value rebuilt from its typed row on
     * read) or {@code twice} (raw bytes kept too).
     */
    public static final String OFFLOAD_TYPED_RECORDS = "tierlog.offload.typed.records";

    /**
     * Counter, records whose value or key ({@code part}) the offload could not type, tagged {@code
     * reason}: {@code no-header}, {@code unknown-id}, {@code not-in-subject} or {@code decode};
     * their raw bytes are stored as always, with the reason in {@code value_error} / {@code
     * key_error}.
     */
    public static final String OFFLOAD_UNTYPED_RECORDS = "tierlog.offload.untyped.records";

    /** Gauge, offsets in closed segments not yet in the cold tier, all partitions. */
    public static final String OFFLOAD_LAG_OFFSETS = "tierlog.offload.lag.offsets";

    /** Counter, decoded-batch cache lookups by result (hit|miss). */
    public static final String COLD_CACHE_REQUESTS = "tierlog.cold.cache.requests";

    /** Gauge, hits / lookups of the decoded-batch cache since start (NaN before the first). */
    public static final String COLD_CACHE_HIT_RATIO = "tierlog.cold.cache.hit.ratio";

    /** Gauge, bytes held by the decoded-batch cache. */
    public static final String COLD_CACHE_BYTES = "tierlog.cold.cache.bytes";

    /** Counter, chunks decoded from cold objects (cache misses and read-ahead, single-flight). */
    public static final String COLD_CHUNK_LOADS = "tierlog.cold.chunk.loads";

    /** Counter, read-ahead loads started. */
    public static final String COLD_READ_AHEAD = "tierlog.cold.read.ahead";

    /** Counter, object-store requests per op. */
    public static final String S3_REQUESTS = "tierlog.s3.requests";

    /** Counter, object-store requests that failed, per op. */
    public static final String S3_ERRORS = "tierlog.s3.errors";

    /** Timer, object-store request latency per op (retries included). */
    public static final String S3_LATENCY = "tierlog.s3.latency";

    /** Counter, bytes fetched from the object store. */
    public static final String S3_BYTES_READ = "tierlog.s3.bytes.read";

    /**
     * Gauge, hot partitions offline after a storage fault (they answer KAFKA_STORAGE_ERROR until
     * housekeeping recovers them from disk).
     */
    public static final String HOT_OFFLINE_PARTITIONS = "tierlog.hot.offline.partitions";

    /** Counter, cold objects deleted by total retention and topic deletion. */
    public static final String COLD_OBJECTS_DELETED = "tierlog.cold.objects.deleted";

    /**
     * Gauge, 1 while the catalog is the data dir's own and durable, 0 while it is missing, replaced
     * or unreadable (offload commits and local segment deletion are then stopped).
     */
    public static final String CATALOG_HEALTHY = "tierlog.catalog.healthy";

    /**
     * Counter of actions refused because the catalog was not usable (see {@link #CATALOG_HEALTHY}).
     */
    public static final String CATALOG_REFUSALS = "tierlog.catalog.refusals";

    /** Gauge, bytes of requests being received or queued (queued.max.request.bytes pool). */
    public static final String REQUEST_MEMORY_RESERVED_BYTES =
            "tierlog.request.memory.reserved.bytes";

    /** Gauge, connections not read because the request memory pool is full. */
    public static final String REQUEST_MEMORY_WAITING_CONNECTIONS =
            "tierlog.request.memory.waiting.connections";
}

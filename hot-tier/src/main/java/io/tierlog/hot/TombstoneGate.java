package io.tierlog.hot;

import org.apache.kafka.common.TopicPartition;

/**
 * Whether the log cleaner may remove a partition's tombstones (and only them: superseded values go
 * either way). A consumer reading a tiered partition from its start reads the cold tier first and
 * then the hot log, so once any of the partition's records live in the cold tier a tombstone
 * dropped from the hot log could let an older value of its key, still in a cold object, come back.
 * The engine answers "the catalog holds no cold object of the partition".
 *
 * <p>Contract: called by a cleaner thread while it holds the partition's cleaning exclusion ({@link
 * PartitionLog#tryExclusive()}), so no offload of the partition runs between the answer and the
 * swap of the cleaned segments. May block (a catalog read). An exception counts as "no": tombstones
 * are kept. Implementations are thread-safe.
 */
@FunctionalInterface
public interface TombstoneGate {
    /** A log dir with no cold tier behind it: tombstones go after their delete horizon. */
    TombstoneGate ALWAYS = tp -> true;

    /** True when tombstones of {@code tp} past their delete horizon may be removed now. */
    boolean mayDropTombstones(TopicPartition tp) throws Exception;
}

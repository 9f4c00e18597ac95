package io.tierlog.engine;

/**
 * How fresh one partition of a topic's Iceberg table is (see {@code iceberg.freshness.target.ms}).
 * Immutable.
 *
 * @param partition the partition
 * @param lagMs ms since the oldest record not yet queryable in the table was appended (0: none)
 * @param targetMs the topic's freshness target
 * @param breaches times the lag went past the target (this process)
 * @param breached whether it is past the target now
 */
public record TableFreshness(
        int partition, long lagMs, long targetMs, long breaches, boolean breached) {}

package io.tierlog.compactor;

import org.apache.kafka.common.TopicPartition;

/**
 * Observes the offload loop (the CLI's progress display, tests). Called from offload threads:
 * implementations must be thread-safe and quick.
 */
public interface OffloadListener {
    /** A pass starts with {@code backlogBytes} of closed segments not yet in the cold tier. */
    default void onPassStarted(long backlogBytes) {}

    /** An object was committed (or found already committed). */
    default void onObjectCommitted(ObjectReport report) {}

    /**
     * An object with typed columns was committed (after {@link #onObjectCommitted}): what they
     * hold, with the records not decoded by reason.
     */
    default void onTypedColumns(TopicPartition tp, io.tierlog.cold.TypedCounts counts) {}

    /**
     * A run of small committed objects of {@code tp} was replaced by one object holding exactly
     * their batches (the compactor's merge, committed or found already committed): {@code
     * replacedKeys} are retired, in offset order, and stay in the store until the sweeper deletes
     * them (a pinned one stays longer). In {@code replacement}, {@code sourceBytes} is the size of
     * the replaced objects.
     */
    default void onObjectsMerged(
            TopicPartition tp, java.util.List<String> replacedKeys, ObjectReport replacement) {}

    /** Offloading a partition failed for this pass; it is retried on the next one. */
    default void onPartitionFailed(TopicPartition tp, Exception error) {}

    /** A pass ended. */
    default void onPassFinished(PassResult result) {}
}

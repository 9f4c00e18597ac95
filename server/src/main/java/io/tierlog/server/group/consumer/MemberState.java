package io.tierlog.server.group.consumer;

/**
 * Where a member stands in reconciling towards its target assignment (Kafka's
 * CurrentAssignmentBuilder states).
 */
public enum MemberState {
    /** Owns its whole target assignment at the target epoch. */
    STABLE,
    /**
     * Must give up partitions first ({@code pendingRevocation}): stays at its epoch until its
     * heartbeat no longer lists them, or is fenced when its rebalance timeout passes.
     */
    UNREVOKED_PARTITIONS,
    /** At the target epoch, but waits for partitions that other members still have to release. */
    UNRELEASED_PARTITIONS
}

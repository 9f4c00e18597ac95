package io.tierlog.server.txn;

import io.tierlog.server.group.coordinator.GroupCoordinator;
import io.tierlog.server.txn.coordinator.TxnGroupCompleter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The group side of a transaction's end: {@link GroupCoordinator#completeTransaction} (apply or
 * drop the offsets the transaction committed), run on the blocking executor because it writes the
 * offsets journal on the calling thread. Thread-safe.
 */
public final class GroupTxnCompleter implements TxnGroupCompleter {
    private final GroupCoordinator groups;
    private final Executor blockingExecutor;

    public GroupTxnCompleter(GroupCoordinator groups, Executor blockingExecutor) {
        this.groups = java.util.Objects.requireNonNull(groups);
        this.blockingExecutor = java.util.Objects.requireNonNull(blockingExecutor);
    }

    @Override
    public CompletableFuture<Void> completeTransaction(
            String groupId, long producerId, short producerEpoch, boolean commit) {
        return CompletableFuture.supplyAsync(
                        () ->
                                groups.completeTransaction(
                                        groupId, producerId, producerEpoch, commit),
                        blockingExecutor)
                .thenCompose(f -> f);
    }
}

package io.tierlog.server.txn.coordinator;

import java.util.concurrent.CompletableFuture;

/**
 * Completes a transaction's pending offset commits in one consumer group (the group side of a
 * marker): applies them on commit, discards them on abort. Safe to call from any thread.
 */
public interface TxnGroupCompleter {
    /** Completes normally once the outcome is durable in the group's offset store. */
    CompletableFuture<Void> completeTransaction(
            String groupId, long producerId, short producerEpoch, boolean commit);
}

package io.tierlog.engine;

import io.tierlog.hot.VerificationGuard;

/**
 * An opaque token proving a coordinator verified that a producer's transaction includes a partition
 * (KIP-890): from {@link Transactions#startVerification}, passed back to {@link
 * TieredLog#append(org.apache.kafka.common.TopicPartition, java.nio.ByteBuffer, TxnVerification)}.
 * Keeps the hot tier's type out of callers. Immutable.
 */
public final class TxnVerification {
    /** For batches that need no verification. */
    public static final TxnVerification NONE = new TxnVerification(VerificationGuard.SENTINEL);

    private final VerificationGuard guard;

    TxnVerification(VerificationGuard guard) {
        this.guard = guard;
    }

    VerificationGuard guard() {
        return guard;
    }
}

package io.tierlog.engine;

import io.tierlog.hot.VerificationGuard;

/**
 * An opaque token proving a coordinator verified that a producer's transaction includes a partition
 * (KIP-890): from {@link Transactions#startVerification}, passed back to {@link
 * TieredLog#append(org.apache.kafka.common.TopicPartition, java.nio.ByteBuffer, TxnVerification)}.
 * Keeps the hot tier's type out of callers. Immutable; equal when from the same verification (a
 * retried request gets an equal token until the append or a marker retires it).
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

    /** Tokens are equal when they carry the same verification (the partition's guard). */
    @Override
    public boolean equals(Object o) {
        return o instanceof TxnVerification t && t.guard == guard;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(guard);
    }

    @Override
    public String toString() {
        return "TxnVerification(" + guard + ")";
    }
}

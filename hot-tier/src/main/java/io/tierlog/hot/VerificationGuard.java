package io.tierlog.hot;

/**
 * Proof that a transaction coordinator verified a producer's transaction includes a partition
 * (KIP-890 part 1): obtained from {@link PartitionLog#maybeStartTxnVerification} before asking the
 * coordinator, and handed back with the append. A partition accepts the first transactional batch
 * of a transaction only with the guard it handed out for that producer; a marker or a successful
 * append clears it, so a late append of an aborted transaction is refused (INVALID_TXN_STATE).
 * Compared by identity. Thread-safe (immutable).
 */
public final class VerificationGuard {
    /** The guard of a batch that needs none (not transactional, or its transaction is known). */
    public static final VerificationGuard SENTINEL = new VerificationGuard(-1);

    private final long producerId;

    public VerificationGuard(long producerId) {
        this.producerId = producerId;
    }

    public long producerId() {
        return producerId;
    }

    @Override
    public String toString() {
        return this == SENTINEL
                ? "VerificationGuard(sentinel)"
                : "VerificationGuard(" + producerId + ")";
    }
}

package io.tierlog.server.txn.coordinator;

/**
 * The transaction coordinator's settings, as Kafka names them (the server declares the options and
 * passes the values in). Immutable; thread-safe.
 *
 * @param maxTimeoutMs {@code transaction.max.timeout.ms}: InitProducerId with a larger {@code
 *     transaction.timeout.ms} gets {@code INVALID_TRANSACTION_TIMEOUT} (Kafka: 900000)
 * @param abortTimedOutIntervalMs {@code
 *     transaction.abort.timed.out.transaction.cleanup.interval.ms}: how often expired transactions
 *     are looked for and aborted (Kafka: 10000)
 * @param transactionalIdExpirationMs {@code transactional.id.expiration.ms}: an idle transactional
 *     id (no transaction open) untouched this long is forgotten (Kafka: 604800000)
 * @param removeExpiredIntervalMs {@code
 *     transaction.remove.expired.transaction.cleanup.interval.ms}: how often idle ids are looked
 *     for (Kafka: 3600000)
 * @param transactionVersion the finalized {@code transaction.version} of the server (1 or 2): the
 *     version used for transitions the server starts itself (timeout aborts, fencing)
 * @param fsync whether a state change is acknowledged only once fsynced (else once in the page
 *     cache, which survives kill -9 but not a power loss)
 * @param markerRetryBackoffMs delay before a marker that failed with a storage error is retried
 * @param snapshotBytes journal size past which a snapshot starts a new journal generation
 */
public record TransactionConfig(
        int maxTimeoutMs,
        long abortTimedOutIntervalMs,
        long transactionalIdExpirationMs,
        long removeExpiredIntervalMs,
        int transactionVersion,
        boolean fsync,
        long markerRetryBackoffMs,
        long snapshotBytes) {

    /** Kafka's defaults, transaction version 2, page-cache durability. */
    public static TransactionConfig defaults() {
        return new TransactionConfig(
                900_000, 10_000, 604_800_000L, 3_600_000L, 2, false, 100, 64L << 20);
    }

    public TransactionConfig {
        if (maxTimeoutMs <= 0
                || abortTimedOutIntervalMs <= 0
                || transactionalIdExpirationMs <= 0
                || removeExpiredIntervalMs <= 0
                || markerRetryBackoffMs < 0
                || snapshotBytes <= 0) {
            throw new IllegalArgumentException("bad transaction coordinator settings: " + this);
        }
        if (transactionVersion < 0 || transactionVersion > 2) {
            throw new IllegalArgumentException("transaction.version must be 0..2");
        }
    }

    /** A copy with another {@code transaction.max.timeout.ms}. */
    public TransactionConfig withMaxTimeoutMs(int ms) {
        return new TransactionConfig(
                ms,
                abortTimedOutIntervalMs,
                transactionalIdExpirationMs,
                removeExpiredIntervalMs,
                transactionVersion,
                fsync,
                markerRetryBackoffMs,
                snapshotBytes);
    }

    /** A copy with another server {@code transaction.version}. */
    public TransactionConfig withTransactionVersion(int tv) {
        return new TransactionConfig(
                maxTimeoutMs,
                abortTimedOutIntervalMs,
                transactionalIdExpirationMs,
                removeExpiredIntervalMs,
                tv,
                fsync,
                markerRetryBackoffMs,
                snapshotBytes);
    }
}

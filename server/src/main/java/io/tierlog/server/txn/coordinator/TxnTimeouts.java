package io.tierlog.server.txn.coordinator;

import io.tierlog.common.Time;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's two periodic duties, as Kafka's: aborting transactions open past their {@code
 * transaction.timeout.ms} (fence the epoch, then abort with the server's transaction version, so a
 * zombie's later requests are fenced), and forgetting transactional ids idle past {@code
 * transactional.id.expiration.ms} (Dead, then a tombstone). Each runs on the timer and only decides
 * in memory; journal writes go to the I/O executor. Thread-safe.
 */
final class TxnTimeouts {
    private static final Logger LOG = LoggerFactory.getLogger(TxnTimeouts.class);

    private final TransactionConfig config;
    private final TxnPipeline pipeline;
    private final Map<String, TransactionMetadata> txns;
    private final Time time;
    private final BooleanSupplier closed;

    TxnTimeouts(
            TransactionConfig config,
            TxnPipeline pipeline,
            Map<String, TransactionMetadata> txns,
            Time time,
            BooleanSupplier closed) {
        this.config = config;
        this.pipeline = pipeline;
        this.txns = txns;
        this.time = time;
        this.closed = closed;
    }

    /**
     * Aborts every Ongoing transaction past its timeout: fences the producer's epoch and aborts
     * with the server's transaction version. TV1: the epoch ends one above the client's (its later
     * EndTxn gets PRODUCER_FENCED). TV2, as Kafka 4.4: the fence's bump is not applied, only the
     * abort's, so the epoch also ends one above the client's, whose later commit reads as a retry
     * by epoch and gets INVALID_TXN_STATE.
     */
    void abortTimedOut() {
        long now = time.milliseconds();
        for (TransactionMetadata m : txns.values()) {
            if (closed.getAsBoolean()) {
                return;
            }
            TxnTransit fence = null;
            synchronized (m) {
                if (m.state == TransactionState.ONGOING
                        && !m.pendingTransitionInProgress()
                        && m.startMs + m.timeoutMs < now) {
                    fence = m.prepareFenceProducerEpoch();
                }
            }
            if (fence != null) {
                LOG.info(
                        "Aborting the transaction of {} (producer id {}): open longer than its"
                                + " timeout of {} ms",
                        m.transactionalId,
                        fence.producerId(),
                        fence.timeoutMs());
                pipeline.end(
                                m,
                                fence.producerId(),
                                fence.producerEpoch(),
                                false,
                                false,
                                (short) config.transactionVersion())
                        .thenAccept(
                                r -> {
                                    if (r.error() != Errors.NONE) {
                                        LOG.warn(
                                                "Abort of the timed-out transaction of {}"
                                                        + " failed: {}",
                                                m.transactionalId,
                                                r.error());
                                    }
                                });
            }
        }
    }

    /** Forgets idle transactional ids untouched for {@code transactional.id.expiration.ms}. */
    void expireIdle() {
        long now = time.milliseconds();
        for (TransactionMetadata m : txns.values()) {
            if (closed.getAsBoolean()) {
                return;
            }
            TxnTransit dead = null;
            synchronized (m) {
                if (m.state.isIdle()
                        && !m.pendingTransitionInProgress()
                        && m.lastUpdateMs + config.transactionalIdExpirationMs() <= now) {
                    dead = m.prepareDead();
                }
            }
            if (dead != null) {
                LOG.info(
                        "Transactional id {} expired (idle for {} ms)",
                        m.transactionalId,
                        now - m.lastUpdateMs);
                pipeline.persist(m, dead);
            }
        }
    }
}

package io.tierlog.server.txn.coordinator;

import io.tierlog.common.Time;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.EndTxnResult;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a decided transition becomes durable and takes effect: the journal write on the I/O executor,
 * then the change in memory (or, on failure, the pending state dropped); for EndTxn the PrepareX
 * record, the answer, the markers, and the CompleteX record once every marker is done (retried
 * until it is written). The order is what makes a kill -9 safe: PrepareX is durable before the
 * answer and before any marker, CompleteX only after every marker and group.
 *
 * <p>Thread-safe: each transactional id's metadata is changed under its monitor, never across I/O.
 */
final class TxnPipeline {
    private static final Logger LOG = LoggerFactory.getLogger(TxnPipeline.class);

    private final TransactionConfig config;
    private final TxnStateStore store;
    private final ProducerIdSource producerIds;
    private final TxnMarkerQueue markers;
    private final Executor io;
    private final ScheduledExecutorService timer;
    private final Time time;
    private final Map<String, TransactionMetadata> txns;
    private volatile boolean closed;

    TxnPipeline(
            TransactionConfig config,
            TxnStateStore store,
            ProducerIdSource producerIds,
            TxnMarkerQueue markers,
            Executor io,
            ScheduledExecutorService timer,
            Time time,
            Map<String, TransactionMetadata> txns) {
        this.config = config;
        this.store = store;
        this.producerIds = producerIds;
        this.markers = markers;
        this.io = io;
        this.timer = timer;
        this.time = time;
        this.txns = txns;
    }

    /** Stops retries of CompleteX writes (the journal's PrepareX completes at the next open). */
    void close() {
        closed = true;
        markers.close();
    }

    static EndTxnResult endError(Errors e) {
        return new EndTxnResult(e, -1, (short) -1);
    }

    /**
     * EndTxn from the client, or ({@code fromClient} false) the abort of an epoch fence; under TV2
     * an exhausted epoch first takes a new producer id on the I/O executor.
     */
    CompletableFuture<EndTxnResult> end(
            TransactionMetadata m,
            long pid,
            short epoch,
            boolean commit,
            boolean fromClient,
            short tv) {
        TxnDecisions.Decision d;
        synchronized (m) {
            d = decideEnd(m, pid, epoch, commit, fromClient, tv, null);
        }
        if (d.needProducerId()) {
            return onIo(
                            () -> {
                                long next = producerIds.nextProducerId();
                                TxnDecisions.Decision again;
                                synchronized (m) {
                                    again = decideEnd(m, pid, epoch, commit, fromClient, tv, next);
                                }
                                return endWith(m, again, commit, tv);
                            },
                            endError(Errors.COORDINATOR_NOT_AVAILABLE))
                    .thenCompose(f -> f);
        }
        return endWith(m, d, commit, tv);
    }

    /** The end decision; an epoch fence that cannot go on is dropped rather than left pending. */
    TxnDecisions.Decision decideEnd(
            TransactionMetadata m,
            long pid,
            short epoch,
            boolean commit,
            boolean fromClient,
            short tv,
            Long next) {
        TxnDecisions.Decision d =
                TxnDecisions.end(m, pid, epoch, commit, fromClient, tv, next, time.milliseconds());
        if (d.transit() == null
                && !d.needProducerId()
                && m.pendingState == TransactionState.PREPARE_EPOCH_FENCE) {
            m.abortPending();
        }
        return d;
    }

    private CompletableFuture<EndTxnResult> endWith(
            TransactionMetadata m, TxnDecisions.Decision d, boolean commit, short tv) {
        if (d.transit() == null) {
            if (d.error() != Errors.NONE) {
                return done(endError(d.error()));
            }
            return done(
                    tv >= 2
                            ? new EndTxnResult(Errors.NONE, d.producerId(), d.producerEpoch())
                            : endError(Errors.NONE));
        }
        TxnTransit prepare = d.transit();
        boolean fence = d.epochFence();
        return write(prepare)
                .thenApply(
                        ok -> {
                            TxnTransit complete;
                            synchronized (m) {
                                if (!ok) {
                                    m.abortPending();
                                    if (fence) {
                                        m.hasFailedEpochFence = true;
                                        LOG.warn(
                                                "Cannot journal the epoch fence of {} (epoch"
                                                        + " {}): the next fence will not bump",
                                                m.transactionalId,
                                                prepare.producerEpoch());
                                    }
                                    return endError(Errors.COORDINATOR_NOT_AVAILABLE);
                                }
                                m.completeTransitionTo(prepare);
                                complete = sendMarkers(m);
                            }
                            return tv >= 2
                                    ? new EndTxnResult(
                                            Errors.NONE,
                                            complete.producerId(),
                                            complete.producerEpoch())
                                    : endError(Errors.NONE);
                        });
    }

    /**
     * For a transaction in PrepareX: prepares CompleteX (pending until the markers are done),
     * queues its markers, and journals CompleteX once they are. Holds {@code m}'s monitor.
     */
    TxnTransit sendMarkers(TransactionMetadata m) {
        TxnTransit complete = m.prepareComplete(time.milliseconds());
        TxnMarkerQueue.Job job =
                new TxnMarkerQueue.Job(
                        m,
                        m.producerId,
                        m.producerEpoch,
                        store.coordinatorEpoch(),
                        m.state == TransactionState.PREPARE_COMMIT,
                        m.clientTv,
                        Set.copyOf(m.partitions),
                        Set.copyOf(m.groups));
        markers.send(job).thenRun(() -> journalComplete(m, complete));
        return complete;
    }

    /** Journals CompleteX; retried after the backoff until it succeeds (or close). */
    private void journalComplete(TransactionMetadata m, TxnTransit complete) {
        write(complete)
                .thenAccept(
                        ok -> {
                            if (ok) {
                                synchronized (m) {
                                    m.completeTransitionTo(complete);
                                }
                                LOG.debug(
                                        "Completed transaction of {} ({})",
                                        m.transactionalId,
                                        complete.state().displayName());
                            } else if (!closed) {
                                timer.schedule(
                                        () -> journalComplete(m, complete),
                                        config.markerRetryBackoffMs(),
                                        TimeUnit.MILLISECONDS);
                            }
                        });
    }

    /** Journals {@code t} for {@code m} and applies it (or drops the pending state). */
    CompletableFuture<Errors> persist(TransactionMetadata m, TxnTransit t) {
        return write(t).thenApply(
                        ok -> {
                            synchronized (m) {
                                if (!ok) {
                                    m.abortPending();
                                    return Errors.COORDINATOR_NOT_AVAILABLE;
                                }
                                m.completeTransitionTo(t);
                            }
                            if (t.state() == TransactionState.DEAD) {
                                txns.remove(t.transactionalId(), m);
                            }
                            return Errors.NONE;
                        });
    }

    /** Writes {@code t} on the I/O executor: true once durable, false on failure. */
    CompletableFuture<Boolean> write(TxnTransit t) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        try {
            io.execute(
                    () -> {
                        try {
                            if (t.state() == TransactionState.DEAD) {
                                store.remove(t.transactionalId());
                            } else {
                                store.write(t);
                            }
                            f.complete(true);
                        } catch (IOException | RuntimeException e) {
                            LOG.warn(
                                    "Cannot journal {} of {}: {}",
                                    t.state().displayName(),
                                    t.transactionalId(),
                                    e.toString());
                            f.complete(false);
                        }
                    });
        } catch (RejectedExecutionException e) {
            f.complete(false);
        }
        return f;
    }

    interface IoWork<T> {
        T run() throws IOException;
    }

    /** Runs {@code work} on the I/O executor; {@code onFailure} if it throws or is rejected. */
    <T> CompletableFuture<CompletableFuture<T>> onIo(
            IoWork<CompletableFuture<T>> work, T onFailure) {
        CompletableFuture<CompletableFuture<T>> f = new CompletableFuture<>();
        try {
            io.execute(
                    () -> {
                        try {
                            f.complete(work.run());
                        } catch (IOException | RuntimeException e) {
                            LOG.warn("Transaction coordinator I/O failed: {}", e.toString());
                            f.complete(done(onFailure));
                        }
                    });
        } catch (RejectedExecutionException e) {
            f.complete(done(onFailure));
        }
        return f;
    }

    static <T> CompletableFuture<T> done(T v) {
        return CompletableFuture.completedFuture(v);
    }
}

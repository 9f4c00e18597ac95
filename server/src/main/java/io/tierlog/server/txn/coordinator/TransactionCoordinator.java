package io.tierlog.server.txn.coordinator;

import io.tierlog.common.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-server transaction coordinator with Kafka 4.4's semantics, knowing no wire types.
 *
 * <p>Every request method answers with a future of a small result carrying Kafka's error code; none
 * blocks its caller on I/O (journal writes and producer-id reservations run on the I/O executor
 * given to {@link #open}), so any thread, an event loop included, may call them. The {@code
 * transactionVersion} argument is the version the request implies (Kafka's {@code
 * TransactionVersion.transactionVersionFor...}: AddPartitionsToTxn v4+ and EndTxn v5+ are 2,
 * Produce v12 is 2, else 1); 2 selects TV2's rules (epoch bump at every end, implicit adds).
 *
 * <p>Thread-safe.
 */
public final class TransactionCoordinator implements AutoCloseable {

    /** InitProducerId outcome; pid and epoch are -1 on an error. */
    public record InitPidResult(Errors error, long producerId, short producerEpoch) {}

    /**
     * AddPartitionsToTxn / VerifyOnly / Produce v12 implicit add outcome: one error per partition
     * asked (all the same unless verifying: partitions not in the transaction then get their own).
     */
    public record AddPartitionsResult(Map<TopicPartition, Errors> partitions) {}

    /**
     * EndTxn outcome. Under TV2 {@code producerId}/{@code producerEpoch} are the ones the producer
     * must use next (the bumped epoch, or a new id when the epoch was exhausted); under TV1 they
     * are -1.
     */
    public record EndTxnResult(Errors error, long producerId, short producerEpoch) {}

    /**
     * ListTransactions filters: empty sets and {@code durationMs < 0} and a null pattern match
     * everything. {@code durationMs}: only transactions running longer than that; {@code
     * idPattern}: a Java regular expression the whole transactional id must match (Kafka's {@code
     * matches}).
     */
    public record ListFilter(
            Set<String> states, Set<Long> producerIds, long durationMs, String idPattern) {
        public static ListFilter all() {
            return new ListFilter(Set.of(), Set.of(), -1, null);
        }
    }

    /** One transactional id as ListTransactions shows it ({@code state}: Kafka's name). */
    public record TxnListing(String transactionalId, long producerId, String state) {}

    /**
     * ListTransactions outcome: {@code INVALID_REGULAR_EXPRESSION} for a bad pattern; {@code
     * unknownStates} the state filters that name no state.
     */
    public record ListResult(Errors error, Set<String> unknownStates, List<TxnListing> listings) {}

    /**
     * One transactional id as DescribeTransactions shows it; {@code TRANSACTIONAL_ID_NOT_FOUND}
     * (other fields empty/-1) for an unknown or dead id. {@code partitions}: those of the open
     * transaction still without their marker. {@code startMs} -1 when no transaction is open.
     */
    public record TxnDescription(
            String transactionalId,
            Errors error,
            String state,
            int timeoutMs,
            long startMs,
            long producerId,
            short producerEpoch,
            Set<TopicPartition> partitions) {}

    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);

    private final TransactionConfig config;
    private final TxnStateStore store;
    private final ProducerIdSource producerIds;
    private final TxnMarkerWriter markerWriter;
    private final TxnMarkerQueue markers;
    private final Executor io;
    private final ScheduledExecutorService timer;
    private final Time time;
    private final ConcurrentHashMap<String, TransactionMetadata> txns = new ConcurrentHashMap<>();
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();
    private volatile boolean closed;

    private TransactionCoordinator(
            TransactionConfig config,
            TxnStateStore store,
            ProducerIdSource producerIds,
            TxnMarkerWriter markerWriter,
            TxnGroupCompleter groups,
            Executor io,
            ScheduledExecutorService timer,
            Time time) {
        this.config = config;
        this.store = store;
        this.producerIds = producerIds;
        this.markerWriter = markerWriter;
        this.io = io;
        this.timer = timer;
        this.time = time;
        this.markers =
                new TxnMarkerQueue(markerWriter, groups, io, timer, config.markerRetryBackoffMs());
    }

    /**
     * Loads the state journaled in {@code <metaDir>/transactions}, bumps the coordinator epoch,
     * re-queues the markers of every transaction caught in PrepareCommit/PrepareAbort (then
     * completes it) and arms the timers; transactions caught Ongoing abort when their timeout
     * passes. Call once the engine is open (markers are written through {@code markers}) and before
     * the listener accepts requests.
     *
     * @param ioExecutor runs journal writes, producer-id reservations and marker writes (may block)
     * @param timer runs timeout aborts, id expiry and marker retries (tasks only hand work to
     *     {@code ioExecutor})
     */
    public static TransactionCoordinator open(
            Path metaDir,
            TransactionConfig config,
            ProducerIdSource producerIds,
            TxnMarkerWriter markers,
            TxnGroupCompleter groups,
            Executor ioExecutor,
            ScheduledExecutorService timer,
            Time time)
            throws IOException {
        return open(
                metaDir,
                config,
                producerIds,
                markers,
                groups,
                ioExecutor,
                timer,
                time,
                TxnFiles.REAL);
    }

    static TransactionCoordinator open(
            Path metaDir,
            TransactionConfig config,
            ProducerIdSource producerIds,
            TxnMarkerWriter markers,
            TxnGroupCompleter groups,
            Executor ioExecutor,
            ScheduledExecutorService timer,
            Time time,
            TxnFiles files)
            throws IOException {
        TxnStateStore store =
                TxnStateStore.open(metaDir, config.fsync(), config.snapshotBytes(), files);
        TransactionCoordinator c =
                new TransactionCoordinator(
                        config, store, producerIds, markers, groups, ioExecutor, timer, time);
        int prepared = 0;
        for (TxnTransit t : store.loaded().values()) {
            if (t.state() != TransactionState.DEAD) {
                c.txns.put(t.transactionalId(), TransactionMetadata.of(t));
            }
        }
        for (TransactionMetadata m : c.txns.values()) {
            synchronized (m) {
                if (m.state.isPrepare()) {
                    prepared++;
                    c.sendMarkers(m);
                }
            }
        }
        LOG.info(
                "Transaction coordinator epoch {}: {} transactional ids loaded, {} prepared"
                        + " transactions completing",
                store.coordinatorEpoch(),
                c.txns.size(),
                prepared);
        c.tasks.add(
                timer.scheduleAtFixedRate(
                        () -> c.guard("timed-out transaction abort", c::abortTimedOutTransactions),
                        config.abortTimedOutIntervalMs(),
                        config.abortTimedOutIntervalMs(),
                        TimeUnit.MILLISECONDS));
        c.tasks.add(
                timer.scheduleAtFixedRate(
                        () -> c.guard("transactional id expiry", c::expireTransactionalIds),
                        config.removeExpiredIntervalMs(),
                        config.removeExpiredIntervalMs(),
                        TimeUnit.MILLISECONDS));
        return c;
    }

    private void guard(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("Transaction coordinator {} failed; tried again at the next tick", what, e);
        }
    }

    /**
     * InitProducerId with a transactional id. {@code expectedProducerId}/{@code
     * expectedProducerEpoch}: -1/-1 from a new producer, else (v3+, KIP-360) the id/epoch the
     * producer holds. Errors: INVALID_REQUEST (empty id, or only one of the expected id and epoch
     * given), INVALID_TRANSACTION_TIMEOUT, CONCURRENT_TRANSACTIONS (a transaction is completing, or
     * an Ongoing one is being fenced and aborted: retry), PRODUCER_FENCED (KIP-360 with a stale
     * id/epoch), COORDINATOR_NOT_AVAILABLE (journal failure or closed).
     */
    public CompletableFuture<InitPidResult> initProducerId(
            String transactionalId,
            int transactionTimeoutMs,
            long expectedProducerId,
            short expectedProducerEpoch) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return done(initError(Errors.INVALID_REQUEST));
        }
        if ((expectedProducerId < 0) != (expectedProducerEpoch < 0)) {
            return done(initError(Errors.INVALID_REQUEST));
        }
        if (transactionTimeoutMs <= 0 || transactionTimeoutMs > config.maxTimeoutMs()) {
            return done(initError(Errors.INVALID_TRANSACTION_TIMEOUT));
        }
        if (closed) {
            return done(initError(Errors.COORDINATOR_NOT_AVAILABLE));
        }
        return onIo(
                        () ->
                                initOnIo(
                                        transactionalId,
                                        transactionTimeoutMs,
                                        expectedProducerId,
                                        expectedProducerEpoch),
                        initError(Errors.COORDINATOR_NOT_AVAILABLE))
                .thenCompose(f -> f);
    }

    private CompletableFuture<InitPidResult> initOnIo(
            String id, int timeoutMs, long expectedPid, short expectedEpoch) throws IOException {
        TransactionMetadata m = txns.get(id);
        if (m == null) {
            TransactionMetadata created =
                    new TransactionMetadata(
                            id, producerIds.nextProducerId(), timeoutMs, time.milliseconds());
            m = txns.putIfAbsent(id, created);
            if (m == null) {
                m = created;
            }
        }
        TxnDecisions.Decision d;
        synchronized (m) {
            d =
                    TxnDecisions.initProducerId(
                            m, timeoutMs, expectedPid, expectedEpoch, null, time.milliseconds());
        }
        if (d.needProducerId()) {
            long pid = producerIds.nextProducerId();
            synchronized (m) {
                d =
                        TxnDecisions.initProducerId(
                                m, timeoutMs, expectedPid, expectedEpoch, pid, time.milliseconds());
            }
        }
        if (d.transit() == null) {
            return done(
                    d.error() == Errors.NONE
                            ? new InitPidResult(Errors.NONE, d.producerId(), d.producerEpoch())
                            : initError(d.error()));
        }
        TxnTransit t = d.transit();
        if (t.state() == TransactionState.PREPARE_EPOCH_FENCE) {
            // Abort the open transaction first; the producer retries and then gets its epoch.
            return end(m, t.producerId(), t.producerEpoch(), false, false, serverTv())
                    .thenApply(
                            r ->
                                    initError(
                                            r.error() == Errors.NONE
                                                    ? Errors.CONCURRENT_TRANSACTIONS
                                                    : r.error()));
        }
        TransactionMetadata meta = m;
        return persist(meta, t)
                .thenApply(
                        e -> {
                            if (e == Errors.NONE) {
                                LOG.info(
                                        "Initialized transactional id {} with producer id {}"
                                                + " epoch {}",
                                        meta.transactionalId,
                                        t.producerId(),
                                        t.producerEpoch());
                                return new InitPidResult(
                                        Errors.NONE, t.producerId(), t.producerEpoch());
                            }
                            return initError(e);
                        });
    }

    private static InitPidResult initError(Errors e) {
        return new InitPidResult(e, -1, (short) -1);
    }

    /**
     * AddPartitionsToTxn (TV1, v0-3 from the client) or the implicit add of TV2 (AddPartitionsToTxn
     * v4-5 without VerifyOnly, on behalf of Produce v12): adds {@code partitions} to the open
     * transaction, opening it if none is. Already Ongoing with all partitions present: answered
     * without I/O. Errors (the same for every partition): INVALID_REQUEST (empty id),
     * INVALID_PRODUCER_ID_MAPPING (unknown id or another producer id), PRODUCER_FENCED (another
     * epoch), CONCURRENT_TRANSACTIONS (a transition in flight or the transaction completing),
     * COORDINATOR_NOT_AVAILABLE (journal failure or closed).
     */
    public CompletableFuture<AddPartitionsResult> addPartitions(
            String transactionalId,
            long producerId,
            short producerEpoch,
            Collection<TopicPartition> partitions,
            int transactionVersion) {
        Set<TopicPartition> parts = new LinkedHashSet<>(partitions);
        return add(transactionalId, producerId, producerEpoch, parts, Set.of(), transactionVersion)
                .thenApply(e -> sameFor(parts, e));
    }

    private static AddPartitionsResult sameFor(Collection<TopicPartition> parts, Errors e) {
        Map<TopicPartition, Errors> m = new LinkedHashMap<>();
        for (TopicPartition tp : parts) {
            m.put(tp, e);
        }
        return new AddPartitionsResult(m);
    }

    private CompletableFuture<Errors> add(
            String id,
            long pid,
            short epoch,
            Set<TopicPartition> parts,
            Set<String> groups,
            int tv) {
        if (id == null || id.isEmpty()) {
            return done(Errors.INVALID_REQUEST);
        }
        if (closed) {
            return done(Errors.COORDINATOR_NOT_AVAILABLE);
        }
        TransactionMetadata m = txns.get(id);
        if (m == null) {
            return done(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        TxnDecisions.Decision d;
        synchronized (m) {
            d = TxnDecisions.add(m, pid, epoch, parts, groups, (short) tv, time.milliseconds());
        }
        return d.transit() == null ? done(d.error()) : persist(m, d.transit());
    }

    /**
     * KIP-890 VerifyOnly (AddPartitionsToTxn v4+ with verify_only, on behalf of a TV1 Produce):
     * whether each partition is in the producer's open transaction; never writes. Partitions not in
     * it get TRANSACTION_ABORTABLE; the whole request INVALID_REQUEST, INVALID_PRODUCER_ID_MAPPING,
     * PRODUCER_FENCED or CONCURRENT_TRANSACTIONS (markers being written).
     */
    public CompletableFuture<AddPartitionsResult> verifyPartitions(
            String transactionalId,
            long producerId,
            short producerEpoch,
            Collection<TopicPartition> partitions) {
        Map<TopicPartition, Errors> r = new LinkedHashMap<>();
        Errors whole = verifyWhole(transactionalId, producerId, producerEpoch);
        if (whole != null) {
            return done(sameFor(partitions, whole));
        }
        TransactionMetadata m = txns.get(transactionalId);
        synchronized (m) {
            Errors again = TxnDecisions.verify(m, producerId, producerEpoch);
            for (TopicPartition tp : partitions) {
                r.put(
                        tp,
                        again != null
                                ? again
                                : m.partitions.contains(tp)
                                        ? Errors.NONE
                                        : Errors.TRANSACTION_ABORTABLE);
            }
        }
        return done(new AddPartitionsResult(r));
    }

    /** The error for the whole verification, or null when each item is to be checked. */
    private Errors verifyWhole(String id, long pid, short epoch) {
        if (id == null || id.isEmpty()) {
            return Errors.INVALID_REQUEST;
        }
        if (closed) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        TransactionMetadata m = txns.get(id);
        if (m == null) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        synchronized (m) {
            return TxnDecisions.verify(m, pid, epoch);
        }
    }

    /**
     * AddOffsetsToTxn (TV1) or the implicit add of TxnOffsetCommit v5 (TV2): adds consumer group
     * {@code groupId} to the open transaction (its pending offsets complete with the markers).
     * Errors as {@link #addPartitions}.
     */
    public CompletableFuture<Errors> addOffsets(
            String transactionalId,
            long producerId,
            short producerEpoch,
            String groupId,
            int transactionVersion) {
        return add(
                transactionalId,
                producerId,
                producerEpoch,
                Set.of(),
                Set.of(groupId),
                transactionVersion);
    }

    /**
     * KIP-890 verification for TxnOffsetCommit (TV1): NONE if {@code groupId} is in the producer's
     * open transaction, TRANSACTION_ABORTABLE if not; errors as {@link #verifyPartitions}.
     */
    public CompletableFuture<Errors> verifyOffsets(
            String transactionalId, long producerId, short producerEpoch, String groupId) {
        Errors whole = verifyWhole(transactionalId, producerId, producerEpoch);
        if (whole != null) {
            return done(whole);
        }
        TransactionMetadata m = txns.get(transactionalId);
        synchronized (m) {
            Errors again = TxnDecisions.verify(m, producerId, producerEpoch);
            if (again != null) {
                return done(again);
            }
            return done(m.groups.contains(groupId) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
        }
    }

    /**
     * EndTxn: journals PrepareCommit/PrepareAbort, answers, then writes the markers and completes
     * in the background. A retry of an end already done answers NONE (TV1: same epoch; TV2: judged
     * by the bumped epoch). Errors: INVALID_REQUEST, INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
     * INVALID_TXN_STATE, CONCURRENT_TRANSACTIONS, COORDINATOR_NOT_AVAILABLE.
     */
    public CompletableFuture<EndTxnResult> endTxn(
            String transactionalId,
            long producerId,
            short producerEpoch,
            boolean commit,
            int transactionVersion) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            return done(endError(Errors.INVALID_REQUEST));
        }
        if (closed) {
            return done(endError(Errors.COORDINATOR_NOT_AVAILABLE));
        }
        TransactionMetadata m = txns.get(transactionalId);
        if (m == null) {
            return done(endError(Errors.INVALID_PRODUCER_ID_MAPPING));
        }
        return end(m, producerId, producerEpoch, commit, true, (short) transactionVersion);
    }

    private static EndTxnResult endError(Errors e) {
        return new EndTxnResult(e, -1, (short) -1);
    }

    private CompletableFuture<EndTxnResult> end(
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
    private TxnDecisions.Decision decideEnd(
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
                                                "Cannot journal the epoch fence of {}: epoch {}"
                                                        + " kept in memory, never handed out",
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
    private TxnTransit sendMarkers(TransactionMetadata m) {
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
    private CompletableFuture<Errors> persist(TransactionMetadata m, TxnTransit t) {
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
    private CompletableFuture<Boolean> write(TxnTransit t) {
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

    private interface IoWork<T> {
        T run() throws IOException;
    }

    /** Runs {@code work} on the I/O executor; {@code onFailure} if it throws or is rejected. */
    private <T> CompletableFuture<CompletableFuture<T>> onIo(
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

    private static <T> CompletableFuture<T> done(T v) {
        return CompletableFuture.completedFuture(v);
    }

    private short serverTv() {
        return (short) config.transactionVersion();
    }

    /**
     * Aborts every Ongoing transaction past its timeout: fences the producer's epoch (the zombie's
     * later requests get PRODUCER_FENCED) and aborts with the server's transaction version.
     */
    void abortTimedOutTransactions() {
        long now = time.milliseconds();
        for (TransactionMetadata m : txns.values()) {
            if (closed) {
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
                end(m, fence.producerId(), fence.producerEpoch(), false, false, serverTv())
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
    void expireTransactionalIds() {
        long now = time.milliseconds();
        for (TransactionMetadata m : txns.values()) {
            if (closed) {
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
                persist(m, dead);
            }
        }
    }

    /**
     * WriteTxnMarkers from an admin ({@code kafka-transactions abort}): writes the marker into each
     * partition through the marker writer, outside any transaction this coordinator knows, and
     * answers an error per partition (NONE, UNKNOWN_TOPIC_OR_PARTITION, KAFKA_STORAGE_ERROR,
     * INVALID_PRODUCER_EPOCH, ...).
     */
    public CompletableFuture<Map<TopicPartition, Errors>> writeMarkersForAdmin(
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            Collection<TopicPartition> partitions,
            int transactionVersion) {
        Map<TopicPartition, CompletableFuture<Errors>> each = new LinkedHashMap<>();
        for (TopicPartition tp : new LinkedHashSet<>(partitions)) {
            CompletableFuture<Errors> e = new CompletableFuture<>();
            each.put(tp, e);
            if (closed) {
                e.complete(Errors.COORDINATOR_NOT_AVAILABLE);
                continue;
            }
            try {
                io.execute(
                        () -> {
                            CompletableFuture<Void> w;
                            try {
                                w =
                                        markerWriter.writeMarker(
                                                tp,
                                                producerId,
                                                producerEpoch,
                                                coordinatorEpoch,
                                                commit,
                                                transactionVersion);
                            } catch (RuntimeException ex) {
                                w = CompletableFuture.failedFuture(ex);
                            }
                            w.whenComplete(
                                    (v, ex) ->
                                            e.complete(
                                                    ex == null
                                                            ? Errors.NONE
                                                            : Errors.forException(unwrap(ex))));
                        });
            } catch (RejectedExecutionException ex) {
                e.complete(Errors.COORDINATOR_NOT_AVAILABLE);
            }
        }
        return CompletableFuture.allOf(each.values().toArray(new CompletableFuture<?>[0]))
                .thenApply(
                        v -> {
                            Map<TopicPartition, Errors> r = new LinkedHashMap<>();
                            each.forEach((tp, f) -> r.put(tp, f.join()));
                            return r;
                        });
    }

    private static Throwable unwrap(Throwable e) {
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** ListTransactions (Kafka's filters; Dead ids are never listed). */
    public CompletableFuture<ListResult> listTransactions(ListFilter filter) {
        if (closed) {
            return done(new ListResult(Errors.COORDINATOR_NOT_AVAILABLE, Set.of(), List.of()));
        }
        Pattern pattern = null;
        if (filter.idPattern() != null && !filter.idPattern().isEmpty()) {
            try {
                pattern = Pattern.compile(filter.idPattern());
            } catch (PatternSyntaxException e) {
                return done(new ListResult(Errors.INVALID_REGULAR_EXPRESSION, Set.of(), List.of()));
            }
        }
        Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
        Set<String> unknown = new LinkedHashSet<>();
        for (String s : filter.states()) {
            TransactionState.fromName(s).ifPresentOrElse(states::add, () -> unknown.add(s));
        }
        long now = time.milliseconds();
        List<TxnListing> out = new ArrayList<>();
        for (TransactionMetadata m : txns.values()) {
            synchronized (m) {
                if (m.state == TransactionState.DEAD
                        || (!filter.producerIds().isEmpty()
                                && !filter.producerIds().contains(m.producerId))
                        || (!filter.states().isEmpty() && !states.contains(m.state))
                        || (filter.durationMs() >= 0 && now - m.startMs <= filter.durationMs())
                        || (pattern != null && !pattern.matcher(m.transactionalId).matches())) {
                    continue;
                }
                out.add(new TxnListing(m.transactionalId, m.producerId, m.state.displayName()));
            }
        }
        out.sort(java.util.Comparator.comparing(TxnListing::transactionalId));
        return done(new ListResult(Errors.NONE, unknown, out));
    }

    /** DescribeTransactions, one description per id asked, in order. */
    public CompletableFuture<List<TxnDescription>> describeTransactions(
            Collection<String> transactionalIds) {
        List<TxnDescription> out = new ArrayList<>();
        for (String id : transactionalIds) {
            Errors e =
                    closed
                            ? Errors.COORDINATOR_NOT_AVAILABLE
                            : id == null || id.isEmpty()
                                    ? Errors.INVALID_REQUEST
                                    : Errors.TRANSACTIONAL_ID_NOT_FOUND;
            TransactionMetadata m = closed || id == null ? null : txns.get(id);
            if (m != null) {
                synchronized (m) {
                    if (m.state != TransactionState.DEAD) {
                        out.add(
                                new TxnDescription(
                                        id,
                                        Errors.NONE,
                                        m.state.displayName(),
                                        m.timeoutMs,
                                        m.startMs,
                                        m.producerId,
                                        m.producerEpoch,
                                        Set.copyOf(m.partitions)));
                        continue;
                    }
                }
            }
            out.add(new TxnDescription(id, e, "", -1, -1, -1, (short) -1, Set.of()));
        }
        return done(out);
    }

    /**
     * True if {@code producerId} is the current (or previous, during a TV2 rotation) id of a
     * transactional id: an idempotent InitProducerId naming it must get a fresh id.
     */
    public boolean isTransactionalProducerId(long producerId) {
        if (producerId < 0) {
            return false;
        }
        for (TransactionMetadata m : txns.values()) {
            synchronized (m) {
                if (m.producerId == producerId
                        || m.prevProducerId == producerId
                        || m.nextProducerId == producerId) {
                    return true;
                }
            }
        }
        return false;
    }

    /** This coordinator's epoch (one more at every open), written into markers. */
    public int coordinatorEpoch() {
        return store.coordinatorEpoch();
    }

    /** The state of {@code txnId} as a record (null if unknown); for tests. */
    TxnTransit stateOf(String txnId) {
        TransactionMetadata m = txns.get(txnId);
        if (m == null) {
            return null;
        }
        synchronized (m) {
            return m.current();
        }
    }

    /** The pending state of {@code txnId} (null if none or unknown); for tests. */
    TransactionState pendingStateOf(String txnId) {
        TransactionMetadata m = txns.get(txnId);
        if (m == null) {
            return null;
        }
        synchronized (m) {
            return m.pendingState;
        }
    }

    /**
     * Stops the timers and the marker queue (markers still pending are re-queued at the next open
     * from the journal) and closes the journal. Idempotent.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        for (ScheduledFuture<?> t : tasks) {
            t.cancel(false);
        }
        markers.close();
        store.close();
    }
}

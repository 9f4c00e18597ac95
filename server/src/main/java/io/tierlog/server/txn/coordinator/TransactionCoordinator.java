package io.tierlog.server.txn.coordinator;

import io.tierlog.common.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
    private final TxnPipeline pipeline;
    private final TxnTimeouts timeouts;
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
        TxnMarkerQueue markers =
                new TxnMarkerQueue(markerWriter, groups, io, timer, config.markerRetryBackoffMs());
        this.pipeline = new TxnPipeline(config, store, producerIds, markers, io, timer, time, txns);
        this.timeouts = new TxnTimeouts(config, pipeline, txns, time, () -> closed);
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
                    c.pipeline.sendMarkers(m);
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
        return pipeline.onIo(
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
            return pipeline.end(m, t.producerId(), t.producerEpoch(), false, false, serverTv())
                    .thenApply(
                            r ->
                                    initError(
                                            r.error() == Errors.NONE
                                                    ? Errors.CONCURRENT_TRANSACTIONS
                                                    : r.error()));
        }
        TransactionMetadata meta = m;
        return pipeline.persist(meta, t)
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
        return d.transit() == null ? done(d.error()) : pipeline.persist(m, d.transit());
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
        TransactionMetadata m =
                closed || transactionalId == null ? null : txns.get(transactionalId);
        Errors whole = verifyWhole(transactionalId, m);
        if (whole != null) {
            return done(sameFor(partitions, whole));
        }
        synchronized (m) {
            Errors e = TxnDecisions.verify(m, producerId, producerEpoch);
            for (TopicPartition tp : partitions) {
                r.put(
                        tp,
                        e != null
                                ? e
                                : m.partitions.contains(tp)
                                        ? Errors.NONE
                                        : Errors.TRANSACTION_ABORTABLE);
            }
        }
        return done(new AddPartitionsResult(r));
    }

    /** The error for the whole verification before the metadata is looked at, or null. */
    private Errors verifyWhole(String id, TransactionMetadata m) {
        if (id == null || id.isEmpty()) {
            return Errors.INVALID_REQUEST;
        }
        if (closed) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        return m == null ? Errors.INVALID_PRODUCER_ID_MAPPING : null;
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
        TransactionMetadata m =
                closed || transactionalId == null ? null : txns.get(transactionalId);
        Errors whole = verifyWhole(transactionalId, m);
        if (whole != null) {
            return done(whole);
        }
        synchronized (m) {
            Errors e = TxnDecisions.verify(m, producerId, producerEpoch);
            if (e == null) {
                e = m.groups.contains(groupId) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE;
            }
            return done(e);
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
        return pipeline.end(m, producerId, producerEpoch, commit, true, (short) transactionVersion);
    }

    private static EndTxnResult endError(Errors e) {
        return TxnPipeline.endError(e);
    }

    private static <T> CompletableFuture<T> done(T v) {
        return CompletableFuture.completedFuture(v);
    }

    private short serverTv() {
        return (short) config.transactionVersion();
    }

    /** Aborts every Ongoing transaction past its timeout (see {@link TxnTimeouts}). */
    void abortTimedOutTransactions() {
        timeouts.abortTimedOut();
    }

    /** Forgets idle transactional ids past {@code transactional.id.expiration.ms}. */
    void expireTransactionalIds() {
        timeouts.expireIdle();
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
        return TxnQueries.writeMarkers(
                markerWriter,
                io,
                closed,
                producerId,
                producerEpoch,
                coordinatorEpoch,
                commit,
                partitions,
                transactionVersion);
    }

    /** ListTransactions (Kafka's filters; Dead ids are never listed). */
    public CompletableFuture<ListResult> listTransactions(ListFilter filter) {
        if (closed) {
            return done(new ListResult(Errors.COORDINATOR_NOT_AVAILABLE, Set.of(), List.of()));
        }
        return done(TxnQueries.list(txns.values(), filter, time.milliseconds()));
    }

    /** DescribeTransactions, one description per id asked, in order. */
    public CompletableFuture<List<TxnDescription>> describeTransactions(
            Collection<String> transactionalIds) {
        return done(TxnQueries.describe(txns, transactionalIds, closed));
    }

    /**
     * True if {@code producerId} is the current (or previous, during a TV2 rotation) id of a
     * transactional id: an idempotent InitProducerId naming it must get a fresh id.
     */
    public boolean isTransactionalProducerId(long producerId) {
        return TxnQueries.isTransactional(txns.values(), producerId);
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
     * A crash, for tests: stops timers and markers at once without closing the journal (nothing
     * more is written by this instance).
     */
    void abandonForTest() {
        closed = true;
        for (ScheduledFuture<?> t : tasks) {
            t.cancel(false);
        }
        pipeline.close();
    }

    /**
     * Stops the timers and the marker queue (markers still pending are re-queued at the next open
     * from the journal) and closes the journal. Idempotent.
     */
    @Override
    public void close() throws IOException {
        abandonForTest();
        store.close();
    }
}

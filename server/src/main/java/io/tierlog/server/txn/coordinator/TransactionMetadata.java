package io.tierlog.server.txn.coordinator;

import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transactional id's state in memory, as Kafka 4.4's {@code TransactionMetadata}: the
 * transaction's producer id and epoch, its partitions and groups, its state and the pending state
 * of a transition whose journal write is in flight ({@code prepare...} sets it; {@link
 * #completeTransitionTo} applies the target once the write succeeded; {@link #abortPending} drops
 * it when the write failed). A second transition while one is pending is refused by the callers
 * with CONCURRENT_TRANSACTIONS.
 *
 * <p>Not thread-safe by itself: every access holds the object's monitor ({@code synchronized
 * (meta)}), for memory only (never across I/O).
 */
final class TransactionMetadata {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMetadata.class);
    static final long NO_PRODUCER_ID = -1;
    static final short NO_PRODUCER_EPOCH = -1;

    final String transactionalId;
    long producerId;
    long prevProducerId;
    long nextProducerId;
    short producerEpoch;
    short lastProducerEpoch;
    int timeoutMs;
    TransactionState state;
    final Set<TopicPartition> partitions = new LinkedHashSet<>();
    final Set<String> groups = new LinkedHashSet<>();
    long startMs;
    long lastUpdateMs;
    short clientTv;

    /** The target state of the transition in flight, or null. */
    TransactionState pendingState;

    /**
     * An epoch fence bumped the epoch in memory but its journal write failed: the next fence does
     * not bump again (the bumped epoch was never handed out).
     */
    boolean hasFailedEpochFence;

    TransactionMetadata(String transactionalId, long producerId, int timeoutMs, long nowMs) {
        this.transactionalId = transactionalId;
        this.producerId = producerId;
        this.prevProducerId = NO_PRODUCER_ID;
        this.nextProducerId = NO_PRODUCER_ID;
        this.producerEpoch = NO_PRODUCER_EPOCH;
        this.lastProducerEpoch = NO_PRODUCER_EPOCH;
        this.timeoutMs = timeoutMs;
        this.state = TransactionState.EMPTY;
        this.startMs = -1;
        this.lastUpdateMs = nowMs;
        this.clientTv = 0;
    }

    /** The state a journaled record describes (at recovery). */
    static TransactionMetadata of(TxnTransit t) {
        TransactionMetadata m =
                new TransactionMetadata(
                        t.transactionalId(), t.producerId(), t.timeoutMs(), t.lastUpdateMs());
        m.prevProducerId = t.prevProducerId();
        m.nextProducerId = t.nextProducerId();
        m.producerEpoch = t.producerEpoch();
        m.lastProducerEpoch = t.lastProducerEpoch();
        m.state = t.state();
        m.partitions.addAll(t.partitions());
        m.groups.addAll(t.groups());
        m.startMs = t.startMs();
        m.clientTv = t.clientTv();
        return m;
    }

    static boolean isEpochExhausted(short epoch) {
        return epoch >= Short.MAX_VALUE - 1;
    }

    boolean isProducerEpochExhausted() {
        return isEpochExhausted(producerEpoch);
    }

    boolean pendingTransitionInProgress() {
        return pendingState != null;
    }

    /** The current state as a record (what a snapshot holds). */
    TxnTransit current() {
        return new TxnTransit(
                transactionalId,
                producerId,
                prevProducerId,
                nextProducerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                state,
                partitions,
                groups,
                startMs,
                lastUpdateMs,
                clientTv);
    }

    private TxnTransit prepare(
            TransactionState to,
            long pid,
            long nextPid,
            short epoch,
            short lastEpoch,
            int timeout,
            Set<TopicPartition> parts,
            Set<String> grps,
            long start,
            long updateMs,
            short tv) {
        if (pendingState != null) {
            throw new IllegalStateException(
                    transactionalId
                            + ": transition to "
                            + to
                            + " while "
                            + pendingState
                            + " is pending");
        }
        if (pid < 0) {
            throw new IllegalArgumentException("illegal producer id " + pid);
        }
        if (to != TransactionState.DEAD && epoch < 0) {
            throw new IllegalArgumentException("illegal producer epoch " + epoch);
        }
        if (!to.validPreviousStates().contains(state)) {
            throw new IllegalStateException(
                    transactionalId + ": " + state + " cannot move to " + to);
        }
        pendingState = to;
        return new TxnTransit(
                transactionalId,
                pid,
                producerId,
                nextPid,
                epoch,
                lastEpoch,
                timeout,
                to,
                parts,
                grps,
                start,
                updateMs,
                tv);
    }

    /** Ongoing -> PrepareEpochFence: the epoch bumped (once, even if a fence failed before). */
    TxnTransit prepareFenceProducerEpoch() {
        short bumped = producerEpoch;
        if (producerEpoch == Short.MAX_VALUE) {
            LOG.error(
                    "Fencing producer {} {} with epoch equal to Short.MAX_VALUE: a bug",
                    transactionalId,
                    producerId);
        } else if (!hasFailedEpochFence) {
            bumped = (short) (producerEpoch + 1);
        }
        return prepare(
                TransactionState.PREPARE_EPOCH_FENCE,
                producerId,
                nextProducerId,
                bumped,
                lastProducerEpoch,
                timeoutMs,
                partitions,
                groups,
                startMs,
                lastUpdateMs,
                clientTv);
    }

    /**
     * InitProducerId on an idle id: the next epoch; with the producer's expected epoch (KIP-360) a
     * retry of a successful call keeps the epoch, and any other epoch is fenced (null).
     */
    TxnTransit prepareIncrementProducerEpoch(int newTimeoutMs, Short expectedEpoch, long nowMs) {
        if (isProducerEpochExhausted()) {
            throw new IllegalStateException("no more epochs for producer id " + producerId);
        }
        short bumped = (short) (producerEpoch + 1);
        short next;
        short last;
        if (expectedEpoch == null) {
            next = bumped;
            last = NO_PRODUCER_EPOCH;
        } else if (producerEpoch == NO_PRODUCER_EPOCH || expectedEpoch == producerEpoch) {
            next = bumped;
            last = producerEpoch;
        } else if (expectedEpoch == lastProducerEpoch) {
            next = producerEpoch;
            last = lastProducerEpoch;
        } else {
            LOG.info(
                    "{}: expected producer epoch {} is neither the current {} nor the last {}",
                    transactionalId,
                    expectedEpoch,
                    producerEpoch,
                    lastProducerEpoch);
            return null;
        }
        return prepare(
                TransactionState.EMPTY,
                producerId,
                nextProducerId,
                next,
                last,
                newTimeoutMs,
                Set.of(),
                Set.of(),
                -1,
                nowMs,
                clientTv);
    }

    /** InitProducerId once the epoch is exhausted: a new producer id with epoch 0. */
    TxnTransit prepareProducerIdRotation(
            long newProducerId, int newTimeoutMs, long nowMs, boolean recordLastEpoch) {
        if (state == TransactionState.ONGOING || state.isPrepare()) {
            throw new IllegalStateException("cannot rotate producer ids while a txn is open");
        }
        return prepare(
                TransactionState.EMPTY,
                newProducerId,
                nextProducerId,
                (short) 0,
                recordLastEpoch ? producerEpoch : NO_PRODUCER_EPOCH,
                newTimeoutMs,
                Set.of(),
                Set.of(),
                -1,
                nowMs,
                clientTv);
    }

    /** Adds partitions and groups: Ongoing, started now unless it already was. */
    TxnTransit prepareAdd(
            Set<TopicPartition> addParts, Set<String> addGroups, long nowMs, short tv) {
        long start = state.isIdle() ? nowMs : startMs;
        Set<TopicPartition> p = new LinkedHashSet<>(partitions);
        p.addAll(addParts);
        Set<String> g = new LinkedHashSet<>(groups);
        g.addAll(addGroups);
        return prepare(
                TransactionState.ONGOING,
                producerId,
                nextProducerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                p,
                g,
                start,
                nowMs,
                tv);
    }

    /**
     * EndTxn: PrepareCommit/PrepareAbort. TV2 bumps the epoch (never past Short.MAX_VALUE); {@code
     * nextPid} is the id the producer moves to at completion when the epoch is exhausted; {@code
     * noPartitionAdded}: a TV2 abort with nothing added starts (and ends) now.
     */
    TxnTransit prepareAbortOrCommit(
            TransactionState to, short tv, long nextPid, long nowMs, boolean noPartitionAdded) {
        short epoch = producerEpoch;
        short last = lastProducerEpoch;
        if (tv >= 2) {
            if (producerEpoch == Short.MAX_VALUE && to == TransactionState.PREPARE_ABORT) {
                LOG.error(
                        "Aborting producer {} {} with epoch equal to Short.MAX_VALUE: a bug",
                        transactionalId,
                        producerId);
            } else {
                epoch = (short) (producerEpoch + 1);
            }
            last = producerEpoch;
        }
        return prepare(
                to,
                producerId,
                nextPid,
                epoch,
                last,
                timeoutMs,
                partitions,
                groups,
                noPartitionAdded ? nowMs : startMs,
                nowMs,
                tv);
    }

    /** Markers written: CompleteCommit/CompleteAbort (TV2 overflow: the next producer id). */
    TxnTransit prepareComplete(long nowMs) {
        TransactionState to =
                state == TransactionState.PREPARE_COMMIT
                        ? TransactionState.COMPLETE_COMMIT
                        : TransactionState.COMPLETE_ABORT;
        hasFailedEpochFence = false;
        long pid = producerId;
        short epoch = producerEpoch;
        if (clientTv >= 2 && nextProducerId != NO_PRODUCER_ID) {
            pid = nextProducerId;
            epoch = 0;
        }
        // TV1 keeps the last epoch (KIP-360 retries of InitProducerId compare with it).
        short last = clientTv >= 2 ? producerEpoch : lastProducerEpoch;
        return prepare(
                to,
                pid,
                NO_PRODUCER_ID,
                epoch,
                last,
                timeoutMs,
                Set.of(),
                Set.of(),
                startMs,
                nowMs,
                clientTv);
    }

    /** Expiry of an idle id: Dead, then a tombstone. */
    TxnTransit prepareDead() {
        return prepare(
                TransactionState.DEAD,
                producerId,
                nextProducerId,
                producerEpoch,
                lastProducerEpoch,
                timeoutMs,
                Set.of(),
                Set.of(),
                startMs,
                lastUpdateMs,
                clientTv);
    }

    /** The journal write of {@code t} failed: the transition does not happen. */
    void abortPending() {
        pendingState = null;
    }

    /** Applies {@code t} (journaled) to memory. */
    void completeTransitionTo(TxnTransit t) {
        if (pendingState != t.state()) {
            throw new IllegalStateException(
                    transactionalId
                            + ": completing "
                            + t.state()
                            + " while pending is "
                            + pendingState);
        }
        switch (t.state()) {
            case EMPTY -> {
                producerId = t.producerId();
                prevProducerId = t.prevProducerId();
                producerEpoch = t.producerEpoch();
                lastProducerEpoch = t.lastProducerEpoch();
                timeoutMs = t.timeoutMs();
                partitions.clear();
                groups.clear();
                startMs = -1;
            }
            case ONGOING -> {
                partitions.addAll(t.partitions());
                groups.addAll(t.groups());
                startMs = t.startMs();
            }
            case PREPARE_COMMIT, PREPARE_ABORT -> {
                producerEpoch = t.producerEpoch();
                lastProducerEpoch = t.lastProducerEpoch();
                nextProducerId = t.nextProducerId();
                startMs = t.startMs();
            }
            case COMPLETE_COMMIT, COMPLETE_ABORT -> {
                partitions.clear();
                groups.clear();
                startMs = t.startMs();
                if (t.isTv2()) {
                    producerId = t.producerId();
                    prevProducerId = t.prevProducerId();
                    producerEpoch = t.producerEpoch();
                    lastProducerEpoch = t.lastProducerEpoch();
                    nextProducerId = t.nextProducerId();
                }
            }
            case DEAD -> {
                // removed from the coordinator's map by the caller
            }
            case PREPARE_EPOCH_FENCE ->
                    throw new IllegalStateException("PrepareEpochFence is never completed");
        }
        clientTv = t.clientTv();
        lastUpdateMs = t.lastUpdateMs();
        pendingState = null;
        state = t.state();
    }

    @Override
    public String toString() {
        return "TransactionMetadata(" + current() + ", pending=" + pendingState + ")";
    }
}

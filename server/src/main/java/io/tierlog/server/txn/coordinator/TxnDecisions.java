package io.tierlog.server.txn.coordinator;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The coordinator's decisions, made under the transactional id's monitor with no I/O, as Kafka
 * 4.4's {@code TransactionCoordinator}: each returns an error, a no-op answer (a retry of what is
 * done), a transition to journal, or (EndTxn under TV2 with an exhausted epoch) the request for a
 * new producer id, after which the caller decides again with one. Stateless; callers hold {@code
 * synchronized (meta)}.
 */
final class TxnDecisions {
    private TxnDecisions() {}

    /**
     * A decision. {@code transit} non-null: journal it; else {@code error} (NONE: answer now with
     * {@code producerId}/{@code producerEpoch}); {@code needProducerId}: decide again with one.
     */
    record Decision(
            Errors error,
            TxnTransit transit,
            boolean needProducerId,
            boolean epochFence,
            long producerId,
            short producerEpoch) {
        static Decision error(Errors e) {
            return new Decision(e, null, false, false, -1, (short) -1);
        }

        static Decision done(long pid, short epoch) {
            return new Decision(Errors.NONE, null, false, false, pid, epoch);
        }

        static Decision journal(TxnTransit t, boolean fence) {
            return new Decision(Errors.NONE, t, false, fence, t.producerId(), t.producerEpoch());
        }

        static Decision needPid() {
            return new Decision(Errors.NONE, null, true, false, -1, (short) -1);
        }
    }

    /**
     * InitProducerId on an existing id. {@code expectedPid} -1 with {@code expectedEpoch} -1: no
     * expectation (the caller refuses mixed values). Ongoing: the epoch fence transition (the
     * caller aborts with it and answers CONCURRENT_TRANSACTIONS).
     */
    static Decision initProducerId(
            TransactionMetadata m,
            int timeoutMs,
            long expectedPid,
            short expectedEpoch,
            Long newPid,
            long nowMs) {
        boolean expected = expectedPid >= 0;
        if (m.pendingTransitionInProgress()) {
            return Decision.error(Errors.CONCURRENT_TRANSACTIONS);
        }
        if (expected
                && !(m.producerEpoch == TransactionMetadata.NO_PRODUCER_EPOCH
                        || expectedPid == m.producerId
                        || (expectedPid == m.prevProducerId
                                && TransactionMetadata.isEpochExhausted(expectedEpoch)))) {
            return Decision.error(Errors.PRODUCER_FENCED);
        }
        switch (m.state) {
            case PREPARE_ABORT, PREPARE_COMMIT, DEAD, PREPARE_EPOCH_FENCE -> {
                return Decision.error(Errors.CONCURRENT_TRANSACTIONS);
            }
            case ONGOING -> {
                return Decision.journal(m.prepareFenceProducerEpoch(), true);
            }
            default -> {
                if (m.isProducerEpochExhausted()
                        && (!expected || expectedEpoch == m.producerEpoch)) {
                    if (newPid == null) {
                        return Decision.needPid();
                    }
                    return Decision.journal(
                            m.prepareProducerIdRotation(newPid, timeoutMs, nowMs, expected), false);
                }
                TxnTransit t =
                        m.prepareIncrementProducerEpoch(
                                timeoutMs, expected ? expectedEpoch : null, nowMs);
                return t == null
                        ? Decision.error(Errors.PRODUCER_FENCED)
                        : Decision.journal(t, false);
            }
        }
    }

    /** AddPartitionsToTxn / AddOffsetsToTxn / implicit adds. */
    static Decision add(
            TransactionMetadata m,
            long pid,
            short epoch,
            Set<TopicPartition> parts,
            Set<String> groups,
            short tv,
            long nowMs) {
        if (m.pendingTransitionInProgress()) {
            return Decision.error(Errors.CONCURRENT_TRANSACTIONS);
        }
        if (m.producerId != pid) {
            return Decision.error(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        if (m.producerEpoch != epoch) {
            return Decision.error(Errors.PRODUCER_FENCED);
        }
        switch (m.state) {
            case PREPARE_COMMIT, PREPARE_ABORT, DEAD, PREPARE_EPOCH_FENCE -> {
                return Decision.error(Errors.CONCURRENT_TRANSACTIONS);
            }
            case ONGOING -> {
                if (m.partitions.containsAll(parts) && m.groups.containsAll(groups)) {
                    return Decision.done(m.producerId, m.producerEpoch);
                }
            }
            default -> {}
        }
        return Decision.journal(m.prepareAdd(parts, groups, nowMs, tv), false);
    }

    /** KIP-890 verification: null when each item is to be checked, else the whole error. */
    static Errors verify(TransactionMetadata m, long pid, short epoch) {
        if (m.producerId != pid) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (m.producerEpoch != epoch) {
            return Errors.PRODUCER_FENCED;
        }
        if (m.state.isPrepare()) {
            return Errors.CONCURRENT_TRANSACTIONS;
        }
        return null;
    }

    /**
     * EndTxn (from the client) or the abort of an epoch fence / timeout ({@code fromClient} false,
     * with the fenced epoch while PrepareEpochFence is pending).
     */
    static Decision end(
            TransactionMetadata m,
            long pid,
            short epoch,
            boolean commit,
            boolean fromClient,
            short tv,
            Long newPid,
            long nowMs) {
        return tv >= 2
                ? endV2(m, pid, epoch, commit, fromClient, tv, newPid, nowMs)
                : endV1(m, pid, epoch, commit, fromClient, tv, nowMs);
    }

    private static Decision endV1(
            TransactionMetadata m,
            long pid,
            short epoch,
            boolean commit,
            boolean fromClient,
            short tv,
            long nowMs) {
        boolean fence = m.pendingState == TransactionState.PREPARE_EPOCH_FENCE;
        if (m.producerId != pid) {
            return Decision.error(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        // A client may not bump the epoch under TV1: strict equality for it.
        if ((fromClient && epoch != m.producerEpoch) || epoch < m.producerEpoch) {
            return Decision.error(Errors.PRODUCER_FENCED);
        }
        if (m.pendingTransitionInProgress() && !fence) {
            return Decision.error(Errors.CONCURRENT_TRANSACTIONS);
        }
        return switch (m.state) {
            case ONGOING -> {
                TransactionState next =
                        commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
                boolean isFence = fence && !commit;
                if (isFence) {
                    applyFence(m, epoch);
                }
                yield Decision.journal(
                        m.prepareAbortOrCommit(
                                next, tv, TransactionMetadata.NO_PRODUCER_ID, nowMs, false),
                        isFence);
            }
            case COMPLETE_COMMIT ->
                    commit
                            ? Decision.done(m.producerId, m.producerEpoch)
                            : Decision.error(Errors.INVALID_TXN_STATE);
            case COMPLETE_ABORT ->
                    !commit
                            ? Decision.done(m.producerId, m.producerEpoch)
                            : Decision.error(Errors.INVALID_TXN_STATE);
            case PREPARE_COMMIT ->
                    Decision.error(
                            commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT ->
                    Decision.error(
                            !commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case EMPTY -> Decision.error(Errors.INVALID_TXN_STATE);
            case DEAD, PREPARE_EPOCH_FENCE -> Decision.error(Errors.CONCURRENT_TRANSACTIONS);
        };
    }

    private static Decision endV2(
            TransactionMetadata m,
            long pid,
            short epoch,
            boolean commit,
            boolean fromClient,
            short tv,
            Long newPid,
            long nowMs) {
        boolean fence = m.pendingState == TransactionState.PREPARE_EPOCH_FENCE;
        // A retry of an end whose epoch bump overflowed into a new producer id.
        boolean retryOnOverflow =
                !fence
                        && m.prevProducerId == pid
                        && epoch == Short.MAX_VALUE - 1
                        && m.producerEpoch == 0;
        // A retry of an end already done: the journaled epoch is the request's + 1.
        boolean retryOnEpochBump = !fence && m.producerEpoch == epoch + 1;
        boolean validEpoch;
        if (fence) {
            validEpoch = (!fromClient || epoch == m.producerEpoch) && epoch >= m.producerEpoch;
        } else {
            validEpoch =
                    switch (m.state) {
                        case ONGOING, EMPTY, DEAD, PREPARE_EPOCH_FENCE -> epoch == m.producerEpoch;
                        case PREPARE_COMMIT, PREPARE_ABORT -> retryOnEpochBump;
                        case COMPLETE_COMMIT, COMPLETE_ABORT ->
                                retryOnEpochBump || retryOnOverflow || epoch == m.producerEpoch;
                    };
        }
        boolean retry = retryOnEpochBump || retryOnOverflow;
        if (m.producerId != pid && !retryOnOverflow) {
            return Decision.error(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        if (!validEpoch) {
            return Decision.error(Errors.PRODUCER_FENCED);
        }
        if (m.pendingTransitionInProgress() && !fence) {
            return Decision.error(Errors.CONCURRENT_TRANSACTIONS);
        }
        TransactionState abort = TransactionState.PREPARE_ABORT;
        return switch (m.state) {
            case ONGOING ->
                    complete(
                            m,
                            commit ? TransactionState.PREPARE_COMMIT : abort,
                            false,
                            fence,
                            tv,
                            newPid,
                            nowMs);
            case COMPLETE_COMMIT -> {
                if (commit) {
                    yield retry
                            ? Decision.done(m.producerId, m.producerEpoch)
                            : Decision.error(Errors.INVALID_TXN_STATE);
                }
                yield retry
                        ? Decision.error(Errors.INVALID_TXN_STATE)
                        : complete(m, abort, true, fence, tv, newPid, nowMs);
            }
            case COMPLETE_ABORT -> {
                if (commit) {
                    yield Decision.error(Errors.INVALID_TXN_STATE);
                }
                yield retry
                        ? Decision.done(m.producerId, m.producerEpoch)
                        : complete(m, abort, true, fence, tv, newPid, nowMs);
            }
            case PREPARE_COMMIT ->
                    Decision.error(
                            commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT ->
                    Decision.error(
                            !commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case EMPTY ->
                    commit
                            ? Decision.error(Errors.INVALID_TXN_STATE)
                            : complete(m, abort, true, fence, tv, newPid, nowMs);
            case DEAD, PREPARE_EPOCH_FENCE -> Decision.error(Errors.CONCURRENT_TRANSACTIONS);
        };
    }

    private static Decision complete(
            TransactionMetadata m,
            TransactionState next,
            boolean noPartitionAdded,
            boolean fence,
            short tv,
            Long newPid,
            long nowMs) {
        // Kafka 4.4's TV2 end: an epoch fence's pending state is dropped but its bump is not
        // applied (no setProducerEpoch, unlike its TV1 path), so the abort's own TV2 bump is the
        // only one: the epoch ends one above the client's, whose later commit is then a retry
        // by epoch and answers INVALID_TXN_STATE, not PRODUCER_FENCED. Nor is rotation skipped.
        boolean rotate = m.isProducerEpochExhausted();
        if (rotate && newPid == null) {
            return Decision.needPid();
        }
        boolean isFence = fence && next == TransactionState.PREPARE_ABORT;
        if (isFence) {
            m.pendingState = null;
        }
        return Decision.journal(
                m.prepareAbortOrCommit(
                        next,
                        tv,
                        rotate ? newPid : TransactionMetadata.NO_PRODUCER_ID,
                        nowMs,
                        noPartitionAdded),
                isFence);
    }

    /**
     * TV1 (Kafka 4.4's endTransactionWithTV1): the fence's bumped epoch becomes memory's before the
     * abort is journaled (never handed out: if the write fails, {@code hasFailedEpochFence} keeps
     * the next fence from bumping again).
     */
    private static void applyFence(TransactionMetadata m, short epoch) {
        m.pendingState = null;
        m.producerEpoch = epoch;
        m.lastProducerEpoch = TransactionMetadata.NO_PRODUCER_EPOCH;
    }
}

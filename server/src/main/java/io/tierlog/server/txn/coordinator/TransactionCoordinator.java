package io.tierlog.server.txn.coordinator;

import io.tierlog.common.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

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

    TransactionCoordinator() {}

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
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * InitProducerId with a transactional id. {@code expectedProducerId}/{@code
     * expectedProducerEpoch}: -1/-1 from a new producer, else (v3+, KIP-360) the id/epoch the
     * producer holds. Errors: INVALID_REQUEST (empty id), INVALID_TRANSACTION_TIMEOUT,
     * CONCURRENT_TRANSACTIONS (a transaction is completing, or an Ongoing one is being fenced and
     * aborted: retry), PRODUCER_FENCED (KIP-360 with a stale id/epoch),
     * COORDINATOR_LOAD_IN_PROGRESS.
     */
    public CompletableFuture<InitPidResult> initProducerId(
            String transactionalId,
            int transactionTimeoutMs,
            long expectedProducerId,
            short expectedProducerEpoch) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * AddPartitionsToTxn (TV1, v0-3 from the client) or the implicit add of TV2 (AddPartitionsToTxn
     * v4-5 without VerifyOnly, on behalf of Produce v12): adds {@code partitions} to the open
     * transaction, opening it if none is (TV2 only starts one implicitly from Empty/Complete*; TV1
     * does so too, as Kafka). Already Ongoing with all partitions present: answered without I/O.
     * Errors (the same for every partition): INVALID_REQUEST (empty id),
     * INVALID_PRODUCER_ID_MAPPING (unknown id or another producer id), PRODUCER_FENCED (another
     * epoch), CONCURRENT_TRANSACTIONS (a transition in flight or the transaction completing),
     * INVALID_TXN_STATE, or the journal's error (KAFKA_STORAGE_ERROR).
     */
    public CompletableFuture<AddPartitionsResult> addPartitions(
            String transactionalId,
            long producerId,
            short producerEpoch,
            Collection<TopicPartition> partitions,
            int transactionVersion) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * KIP-890 VerifyOnly (AddPartitionsToTxn v4+ with verify_only, on behalf of a TV1 Produce):
     * whether each partition is in the producer's open transaction; never writes. Partitions not in
     * it get TRANSACTION_ABORTABLE; the whole request INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED
     * or CONCURRENT_TRANSACTIONS as {@link #addPartitions}.
     */
    public CompletableFuture<AddPartitionsResult> verifyPartitions(
            String transactionalId,
            long producerId,
            short producerEpoch,
            Collection<TopicPartition> partitions) {
        throw new UnsupportedOperationException("not yet");
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
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * KIP-890 verification for TxnOffsetCommit (TV1): NONE if {@code groupId} is in the producer's
     * open transaction, TRANSACTION_ABORTABLE if not; errors as {@link #verifyPartitions}.
     */
    public CompletableFuture<Errors> verifyOffsets(
            String transactionalId, long producerId, short producerEpoch, String groupId) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * EndTxn: journals PrepareCommit/PrepareAbort, answers, then writes the markers and completes
     * in the background. A retry of an end already done answers NONE (TV1: same epoch; TV2: judged
     * by the bumped epoch). Errors: INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED,
     * INVALID_TXN_STATE, CONCURRENT_TRANSACTIONS.
     */
    public CompletableFuture<EndTxnResult> endTxn(
            String transactionalId,
            long producerId,
            short producerEpoch,
            boolean commit,
            int transactionVersion) {
        throw new UnsupportedOperationException("not yet");
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
        throw new UnsupportedOperationException("not yet");
    }

    /** ListTransactions. */
    public CompletableFuture<ListResult> listTransactions(ListFilter filter) {
        throw new UnsupportedOperationException("not yet");
    }

    /** DescribeTransactions, one description per id asked, in order. */
    public CompletableFuture<List<TxnDescription>> describeTransactions(
            Collection<String> transactionalIds) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * True if {@code producerId} is the current (or previous, during a TV2 rotation) id of a
     * transactional id: an idempotent InitProducerId naming it must get a fresh id.
     */
    public boolean isTransactionalProducerId(long producerId) {
        throw new UnsupportedOperationException("not yet");
    }

    /** This coordinator's epoch (one more at every open), written into markers. */
    public int coordinatorEpoch() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Stops the timers and the marker queue (markers still pending are re-queued at the next open
     * from the journal) and closes the journal. Idempotent.
     */
    @Override
    public void close() throws IOException {}
}

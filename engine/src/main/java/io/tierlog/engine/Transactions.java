package io.tierlog.engine;

import io.tierlog.hot.AppendResult;
import io.tierlog.hot.LogOfflineException;
import io.tierlog.hot.OngoingTxn;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.ProducerStateException;
import io.tierlog.hot.VerificationGuard;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The partition side of transactions, for a transaction coordinator and the Produce path: KIP-890
 * verification tokens, commit/abort markers, the last stable offset and open transactions. From
 * {@link TieredLog#transactions()}. Every method may throw {@link
 * org.apache.kafka.common.errors.UnknownTopicOrPartitionException} for an unknown partition and
 * {@link org.apache.kafka.common.errors.KafkaStorageException} when the log is closed. Thread-safe
 * (the hot tier is).
 */
public final class Transactions {
    private final Function<TopicPartition, PartitionLog> hot;

    Transactions(Function<TopicPartition, PartitionLog> hot) {
        this.hot = hot;
    }

    /**
     * Starts verification of a producer's first transactional batch in a partition: returns the
     * token to pass with the append after the coordinator confirmed the partition is in the
     * transaction, or {@link TxnVerification#NONE} when the partition already knows the producer's
     * transaction is ongoing (no coordinator call needed). Calling it again before the append
     * returns the same token (a retried request), a marker or successful append retires it. Never
     * blocks on I/O (takes the partition's lock briefly).
     */
    public TxnVerification startVerification(
            TopicPartition tp,
            long producerId,
            int baseSequence,
            short producerEpoch,
            boolean supportsEpochBump) {
        try {
            VerificationGuard g =
                    hot.apply(tp)
                            .maybeStartTxnVerification(
                                    producerId, baseSequence, producerEpoch, supportsEpochBump);
            return g == VerificationGuard.SENTINEL ? TxnVerification.NONE : new TxnVerification(g);
        } catch (ProducerStateException e) {
            throw AppendErrors.producerState(e);
        }
    }

    /**
     * Whether a verification is needed for this producer's next transactional batch: true unless a
     * transaction of the producer is open in the partition.
     */
    public boolean needsVerification(TopicPartition tp, long producerId) {
        for (OngoingTxn t : hot.apply(tp).ongoingTransactions()) {
            if (t.producerId() == producerId) {
                return false;
            }
        }
        return true;
    }

    /**
     * Appends a commit or abort marker (a control batch) for {@code producerId} to the partition,
     * as a coordinator does for each partition of a completed transaction. A marker for a producer
     * with no open transaction in the partition is written too (Kafka does: a retried marker, or a
     * partition the transaction never wrote to). Blocks (disk; fsync in FSYNC durability): never
     * call it on an event loop.
     *
     * @return the marker's offset
     * @throws org.apache.kafka.common.errors.TransactionCoordinatorFencedException coordinator
     *     epoch below the partition's
     * @throws org.apache.kafka.common.errors.InvalidProducerEpochException epoch too old
     * @throws org.apache.kafka.common.errors.UnknownTopicOrPartitionException no such partition
     * @throws org.apache.kafka.common.errors.KafkaStorageException partition offline
     */
    public long appendMarker(
            TopicPartition tp,
            long producerId,
            short producerEpoch,
            int coordinatorEpoch,
            boolean commit,
            int transactionVersion)
            throws IOException {
        try {
            AppendResult r =
                    hot.apply(tp)
                            .appendEndTxnMarker(
                                    producerId,
                                    producerEpoch,
                                    coordinatorEpoch,
                                    commit,
                                    transactionVersion);
            return r.firstOffset();
        } catch (ProducerStateException e) {
            throw AppendErrors.producerState(e);
        } catch (LogOfflineException e) {
            throw new org.apache.kafka.common.errors.KafkaStorageException(e.getMessage(), e);
        }
    }

    /**
     * The partition's last stable offset (= high watermark when no transaction is open): what a
     * {@code read_committed} reader may read up to. From memory, lock-free.
     */
    public long lastStableOffset(TopicPartition tp) {
        return hot.apply(tp).lastStableOffset();
    }

    /** The transactions open in the partition, oldest first. From memory. */
    public List<OpenTransaction> openTransactions(TopicPartition tp) {
        List<OngoingTxn> ongoing = hot.apply(tp).ongoingTransactions();
        List<OpenTransaction> out = new ArrayList<>(ongoing.size());
        for (OngoingTxn t : ongoing) {
            out.add(
                    new OpenTransaction(
                            t.producerId(), t.producerEpoch(), t.firstOffset(), t.lastTimestamp()));
        }
        return out;
    }
}

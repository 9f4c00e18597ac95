package io.tierlog.server.txn.coordinator;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The target of one state transition of a transactional id: what is journaled (the fields of
 * Kafka's {@code TransactionLogValue}, plus the consumer groups whose offsets are in the
 * transaction) and what memory becomes once the journal write succeeded. Immutable; thread-safe.
 *
 * @param startMs when the open transaction started (first add), -1 when none is open
 * @param clientTv the transaction version of the request that caused the transition
 */
record TxnTransit(
        String transactionalId,
        long producerId,
        long prevProducerId,
        long nextProducerId,
        short producerEpoch,
        short lastProducerEpoch,
        int timeoutMs,
        TransactionState state,
        Set<TopicPartition> partitions,
        Set<String> groups,
        long startMs,
        long lastUpdateMs,
        short clientTv) {

    TxnTransit {
        partitions = Set.copyOf(partitions);
        groups = Set.copyOf(groups);
    }

    /** TV2 rules apply (epoch bump at every end). */
    boolean isTv2() {
        return clientTv >= 2;
    }
}

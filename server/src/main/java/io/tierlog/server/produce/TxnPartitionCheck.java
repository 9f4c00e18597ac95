package io.tierlog.server.produce;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction coordinator as the Produce path needs it (KIP-890): before a producer's first
 * transactional batch in a partition is appended, the coordinator confirms that the partition is in
 * the producer's ongoing transaction (TV1 clients, Produce v3-11), or adds it (TV2, Produce v12:
 * the implicit AddPartitionsToTxn). Implementations must be safe to call from any thread; a call
 * may block (a journal write when partitions are added), so Produce calls it on the blocking
 * executor.
 */
public interface TxnPartitionCheck {
    /**
     * Verifies, or with {@code add} adds, {@code partitions} in the transaction of {@code
     * transactionalId}.
     *
     * @return per partition the coordinator's error, in Kafka's codes before any mapping for old
     *     clients (a partition that is absent or {@link Errors#NONE} passed); a coordinator-level
     *     error (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...) is given for every partition.
     *     Never completes exceptionally for a refusal.
     */
    CompletableFuture<Map<TopicPartition, Errors>> check(
            String transactionalId,
            long producerId,
            short producerEpoch,
            Set<TopicPartition> partitions,
            boolean add);
}

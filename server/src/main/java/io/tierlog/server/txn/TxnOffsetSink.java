package io.tierlog.server.txn;

import java.io.IOException;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Where TxnOffsetCommit leaves a transaction's offsets: the group coordinator, which holds them
 * pending until the transaction's marker and checks the member as OffsetCommit does (the server
 * wires {@code GroupCoordinator.txnCommitOffsets}). Implementations must be thread-safe; a call
 * blocks on the offsets journal (TxnOffsetCommit calls it on the blocking executor).
 */
public interface TxnOffsetSink {
    /** One partition's offset as the transaction commits it. */
    record TxnOffset(long offset, int leaderEpoch, String metadata) {}

    /**
     * Journals {@code offsets} as pending for the producer's transaction in {@code groupId}.
     *
     * @param memberId "" and {@code generation} -1 when the request carries none (v0-2)
     * @return one error per partition of {@code offsets}
     * @throws IOException nothing was journaled
     */
    Map<TopicPartition, Errors> txnCommitOffsets(
            String groupId,
            long producerId,
            short producerEpoch,
            String memberId,
            int generation,
            String groupInstanceId,
            Map<TopicPartition, TxnOffset> offsets)
            throws IOException;
}

package io.tierlog.cold;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.cold.testing.TxnBatches;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.slf4j.helpers.NOPLogger;

/**
 * Format 1 objects (no {@code batch_txn_state}): a transactional batch takes the outcome of its
 * producer's next marker inside the object, a marker its own type, and a batch whose marker is not
 * in the object counts as committed.
 */
class LegacyTxnStatesTest {
    @Test
    void outcomesComeFromTheNextMarkerOfTheSameProducerInsideTheObject() {
        TxnBatches h =
                new TxnBatches(0, CompressionType.NONE)
                        .txn(1, 2) // 0-1: P1, aborted at 4
                        .txn(2, 1) // 2: P2, committed at 3
                        .marker(2, true) // 3
                        .marker(1, false) // 4
                        .txn(1, 1) // 5: P1 again, committed at 7
                        .txn(3, 1) // 6: P3, marker beyond the object
                        .marker(1, true) // 7
                        .plain(1); // 8
        LegacyTxnStates.Builder b = new LegacyTxnStates.Builder("old-object");
        for (MemoryRecords m : h.batches()) {
            RecordBatch batch = m.firstBatch();
            if (batch.isControlBatch()) {
                ByteBuffer key = batch.iterator().next().key();
                b.marker(batch.producerId(), batch.baseOffset(), key);
            }
        }
        LegacyTxnStates states = b.build(NOPLogger.NOP_LOGGER);
        ByteBuffer all = h.concatenated();
        Map<Long, TxnState> got = states.statesOf(MemoryRecords.readableRecords(all));
        assertThat(got)
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                0L, TxnState.ABORTED,
                                2L, TxnState.COMMITTED,
                                3L, TxnState.COMMITTED,
                                4L, TxnState.ABORTED,
                                5L, TxnState.COMMITTED,
                                6L, TxnState.COMMITTED,
                                7L, TxnState.COMMITTED));
        ColdBatches c = ColdBatches.of(MemoryRecords.readableRecords(h.concatenated()), got, false);
        assertThat(c.abortedRuns()).isEqualTo(List.of(new AbortedRun(1, 0, 4)));
        assertThat(c.txnStatesStored()).isFalse();
    }
}

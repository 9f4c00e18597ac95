package io.tierlog.server.txn.coordinator;

import static io.tierlog.server.txn.coordinator.TxnTestKit.A0;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.server.txn.coordinator.TransactionCoordinator.InitPidResult;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal write that fails: the request gets the retriable COORDINATOR_NOT_AVAILABLE, memory
 * stays as it was (no pending state left behind), the next change starts a new generation and
 * works; a failed epoch fence is not bumped twice.
 */
class JournalFailureTest {
    @TempDir Path dir;

    @Test
    void aFailedWriteIsRefusedRetriablyAndTheRetryIsDurable() throws Exception {
        FaultyTxnFiles files = new FaultyTxnFiles();
        try (TxnTestKit k = new TxnTestKit(dir, 2)) {
            k.files = files;
            k.c.close();
            k.open();
            InitPidResult p = k.init("t");
            files.failWrites = 1;
            assertThat(
                            k.c.addPartitions(
                                            "t", p.producerId(), p.producerEpoch(), List.of(A0), 2)
                                    .get()
                                    .partitions())
                    .containsEntry(A0, Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.EMPTY);
            assertThat(k.c.pendingStateOf("t")).isNull();
            assertThat(
                            k.c.addPartitions(
                                            "t", p.producerId(), p.producerEpoch(), List.of(A0), 2)
                                    .get()
                                    .partitions())
                    .containsEntry(A0, Errors.NONE);
            k.crashAndReopen();
            assertThat(k.c.stateOf("t").state()).isEqualTo(TransactionState.ONGOING);
            assertThat(k.c.stateOf("t").partitions()).containsExactly(A0);
        }
    }

    @Test
    void aFencedEpochWhoseAbortWasNotJournaledIsNotBumpedAgain() throws Exception {
        FaultyTxnFiles files = new FaultyTxnFiles();
        try (TxnTestKit k = new TxnTestKit(dir, 1)) {
            k.files = files;
            k.c.close();
            k.open();
            InitPidResult p = k.init("t");
            k.c.addPartitions("t", p.producerId(), p.producerEpoch(), List.of(A0), 1).get();
            files.failWrites = 1;
            assertThat(k.init("t").error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(k.markers.calls).isEmpty();
            assertThat(k.c.pendingStateOf("t")).isNull();
            assertThat(k.init("t").error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
            short fenced = (short) (p.producerEpoch() + 1);
            assertThat(k.markers.calls)
                    .extracting(TxnTestKit.Marker::epoch)
                    .containsExactly(fenced);
            assertThat(k.init("t").producerEpoch()).isEqualTo((short) (fenced + 1));
        }
    }
}

package io.tierlog.server.txn.coordinator;

import static io.tierlog.server.txn.coordinator.TxnTestKit.A0;
import static io.tierlog.server.txn.coordinator.TxnTestKit.A1;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The coordinator's answer and next state for every request in every state, under both transaction
 * versions, as Kafka 4.4 decides them (TransactionCoordinator's endTransaction and
 * endTransactionWithTV1, handleAddPartitionsToTransaction, prepareInitProducerIdTransit). The
 * producer uses its current epoch (after a TV2 end: the bumped one it was answered); "retry" is the
 * epoch of the EndTxn that brought the transaction where it is (TV2: one less).
 */
class TransitionTableTest {
    @TempDir Path dir;

    enum Req {
        INIT,
        ADD,
        COMMIT,
        ABORT,
        COMMIT_RETRY,
        ABORT_RETRY
    }

    static Stream<Arguments> table() {
        String rows =
                """
                1 EMPTY           INIT         NONE                     EMPTY
                1 EMPTY           ADD          NONE                     ONGOING
                1 EMPTY           COMMIT       INVALID_TXN_STATE        EMPTY
                1 EMPTY           ABORT        INVALID_TXN_STATE        EMPTY
                1 ONGOING         INIT         CONCURRENT_TRANSACTIONS  COMPLETE_ABORT
                1 ONGOING         ADD          NONE                     ONGOING
                1 ONGOING         COMMIT       NONE                     COMPLETE_COMMIT
                1 ONGOING         ABORT        NONE                     COMPLETE_ABORT
                1 PREPARE_COMMIT  INIT         CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                1 PREPARE_COMMIT  ADD          CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                1 PREPARE_COMMIT  COMMIT       CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                1 PREPARE_COMMIT  ABORT        CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                1 PREPARE_ABORT   INIT         CONCURRENT_TRANSACTIONS  PREPARE_ABORT
                1 PREPARE_ABORT   ADD          CONCURRENT_TRANSACTIONS  PREPARE_ABORT
                1 PREPARE_ABORT   ABORT        CONCURRENT_TRANSACTIONS  PREPARE_ABORT
                1 COMPLETE_COMMIT INIT         NONE                     EMPTY
                1 COMPLETE_COMMIT ADD          NONE                     ONGOING
                1 COMPLETE_COMMIT COMMIT       NONE                     COMPLETE_COMMIT
                1 COMPLETE_COMMIT ABORT        INVALID_TXN_STATE        COMPLETE_COMMIT
                1 COMPLETE_ABORT  INIT         NONE                     EMPTY
                1 COMPLETE_ABORT  ADD          NONE                     ONGOING
                1 COMPLETE_ABORT  COMMIT       INVALID_TXN_STATE        COMPLETE_ABORT
                1 COMPLETE_ABORT  ABORT        NONE                     COMPLETE_ABORT
                2 EMPTY           INIT         NONE                     EMPTY
                2 EMPTY           ADD          NONE                     ONGOING
                2 EMPTY           COMMIT       INVALID_TXN_STATE        EMPTY
                2 EMPTY           ABORT        NONE                     COMPLETE_ABORT
                2 ONGOING         INIT         CONCURRENT_TRANSACTIONS  COMPLETE_ABORT
                2 ONGOING         ADD          NONE                     ONGOING
                2 ONGOING         COMMIT       NONE                     COMPLETE_COMMIT
                2 ONGOING         ABORT        NONE                     COMPLETE_ABORT
                2 PREPARE_COMMIT  INIT         CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                2 PREPARE_COMMIT  ADD          CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                2 PREPARE_COMMIT  COMMIT       PRODUCER_FENCED          PREPARE_COMMIT
                2 PREPARE_COMMIT  COMMIT_RETRY CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                2 PREPARE_COMMIT  ABORT_RETRY  CONCURRENT_TRANSACTIONS  PREPARE_COMMIT
                2 PREPARE_ABORT   ABORT        PRODUCER_FENCED          PREPARE_ABORT
                2 PREPARE_ABORT   ABORT_RETRY  CONCURRENT_TRANSACTIONS  PREPARE_ABORT
                2 COMPLETE_COMMIT INIT         NONE                     EMPTY
                2 COMPLETE_COMMIT ADD          NONE                     ONGOING
                2 COMPLETE_COMMIT COMMIT       INVALID_TXN_STATE        COMPLETE_COMMIT
                2 COMPLETE_COMMIT COMMIT_RETRY NONE                     COMPLETE_COMMIT
                2 COMPLETE_COMMIT ABORT        NONE                     COMPLETE_ABORT
                2 COMPLETE_COMMIT ABORT_RETRY  INVALID_TXN_STATE        COMPLETE_COMMIT
                2 COMPLETE_ABORT  INIT         NONE                     EMPTY
                2 COMPLETE_ABORT  ADD          NONE                     ONGOING
                2 COMPLETE_ABORT  COMMIT       INVALID_TXN_STATE        COMPLETE_ABORT
                2 COMPLETE_ABORT  COMMIT_RETRY INVALID_TXN_STATE        COMPLETE_ABORT
                2 COMPLETE_ABORT  ABORT        NONE                     COMPLETE_ABORT
                2 COMPLETE_ABORT  ABORT_RETRY  NONE                     COMPLETE_ABORT
                """;
        return rows.lines()
                .map(String::trim)
                .filter(l -> !l.isEmpty())
                .map(l -> l.split("\\s+"))
                .map(
                        f ->
                                Arguments.of(
                                        Integer.parseInt(f[0]),
                                        TransactionState.valueOf(f[1]),
                                        Req.valueOf(f[2]),
                                        Errors.valueOf(f[3]),
                                        TransactionState.valueOf(f[4])));
    }

    /** The producer as it stands after reaching a state: its id, current and previous epoch. */
    record Producer(long pid, short epoch, short retryEpoch) {}

    private Producer reach(TxnTestKit k, TransactionState s, int tv) throws Exception {
        TransactionCoordinator.InitPidResult init = k.init("t");
        assertThat(init.error()).isEqualTo(Errors.NONE);
        long pid = init.producerId();
        short e = init.producerEpoch();
        if (s == TransactionState.EMPTY) {
            return new Producer(pid, e, e);
        }
        assertThat(k.c.addPartitions("t", pid, e, List.of(A0), tv).get().partitions())
                .containsEntry(A0, Errors.NONE);
        if (s == TransactionState.ONGOING) {
            return new Producer(pid, e, e);
        }
        if (s.isPrepare()) {
            k.markers.hold();
        }
        boolean commit =
                s == TransactionState.PREPARE_COMMIT || s == TransactionState.COMPLETE_COMMIT;
        TransactionCoordinator.EndTxnResult end = k.c.endTxn("t", pid, e, commit, tv).get();
        assertThat(end.error()).isEqualTo(Errors.NONE);
        assertThat(k.c.stateOf("t").state()).isEqualTo(s);
        return tv >= 2
                ? new Producer(end.producerId(), end.producerEpoch(), e)
                : new Producer(pid, e, e);
    }

    @ParameterizedTest(name = "TV{0} {1} + {2} -> {3}, {4}")
    @MethodSource("table")
    void eachRequestInEachStateGetsKafkasAnswerAndNextState(
            int tv, TransactionState from, Req req, Errors error, TransactionState next)
            throws Exception {
        try (TxnTestKit k = new TxnTestKit(dir, tv)) {
            Producer p = reach(k, from, tv);
            Errors got =
                    switch (req) {
                        case INIT -> k.c.initProducerId("t", 60_000, -1, (short) -1).get().error();
                        case ADD ->
                                k.c.addPartitions("t", p.pid(), p.epoch(), List.of(A1), tv)
                                        .get()
                                        .partitions()
                                        .get(A1);
                        case COMMIT -> k.c.endTxn("t", p.pid(), p.epoch(), true, tv).get().error();
                        case ABORT -> k.c.endTxn("t", p.pid(), p.epoch(), false, tv).get().error();
                        case COMMIT_RETRY ->
                                k.c.endTxn("t", p.pid(), p.retryEpoch(), true, tv).get().error();
                        case ABORT_RETRY ->
                                k.c.endTxn("t", p.pid(), p.retryEpoch(), false, tv).get().error();
                    };
            assertThat(got).isEqualTo(error);
            assertThat(k.c.stateOf("t").state()).isEqualTo(next);
        }
    }
}

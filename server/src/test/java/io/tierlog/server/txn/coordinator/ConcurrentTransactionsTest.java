package io.tierlog.server.txn.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Time;
import io.tierlog.common.testing.Await;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.EndTxnResult;
import io.tierlog.server.txn.coordinator.TransactionCoordinator.InitPidResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many producers at once on real threads (journal writes grouped across them, markers written from
 * another pool): every transaction ends exactly as its producer asked, each marker once, and a
 * reopened coordinator recovers every id's last state.
 */
class ConcurrentTransactionsTest {
    @TempDir Path dir;

    @Test
    void manyProducersCommitAndAbortConcurrentlyAndEveryOutcomeIsJournaled() throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(4);
        ExecutorService markerPool = Executors.newFixedThreadPool(2);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        ExecutorService clients = Executors.newFixedThreadPool(8);
        Map<String, AtomicInteger> markersPerTxn = new ConcurrentHashMap<>();
        Map<Long, String> idOf = new ConcurrentHashMap<>();
        TxnMarkerWriter writer =
                (tp, pid, epoch, ce, commit, tv) ->
                        CompletableFuture.runAsync(
                                () ->
                                        markersPerTxn
                                                .computeIfAbsent(
                                                        idOf.get(pid) + (commit ? "+" : "-"),
                                                        k -> new AtomicInteger())
                                                .incrementAndGet(),
                                markerPool);
        AtomicLong pids = new AtomicLong(1);
        TransactionConfig config = TransactionConfig.defaults();
        int producers = 16;
        int rounds = 15;
        try {
            TransactionCoordinator c =
                    TransactionCoordinator.open(
                            dir,
                            config,
                            pids::getAndIncrement,
                            writer,
                            (g, p, e, commit) -> CompletableFuture.completedFuture(null),
                            io,
                            timer,
                            Time.SYSTEM);
            List<Future<short[]>> done = new ArrayList<>();
            for (int i = 0; i < producers; i++) {
                String id = "p" + i;
                done.add(
                        clients.submit(
                                () -> {
                                    InitPidResult r =
                                            c.initProducerId(id, 60_000, -1, (short) -1).get();
                                    assertThat(r.error()).isEqualTo(Errors.NONE);
                                    idOf.put(r.producerId(), id);
                                    long pid = r.producerId();
                                    short epoch = r.producerEpoch();
                                    List<TopicPartition> parts =
                                            List.of(
                                                    new TopicPartition(id, 0),
                                                    new TopicPartition(id, 1));
                                    for (int round = 0; round < rounds; round++) {
                                        Errors add;
                                        do { // CONCURRENT_TRANSACTIONS while the last completes
                                            add =
                                                    c.addPartitions(id, pid, epoch, parts, 2)
                                                            .get()
                                                            .partitions()
                                                            .get(parts.get(0));
                                        } while (add == Errors.CONCURRENT_TRANSACTIONS);
                                        assertThat(add).isEqualTo(Errors.NONE);
                                        EndTxnResult end =
                                                c.endTxn(id, pid, epoch, round % 3 != 0, 2).get();
                                        assertThat(end.error()).isEqualTo(Errors.NONE);
                                        epoch = end.producerEpoch();
                                    }
                                    return new short[] {epoch};
                                }));
            }
            for (Future<short[]> f : done) {
                f.get();
            }
            Await.until(
                    "every transaction completed",
                    () -> {
                        for (int i = 0; i < producers; i++) {
                            if (c.stateOf("p" + i).state().isPrepare()) {
                                return false;
                            }
                        }
                        return true;
                    },
                    Duration.ofSeconds(30));
            Map<String, TxnTransit> before = new java.util.TreeMap<>();
            for (int i = 0; i < producers; i++) {
                before.put("p" + i, c.stateOf("p" + i));
                int commits =
                        (int)
                                java.util.stream.IntStream.range(0, rounds)
                                        .filter(r -> r % 3 != 0)
                                        .count();
                assertThat(markersPerTxn.get("p" + i + "+").get()).isEqualTo(2 * commits);
                assertThat(markersPerTxn.get("p" + i + "-").get())
                        .isEqualTo(2 * (rounds - commits));
                assertThat(before.get("p" + i).producerEpoch()).isEqualTo((short) (rounds + 0));
            }
            c.close();
            TransactionCoordinator again =
                    TransactionCoordinator.open(
                            dir,
                            config,
                            pids::getAndIncrement,
                            writer,
                            (g, p, e, commit) -> CompletableFuture.completedFuture(null),
                            io,
                            timer,
                            Time.SYSTEM);
            for (int i = 0; i < producers; i++) {
                assertThat(again.stateOf("p" + i)).isEqualTo(before.get("p" + i));
            }
            again.close();
        } finally {
            clients.shutdownNow();
            io.shutdownNow();
            markerPool.shutdownNow();
            timer.shutdownNow();
        }
    }
}

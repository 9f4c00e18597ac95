package io.tierlog.server.txn.coordinator;

import io.tierlog.common.MockTime;
import io.tierlog.common.testing.ManualScheduler;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * A coordinator under test: real journal in a temp dir, a manual clock and timer, an I/O executor
 * that either runs work inline or queues it for the test to step, and recording doubles for the
 * marker writer and the group completer (with knobs to hold or fail calls). Not thread-safe: one
 * test thread drives it.
 */
final class TxnTestKit implements AutoCloseable {
    static final TopicPartition A0 = new TopicPartition("a", 0);
    static final TopicPartition A1 = new TopicPartition("a", 1);
    static final TopicPartition B0 = new TopicPartition("b", 0);

    /** One marker written (or attempted). */
    record Marker(
            TopicPartition tp,
            long pid,
            short epoch,
            int coordinatorEpoch,
            boolean commit,
            int tv) {}

    /** One group completion (or attempt). */
    record GroupEnd(String group, long pid, short epoch, boolean commit) {}

    /** Runs work inline, or queues it while {@code hold} is set. */
    static final class StepExecutor implements Executor {
        final Deque<Runnable> queue = new ArrayDeque<>();
        boolean hold;

        @Override
        public void execute(Runnable r) {
            if (hold) {
                queue.add(r);
            } else {
                r.run();
            }
        }

        /** Runs queued work (and work it queues) until none is left. */
        void runAll() {
            while (!queue.isEmpty()) {
                queue.poll().run();
            }
        }

        /** Runs the first queued task only. */
        void runOne() {
            queue.poll().run();
        }

        /** Forgets queued work (a crash). */
        void drop() {
            queue.clear();
        }
    }

    /** Records markers; each call answered by {@link #answer} (default: written). */
    static final class Markers implements TxnMarkerWriter {
        final List<Marker> calls = new ArrayList<>();
        final List<CompletableFuture<Void>> held = new ArrayList<>();
        Function<Marker, CompletableFuture<Void>> answer =
                m -> CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<Void> writeMarker(
                TopicPartition tp, long pid, short epoch, int coordEpoch, boolean commit, int tv) {
            Marker m = new Marker(tp, pid, epoch, coordEpoch, commit, tv);
            calls.add(m);
            return answer.apply(m);
        }

        /** From now on every call waits until the test completes it in {@link #held}. */
        void hold() {
            answer =
                    m -> {
                        CompletableFuture<Void> f = new CompletableFuture<>();
                        held.add(f);
                        return f;
                    };
        }
    }

    static final class Groups implements TxnGroupCompleter {
        final List<GroupEnd> calls = new ArrayList<>();
        Function<GroupEnd, CompletableFuture<Void>> answer =
                g -> CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<Void> completeTransaction(
                String groupId, long pid, short epoch, boolean commit) {
            GroupEnd g = new GroupEnd(groupId, pid, epoch, commit);
            calls.add(g);
            return answer.apply(g);
        }
    }

    final Path dir;
    final MockTime time = new MockTime(1_700_000_000_000L);
    final ManualScheduler timer = new ManualScheduler(time);
    final StepExecutor io = new StepExecutor();
    final Markers markers = new Markers();
    final Groups groups = new Groups();
    final AtomicLong nextPid = new AtomicLong(1000);
    TransactionConfig config;
    TxnFiles files = TxnFiles.REAL;
    TransactionCoordinator c;
    private final List<TransactionCoordinator> opened = new ArrayList<>();

    TxnTestKit(Path dir, int tv) throws IOException {
        this.dir = dir;
        this.config = TransactionConfig.defaults().withTransactionVersion(tv);
        open();
    }

    /** Opens a coordinator on the same directory (after a crash or close of the last). */
    TransactionCoordinator open() throws IOException {
        c =
                TransactionCoordinator.open(
                        dir,
                        config,
                        nextPid::getAndIncrement,
                        markers,
                        groups,
                        io,
                        timer,
                        time,
                        files);
        opened.add(c);
        return c;
    }

    /**
     * A kill -9: the old coordinator does nothing more (its queued work is dropped, it is not
     * closed, so nothing is flushed or written at shutdown), and a new one opens on the files.
     */
    TransactionCoordinator crashAndReopen() throws IOException {
        io.drop();
        io.hold = false;
        TransactionCoordinator old = c;
        // Its timers must not fire into the new run; its journal stays as the crash left it.
        TransactionCoordinator next = open();
        old.abandonForTest();
        return next;
    }

    /** InitProducerId for a new producer of {@code id} (timeout 60 s). */
    TransactionCoordinator.InitPidResult init(String id) throws Exception {
        return c.initProducerId(id, 60_000, -1, (short) -1).get();
    }

    @Override
    public void close() throws IOException {
        io.hold = false;
        io.runAll();
        for (TransactionCoordinator o : opened) {
            o.close();
        }
    }
}

package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offsets pending in open transactions survive kill -9 and snapshots as they were: still pending
 * (nothing completes them but the coordinator's marker), at their producer's epoch, and in the
 * order that decides what a later commit applies (a plain commit journaled after a pending offset
 * wins over it). The expected state is an {@link OffsetState} that received the same changes and
 * never crashed.
 */
class TxnOffsetsRecoveryTest {
    @TempDir Path root;

    private static final List<String> GROUPS = List.of("a", "b");
    private static final long[] PIDS = {10, 11, 12};

    /** One change, applied alike to a store and to the never-crashed state. */
    private sealed interface Op {
        void apply(OffsetState s);

        void apply(OffsetStore s) throws IOException;
    }

    private record Commit(String g, Map<TopicPartition, OffsetStore.Committed> o) implements Op {
        public void apply(OffsetState s) {
            s.commit(g, o);
        }

        public void apply(OffsetStore s) throws IOException {
            s.commit(g, o);
        }
    }

    private record Pending(
            String g, long pid, short epoch, Map<TopicPartition, OffsetStore.Committed> o)
            implements Op {
        public void apply(OffsetState s) {
            if (s.acceptsEpoch(g, pid, epoch)) {
                s.addPending(g, pid, epoch, o);
            }
        }

        public void apply(OffsetStore s) throws IOException {
            s.txnCommit(g, pid, epoch, o);
        }
    }

    private record End(String g, long pid, short epoch, boolean commit) implements Op {
        public void apply(OffsetState s) {
            if (s.pendingEpoch(g, pid).map(e -> e <= epoch).orElse(true)) {
                s.endTxn(g, pid, commit);
            }
        }

        public void apply(OffsetStore s) throws IOException {
            s.endTxn(g, pid, epoch, commit);
        }
    }

    private record Delete(String g, List<TopicPartition> tps) implements Op {
        public void apply(OffsetState s) {
            s.delete(g, tps);
        }

        public void apply(OffsetStore s) throws IOException {
            s.delete(g, tps);
        }
    }

    private record DeleteGroup(String g) implements Op {
        public void apply(OffsetState s) {
            s.deleteGroup(g);
        }

        public void apply(OffsetStore s) throws IOException {
            s.deleteGroup(g);
        }
    }

    private static TopicPartition tp(Random r) {
        return new TopicPartition("t" + r.nextInt(2), r.nextInt(2));
    }

    private static Map<TopicPartition, OffsetStore.Committed> offsets(Random r) {
        Map<TopicPartition, OffsetStore.Committed> m = new HashMap<>();
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
            m.put(
                    tp(r),
                    new OffsetStore.Committed(r.nextInt(1000), r.nextInt(3), "m" + r.nextInt(3)));
        }
        return m;
    }

    private static Op randomOp(Random r) {
        String g = GROUPS.get(r.nextInt(GROUPS.size()));
        long pid = PIDS[r.nextInt(PIDS.length)];
        short epoch = (short) r.nextInt(3);
        int kind = r.nextInt(20);
        if (kind < 5) {
            return new Commit(g, offsets(r));
        } else if (kind < 12) {
            return new Pending(g, pid, epoch, offsets(r));
        } else if (kind < 17) {
            return new End(g, pid, epoch, r.nextInt(3) > 0);
        } else if (kind < 19) {
            return new Delete(g, List.of(tp(r)));
        }
        return new DeleteGroup(g);
    }

    /** Committed offsets, and per group and producer: epoch and pending offsets. */
    private static Map<String, Object> view(OffsetState s) {
        Map<String, Object> v = new TreeMap<>();
        for (String g : s.groupIds()) {
            v.put("committed " + g, s.all(g));
            s.pending
                    .getOrDefault(g, Map.of())
                    .forEach(
                            (pid, t) -> {
                                Map<TopicPartition, OffsetStore.Committed> o = new HashMap<>();
                                t.offsets.forEach((tp, p) -> o.put(tp, p.value()));
                                v.put("pending " + g + " " + pid + " epoch " + t.epoch, o);
                            });
        }
        return v;
    }

    /** Commits every open transaction, in one order for both: what each applies shows the order. */
    private static void commitAll(OffsetState s) {
        for (String g : GROUPS) {
            for (long pid : PIDS) {
                s.endTxn(g, pid, true);
            }
        }
    }

    private static OffsetState replayed(List<Op> ops) {
        OffsetState s = new OffsetState();
        for (Op op : ops) {
            op.apply(s);
        }
        return s;
    }

    private static void assertSame(OffsetState recovered, OffsetState expected, String what) {
        assertThat(view(recovered)).as(what).isEqualTo(view(expected));
        commitAll(recovered);
        commitAll(expected);
        assertThat(view(recovered))
                .as(what + ", then every transaction committed")
                .isEqualTo(view(expected));
    }

    @Test
    void pendingOffsetsSurviveKillsAndSnapshotsWithTheirEpochAndOrder() {
        Property.forAll(
                40,
                random -> {
                    Path meta = Files.createTempDirectory(root, "txn");
                    long snapshotBytes = 100 + random.nextInt(3000);
                    List<Op> ops = new ArrayList<>();
                    OffsetStore store =
                            OffsetStore.open(
                                    meta,
                                    OffsetStore.Durability.PAGE_CACHE,
                                    snapshotBytes,
                                    OffsetFiles.REAL);
                    for (int i = 0; i < 120; i++) {
                        Op op = randomOp(random);
                        op.apply(store);
                        ops.add(op);
                        if (random.nextInt(15) == 0) {
                            // kill -9: the store is dropped without close
                            store =
                                    OffsetStore.open(
                                            meta,
                                            OffsetStore.Durability.PAGE_CACHE,
                                            snapshotBytes,
                                            OffsetFiles.REAL);
                            assertThat(view(store.state()))
                                    .as("after a kill at change %d", i)
                                    .isEqualTo(view(replayed(ops)));
                        }
                    }
                    OffsetStore reopened =
                            OffsetStore.open(
                                    meta,
                                    OffsetStore.Durability.PAGE_CACHE,
                                    snapshotBytes,
                                    OffsetFiles.REAL);
                    assertSame(reopened.state(), replayed(ops), "after the last kill");
                });
    }

    @Test
    void aKillAtAnyFileSystemStepLosesNoAcknowledgedTransactionalChange() {
        Property.forAll(
                60,
                random -> {
                    Path meta = Files.createTempDirectory(root, "crash");
                    List<Op> acked = new ArrayList<>();
                    OffsetStore before = OffsetStore.open(meta);
                    for (int i = random.nextInt(30); i > 0; i--) {
                        Op op = randomOp(random);
                        op.apply(before);
                        acked.add(op);
                    }
                    FaultyOffsetFiles faulty = new FaultyOffsetFiles(1 + random.nextInt(120));
                    Op cut = null;
                    try {
                        OffsetStore s =
                                OffsetStore.open(
                                        meta,
                                        OffsetStore.Durability.FSYNC,
                                        50 + random.nextInt(1500),
                                        faulty);
                        for (int i = 0; i < 150; i++) {
                            Op op = randomOp(random);
                            try {
                                op.apply(s);
                            } catch (IOException killed) {
                                cut = op;
                                break;
                            }
                            acked.add(op);
                        }
                    } catch (IOException killedInOpen) {
                        // recovery itself was killed: nothing new was acknowledged
                    }
                    OffsetState recovered = OffsetStore.open(meta).state();
                    if (cut != null) {
                        List<Op> withCut = new ArrayList<>(acked);
                        withCut.add(cut);
                        OffsetState cutState = replayed(withCut);
                        if (view(recovered).equals(view(cutState))) {
                            assertSame(recovered, cutState, "the cut change made it whole");
                            return;
                        }
                    }
                    assertSame(recovered, replayed(acked), "killed at step " + faulty.steps());
                });
    }
}

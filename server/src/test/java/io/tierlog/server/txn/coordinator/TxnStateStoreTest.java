package io.tierlog.server.txn.coordinator;

import static io.tierlog.server.txn.coordinator.TxnTestKit.A0;
import static io.tierlog.server.txn.coordinator.TxnTestKit.B0;
import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transaction state journal: round trip, generations, torn tails, damaged snapshots. */
class TxnStateStoreTest {
    @TempDir Path dir;

    private static TxnTransit state(String id, int i, TransactionState s) {
        return new TxnTransit(
                id,
                100 + i,
                100 + i,
                -1,
                (short) i,
                (short) (i - 1),
                60_000,
                s,
                s == TransactionState.EMPTY ? Set.of() : Set.of(A0, B0),
                s == TransactionState.EMPTY ? Set.of() : Set.of("g" + i),
                s == TransactionState.EMPTY ? -1 : 1000L + i,
                2000L + i,
                (short) (i % 3));
    }

    private TxnStateStore open() throws IOException {
        return TxnStateStore.open(dir, false, 1 << 20, TxnFiles.REAL);
    }

    @Test
    void recordsAndTombstonesSurviveAReopenAndTheCoordinatorEpochGrowsAtEachOpen()
            throws Exception {
        try (TxnStateStore s = open()) {
            assertThat(s.coordinatorEpoch()).isEqualTo(0);
            s.write(state("a", 1, TransactionState.ONGOING));
            s.write(state("b", 2, TransactionState.EMPTY));
            s.write(state("a", 3, TransactionState.PREPARE_COMMIT));
            s.write(state("c", 4, TransactionState.EMPTY));
            s.remove("c");
        }
        try (TxnStateStore s = open()) {
            assertThat(s.coordinatorEpoch()).isEqualTo(1);
            assertThat(s.loaded())
                    .containsOnlyKeys("a", "b")
                    .containsEntry("a", state("a", 3, TransactionState.PREPARE_COMMIT))
                    .containsEntry("b", state("b", 2, TransactionState.EMPTY));
        }
        try (TxnStateStore s = open()) {
            assertThat(s.coordinatorEpoch()).isEqualTo(2);
        }
    }

    @Test
    void aJournalPastTheSnapshotSizeStartsANewGenerationAndOldOnesAreDeleted() throws Exception {
        try (TxnStateStore s = TxnStateStore.open(dir, true, 2_000, TxnFiles.REAL)) {
            long first = s.generation();
            for (int i = 0; i < 100; i++) {
                s.write(state("t" + (i % 7), i, TransactionState.ONGOING));
            }
            assertThat(s.generation()).isGreaterThan(first + 2);
            try (Stream<Path> files = Files.list(dir.resolve("transactions"))) {
                assertThat(files.count()).isLessThanOrEqualTo(4); // generations n-1 and n
            }
        }
        try (TxnStateStore s = open()) {
            assertThat(s.loaded()).hasSize(7);
            assertThat(s.loaded().get("t1")).isEqualTo(state("t1", 99, TransactionState.ONGOING));
        }
    }

    /**
     * A crash cuts the journal at any byte: every record wholly before the cut is recovered, none
     * after it, and the reopened store appends normally (its next open sees both).
     */
    @Test
    void aJournalTornAtAnyByteRecoversExactlyTheRecordsBeforeTheCut() {
        Property.forAll(
                30,
                (Random r) -> {
                    Path d = Files.createTempDirectory(dir, "p");
                    List<TxnTransit> written = new ArrayList<>();
                    List<Long> ends = new ArrayList<>();
                    Path journal;
                    try (TxnStateStore s = TxnStateStore.open(d, false, 1 << 20, TxnFiles.REAL)) {
                        journal =
                                d.resolve("transactions")
                                        .resolve(TxnStateStore.journalName(s.generation()));
                        int n = 1 + r.nextInt(20);
                        for (int i = 0; i < n; i++) {
                            TxnTransit t =
                                    state(
                                            "t" + r.nextInt(5),
                                            i,
                                            TransactionState.values()[r.nextInt(6)]);
                            s.write(t);
                            written.add(t);
                            ends.add(Files.size(journal));
                        }
                    }
                    long size = Files.size(journal);
                    long cut = r.nextLong(size + 1);
                    try (FileChannel ch = FileChannel.open(journal, StandardOpenOption.WRITE)) {
                        ch.truncate(cut);
                    }
                    Map<String, TxnTransit> expected = new LinkedHashMap<>();
                    for (int i = 0; i < written.size(); i++) {
                        if (ends.get(i) <= cut) {
                            expected.put(written.get(i).transactionalId(), written.get(i));
                        }
                    }
                    TxnTransit after = state("late", 77, TransactionState.ONGOING);
                    try (TxnStateStore s = TxnStateStore.open(d, false, 1 << 20, TxnFiles.REAL)) {
                        assertThat(s.loaded()).isEqualTo(expected);
                        s.write(after);
                    }
                    expected.put("late", after);
                    try (TxnStateStore s = TxnStateStore.open(d, false, 1 << 20, TxnFiles.REAL)) {
                        assertThat(s.loaded()).isEqualTo(expected);
                    }
                });
    }

    @Test
    void anUnreadableSnapshotIsMovedAsideAndTheOlderGenerationIsUsed() throws Exception {
        long gen;
        try (TxnStateStore s = open()) {
            s.write(state("a", 1, TransactionState.ONGOING));
        }
        try (TxnStateStore s = open()) { // generation 2: snapshot holds "a"; generation 1 kept
            gen = s.generation();
            s.write(state("b", 2, TransactionState.EMPTY));
        }
        Path snap = dir.resolve("transactions").resolve(TxnStateStore.snapshotName(gen));
        byte[] b = Files.readAllBytes(snap);
        b[b.length / 2] ^= 0x5a;
        Files.write(snap, b);
        try (TxnStateStore s = open()) {
            // generation 1's snapshot (empty) + journal ("a") + generation 2's journal ("b")
            assertThat(s.loaded()).containsOnlyKeys("a", "b");
        }
        try (Stream<Path> files = Files.list(dir.resolve("transactions"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .anyMatch(n -> n.startsWith(TxnStateStore.snapshotName(gen) + ".corrupt-"));
        }
    }
}

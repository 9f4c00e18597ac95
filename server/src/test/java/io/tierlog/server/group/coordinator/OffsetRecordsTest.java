package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Journal framing: records round-trip, and a flipped bit or a cut frame ends the replay there. */
class OffsetRecordsTest {
    private static final TopicPartition TP = new TopicPartition("topic", 2);

    private static ByteBuffer concat(byte[]... frames) {
        int n = 0;
        for (byte[] f : frames) {
            n += f.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] f : frames) {
            b.put(f);
        }
        return b.flip();
    }

    @Test
    void commitDeleteAndDeleteGroupRecordsReplayInOrder() {
        ByteBuffer b =
                concat(
                        OffsetRecords.commit(
                                "g",
                                Map.of(
                                        TP,
                                        new OffsetStore.Committed(5, 1, "ü,m"),
                                        new TopicPartition("x", 0),
                                        new OffsetStore.Committed(6, -1, null))),
                        OffsetRecords.commit("h", Map.of(TP, new OffsetStore.Committed(1, 0, ""))),
                        OffsetRecords.delete("g", List.of(new TopicPartition("x", 0))),
                        OffsetRecords.deleteGroup("h"));
        OffsetState state = new OffsetState();
        OffsetRecords.Replayed r = OffsetRecords.replay(b, state);
        assertThat(r.bytes()).isEqualTo(b.limit());
        assertThat(state.groupIds()).containsOnly("g");
        assertThat(state.all("g"))
                .containsExactlyEntriesOf(Map.of(TP, new OffsetStore.Committed(5, 1, "ü,m")));
    }

    @Test
    void aFlippedBitOrACutFrameStopsTheReplayAtThatRecord() {
        byte[] first = OffsetRecords.commit("g", Map.of(TP, new OffsetStore.Committed(1, 0, "")));
        byte[] second = OffsetRecords.commit("g", Map.of(TP, new OffsetStore.Committed(2, 0, "")));
        for (int i = 0; i < second.length; i++) {
            byte[] bad = second.clone();
            bad[i] ^= 0x10;
            OffsetState state = new OffsetState();
            OffsetRecords.Replayed r = OffsetRecords.replay(concat(first, bad), state);
            assertThat(r.bytes()).as("bit flipped in byte %d", i).isEqualTo(first.length);
            assertThat(state.committed("g", TP).orElseThrow().offset()).isEqualTo(1);
        }
        for (int cut = 0; cut < second.length; cut++) {
            OffsetState state = new OffsetState();
            byte[] torn = java.util.Arrays.copyOf(second, cut);
            assertThat(OffsetRecords.replay(concat(first, torn), state).bytes())
                    .as("cut after %d bytes", cut)
                    .isEqualTo(first.length);
        }
    }

    @Test
    void aSnapshotIsWholeOnlyWithItsEndRecord() {
        OffsetState s = new OffsetState();
        s.commit("g", Map.of(TP, new OffsetStore.Committed(3, 0, "")));
        s.addPending("g", 7, (short) 0, Map.of(TP, new OffsetStore.Committed(4, 0, "")));
        byte[] snap = OffsetRecords.snapshot(s);
        ByteBuffer whole = ByteBuffer.wrap(snap).position(OffsetRecords.SNAPSHOT_MAGIC.length);
        assertThat(OffsetRecords.replay(whole, new OffsetState()).ended()).isTrue();
        ByteBuffer cut =
                ByteBuffer.wrap(java.util.Arrays.copyOf(snap, snap.length - 1))
                        .position(OffsetRecords.SNAPSHOT_MAGIC.length);
        assertThat(OffsetRecords.replay(cut, new OffsetState()).ended()).isFalse();
    }

    private static OffsetStore.Committed at(long offset) {
        return new OffsetStore.Committed(offset, 0, "");
    }

    @Test
    void pendingRecordsWaitForTheirTransactionsEndAndAnAbortDropsThem() {
        TopicPartition other = new TopicPartition("x", 0);
        ByteBuffer b =
                concat(
                        OffsetRecords.commit("g", Map.of(TP, at(1))),
                        OffsetRecords.pending("g", 10, (short) 3, Map.of(TP, at(5), other, at(6))),
                        OffsetRecords.pending("g", 11, (short) 0, Map.of(other, at(9))),
                        OffsetRecords.txnEnd("g", 11, false));
        OffsetState state = new OffsetState();
        assertThat(OffsetRecords.replay(b, state).bytes()).isEqualTo(b.limit());
        assertThat(state.committed("g", TP)).contains(at(1));
        assertThat(state.hasPending("g", TP)).isTrue();
        assertThat(state.hasPending("g", other)).isTrue();
        assertThat(state.pendingEpoch("g", 10)).contains((short) 3);
        assertThat(state.pendingEpoch("g", 11)).isEmpty();
        OffsetRecords.replay(concat(OffsetRecords.txnEnd("g", 10, true)), state);
        assertThat(state.all("g")).containsOnly(Map.entry(TP, at(5)), Map.entry(other, at(6)));
        assertThat(state.hasPending("g", TP)).isFalse();
    }

    @Test
    void aPlainCommitJournaledAfterThePendingOneWinsAtTheTransactionsCommit() {
        ByteBuffer b =
                concat(
                        OffsetRecords.pending("g", 10, (short) 0, Map.of(TP, at(5))),
                        OffsetRecords.commit("g", Map.of(TP, at(7))),
                        OffsetRecords.txnEnd("g", 10, true));
        OffsetState state = new OffsetState();
        OffsetRecords.replay(b, state);
        assertThat(state.committed("g", TP)).contains(at(7));
    }

    @Test
    void deletingAPartitionOrTheGroupDropsItsPendingOffsetsToo() {
        TopicPartition other = new TopicPartition("x", 0);
        OffsetState state = new OffsetState();
        OffsetRecords.replay(
                concat(
                        OffsetRecords.pending("g", 10, (short) 0, Map.of(TP, at(5), other, at(6))),
                        OffsetRecords.pending("h", 10, (short) 0, Map.of(TP, at(5))),
                        OffsetRecords.delete("g", List.of(TP)),
                        OffsetRecords.deleteGroup("h"),
                        OffsetRecords.txnEnd("g", 10, true),
                        OffsetRecords.txnEnd("h", 10, true)),
                state);
        assertThat(state.all("g")).containsOnly(Map.entry(other, at(6)));
        assertThat(state.groupIds()).containsOnly("g");
    }

    /**
     * A snapshot keeps the order between a transaction's pending offset and the committed offset of
     * its partition, and between two transactions' pending offsets: what each commit then applies
     * is the same as from the journal it replaces.
     */
    @Test
    void aSnapshotKeepsTheOrderThatDecidesWhichOffsetACommitApplies() {
        TopicPartition p1 = new TopicPartition("t", 1);
        List<byte[]> history =
                List.of(
                        OffsetRecords.commit("g", Map.of(TP, at(1), p1, at(1))),
                        OffsetRecords.pending("g", 20, (short) 0, Map.of(TP, at(20))),
                        OffsetRecords.pending("g", 10, (short) 0, Map.of(TP, at(10), p1, at(10))),
                        OffsetRecords.commit("g", Map.of(p1, at(2))),
                        OffsetRecords.pending("g", 20, (short) 1, Map.of(p1, at(21))));
        OffsetState journaled = new OffsetState();
        OffsetRecords.replay(concat(history.toArray(byte[][]::new)), journaled);
        byte[] snap = OffsetRecords.snapshot(journaled);
        OffsetState fromSnapshot = new OffsetState();
        OffsetRecords.Replayed r =
                OffsetRecords.replay(
                        ByteBuffer.wrap(snap).position(OffsetRecords.SNAPSHOT_MAGIC.length),
                        fromSnapshot);
        assertThat(r.ended()).isTrue();
        assertThat(fromSnapshot.pendingEpoch("g", 20)).contains((short) 1);
        for (OffsetState s : List.of(journaled, fromSnapshot)) {
            // 20 before 10 on TP: 10's is newer; on p1 10's is older than the plain commit 2
            s.endTxn("g", 20, true);
            assertThat(s.committed("g", TP)).contains(at(20));
            assertThat(s.committed("g", p1)).contains(at(21));
            s.endTxn("g", 10, true);
            assertThat(s.committed("g", TP)).contains(at(10));
            assertThat(s.committed("g", p1)).contains(at(21));
        }
    }
}

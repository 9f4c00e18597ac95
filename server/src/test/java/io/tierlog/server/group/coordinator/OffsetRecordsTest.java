package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HashMap;
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
        Map<String, Map<TopicPartition, OffsetStore.Committed>> state = new HashMap<>();
        OffsetRecords.Replayed r = OffsetRecords.replay(b, state);
        assertThat(r.bytes()).isEqualTo(b.limit());
        assertThat(state).containsOnlyKeys("g");
        assertThat(state.get("g"))
                .containsExactlyEntriesOf(Map.of(TP, new OffsetStore.Committed(5, 1, "ü,m")));
    }

    @Test
    void aFlippedBitOrACutFrameStopsTheReplayAtThatRecord() {
        byte[] first = OffsetRecords.commit("g", Map.of(TP, new OffsetStore.Committed(1, 0, "")));
        byte[] second = OffsetRecords.commit("g", Map.of(TP, new OffsetStore.Committed(2, 0, "")));
        for (int i = 0; i < second.length; i++) {
            byte[] bad = second.clone();
            bad[i] ^= 0x10;
            Map<String, Map<TopicPartition, OffsetStore.Committed>> state = new HashMap<>();
            OffsetRecords.Replayed r = OffsetRecords.replay(concat(first, bad), state);
            assertThat(r.bytes()).as("bit flipped in byte %d", i).isEqualTo(first.length);
            assertThat(state.get("g").get(TP).offset()).isEqualTo(1);
        }
        for (int cut = 0; cut < second.length; cut++) {
            Map<String, Map<TopicPartition, OffsetStore.Committed>> state = new HashMap<>();
            byte[] torn = java.util.Arrays.copyOf(second, cut);
            assertThat(OffsetRecords.replay(concat(first, torn), state).bytes())
                    .as("cut after %d bytes", cut)
                    .isEqualTo(first.length);
        }
    }

    @Test
    void aSnapshotIsWholeOnlyWithItsEndRecord() {
        Map<String, Map<TopicPartition, OffsetStore.Committed>> s =
                Map.of("g", Map.of(TP, new OffsetStore.Committed(3, 0, "")));
        byte[] snap = OffsetRecords.snapshot(s);
        ByteBuffer whole = ByteBuffer.wrap(snap).position(OffsetRecords.SNAPSHOT_MAGIC.length);
        assertThat(OffsetRecords.replay(whole, new HashMap<>()).ended()).isTrue();
        ByteBuffer cut =
                ByteBuffer.wrap(java.util.Arrays.copyOf(snap, snap.length - 1))
                        .position(OffsetRecords.SNAPSHOT_MAGIC.length);
        assertThat(OffsetRecords.replay(cut, new HashMap<>()).ended()).isFalse();
    }
}

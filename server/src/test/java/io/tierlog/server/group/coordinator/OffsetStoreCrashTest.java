package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Property;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill at any file-system step (journal write, fsync, snapshot temp file, rename, directory
 * fsync, deletion of an old generation, recovery itself) loses no acknowledged change: after a
 * restart the offsets are those of every acknowledged change, plus at most the one cut.
 */
class OffsetStoreCrashTest {
    @TempDir Path root;

    private static final List<String> GROUPS = List.of("a", "b", "c");

    @Test
    void aKillAtAnyStepLosesNoAcknowledgedChange() {
        Property.forAll(
                60,
                random -> {
                    Path meta = Files.createTempDirectory(root, "crash");
                    Map<String, Map<TopicPartition, OffsetStore.Committed>> acked = new HashMap<>();
                    // history written by a store that stopped cleanly or not at all
                    OffsetStore before = OffsetStore.open(meta);
                    for (int i = random.nextInt(20); i > 0; i--) {
                        change(random, before, acked);
                    }
                    if (random.nextBoolean()) {
                        before.close();
                    }
                    FaultyOffsetFiles faulty = new FaultyOffsetFiles(1 + random.nextInt(120));
                    OffsetStore.Durability durability =
                            random.nextBoolean()
                                    ? OffsetStore.Durability.FSYNC
                                    : OffsetStore.Durability.PAGE_CACHE;
                    Map<String, Map<TopicPartition, OffsetStore.Committed>> cut = null;
                    try {
                        OffsetStore s =
                                OffsetStore.open(
                                        meta, durability, 50 + random.nextInt(1500), faulty);
                        for (int i = 0; i < 150; i++) {
                            Map<String, Map<TopicPartition, OffsetStore.Committed>> next =
                                    copy(acked);
                            try {
                                change(random, s, next);
                            } catch (IOException killed) {
                                cut = next;
                                break;
                            }
                            acked = next;
                        }
                    } catch (IOException killedInOpen) {
                        // recovery itself was killed: nothing new was acknowledged
                    }
                    if (random.nextBoolean()) {
                        // a second kill, during the recovery of the first one
                        try {
                            OffsetStore.open(
                                    meta,
                                    durability,
                                    1 << 20,
                                    new FaultyOffsetFiles(1 + random.nextInt(8)));
                        } catch (IOException killedAgain) {
                            // as above
                        }
                    }
                    Map<String, Map<TopicPartition, OffsetStore.Committed>> recovered =
                            contents(OffsetStore.open(meta));
                    if (cut != null && recovered.equals(cut)) {
                        return; // the cut change made it to the page cache whole
                    }
                    assertThat(recovered)
                            .as("killed at step %d (dead: %s)", faulty.steps(), faulty.dead())
                            .isEqualTo(acked);
                });
    }

    /** One random change to {@code store}, mirrored into {@code model} first. */
    private static void change(
            Random r,
            OffsetStore store,
            Map<String, Map<TopicPartition, OffsetStore.Committed>> model)
            throws IOException {
        String g = GROUPS.get(r.nextInt(GROUPS.size()));
        int kind = r.nextInt(10);
        if (kind < 7) {
            Map<TopicPartition, OffsetStore.Committed> offsets = new HashMap<>();
            for (int i = 1 + r.nextInt(3); i > 0; i--) {
                offsets.put(
                        new TopicPartition("t" + r.nextInt(2), r.nextInt(3)),
                        new OffsetStore.Committed(
                                r.nextInt(1000), r.nextInt(3), r.nextBoolean() ? "" : "meta"));
            }
            model.computeIfAbsent(g, x -> new HashMap<>()).putAll(offsets);
            store.commit(g, offsets);
        } else if (kind < 9) {
            List<TopicPartition> tps =
                    List.of(new TopicPartition("t" + r.nextInt(2), r.nextInt(3)));
            Map<TopicPartition, OffsetStore.Committed> m = model.get(g);
            if (m != null) {
                tps.forEach(m::remove);
                if (m.isEmpty()) {
                    model.remove(g);
                }
            }
            store.delete(g, tps);
        } else {
            model.remove(g);
            store.deleteGroup(g);
        }
    }

    private static Map<String, Map<TopicPartition, OffsetStore.Committed>> copy(
            Map<String, Map<TopicPartition, OffsetStore.Committed>> m) {
        Map<String, Map<TopicPartition, OffsetStore.Committed>> c = new HashMap<>();
        m.forEach((g, o) -> c.put(g, new HashMap<>(o)));
        return c;
    }

    private static Map<String, Map<TopicPartition, OffsetStore.Committed>> contents(OffsetStore s) {
        Map<String, Map<TopicPartition, OffsetStore.Committed>> c = new HashMap<>();
        for (String g : s.groupIds()) {
            c.put(g, new HashMap<>(s.all(g)));
        }
        return c;
    }
}

package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Committed offsets survive restarts, whatever the group id, and no group file bricks startup. */
class OffsetStoreTest {
    @TempDir Path meta;

    private static final TopicPartition TP = new TopicPartition("t", 3);

    @Test
    void groupIdsOfAnyLengthCommitAndReloadWithinTheFileNameLimit() throws Exception {
        OffsetStore store = OffsetStore.open(meta);
        List<String> ids = List.of("g", "x".repeat(119), "y".repeat(120), "z".repeat(2000), "ü€");
        long offset = 10;
        for (String id : ids) {
            store.commit(id, Map.of(TP, new OffsetStore.Committed(offset++, 0, "m,with,commas")));
        }
        try (Stream<Path> files = Files.list(meta.resolve("groups"))) {
            assertThat(files.map(f -> f.getFileName().toString().length()))
                    .allMatch(n -> n <= 255 - ".tmp".length());
        }
        OffsetStore reopened = OffsetStore.open(meta);
        offset = 10;
        for (String id : ids) {
            assertThat(reopened.committed(id, TP))
                    .as("group of %d chars", id.length())
                    .contains(new OffsetStore.Committed(offset++, 0, "m,with,commas"));
        }
    }

    @Test
    void aDamagedGroupFileIsMovedAsideAndTheOthersLoad() throws Exception {
        OffsetStore store = OffsetStore.open(meta);
        store.commit("good", Map.of(TP, new OffsetStore.Committed(7, 1, "")));
        store.commit("bad", Map.of(TP, new OffsetStore.Committed(8, 1, "")));
        Path bad = meta.resolve("groups").resolve(OffsetStore.fileName("bad"));
        Files.writeString(bad, "3.t=not-a-number\n");
        Files.writeString(meta.resolve("groups").resolve("zz-not-hex.properties"), "x=y\n");

        OffsetStore reopened = OffsetStore.open(meta);

        assertThat(reopened.committed("good", TP)).contains(new OffsetStore.Committed(7, 1, ""));
        assertThat(reopened.committed("bad", TP)).isEmpty();
        assertThat(bad).doesNotExist();
        try (Stream<Path> files = Files.list(meta.resolve("groups"))) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .anyMatch(n -> n.startsWith(OffsetStore.fileName("bad") + ".corrupt-"))
                    .anyMatch(n -> n.startsWith("zz-not-hex.properties.corrupt-"));
        }
    }

    @Test
    void deletedOffsetsAndGroupsStayDeletedAfterAReopen() throws Exception {
        TopicPartition other = new TopicPartition("t", 4);
        OffsetStore store = OffsetStore.open(meta);
        store.commit(
                "a",
                Map.of(
                        TP,
                        new OffsetStore.Committed(1, 0, ""),
                        other,
                        new OffsetStore.Committed(2, 0, "")));
        store.commit("b", Map.of(TP, new OffsetStore.Committed(3, 0, "")));
        store.delete("a", List.of(TP, new TopicPartition("never", 0)));
        assertThat(store.deleteGroup("b")).isTrue();
        assertThat(store.deleteGroup("b")).as("idempotent").isFalse();

        OffsetStore reopened = OffsetStore.open(meta);

        assertThat(reopened.all("a")).containsOnlyKeys(other);
        assertThat(reopened.groupIds()).containsExactly("a");
        assertThat(meta.resolve("groups").resolve(OffsetStore.fileName("b"))).doesNotExist();
        reopened.delete("a", List.of(other));
        assertThat(meta.resolve("groups").resolve(OffsetStore.fileName("a")))
                .as("the last offset deleted removes the file")
                .doesNotExist();
        reopened.commit("a", Map.of(TP, new OffsetStore.Committed(9, 0, "")));
        assertThat(OffsetStore.open(meta).all("a"))
                .as("a group deleted can commit again")
                .containsOnlyKeys(TP);
    }
}

package io.tierlog.server.group.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.testing.Await;
import io.tierlog.server.meta.MetaFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Committed offsets survive restarts and torn journal tails, whatever the group id; no damaged file
 * bricks startup; old per-group files are migrated; concurrent commits share a write.
 */
class OffsetStoreTest {
    @TempDir Path meta;

    private static final TopicPartition TP = new TopicPartition("t", 3);

    private Path groupsDir() {
        return meta.resolve("groups");
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(groupsDir())) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private Path newest(String suffix) throws IOException {
        return groupsDir()
                .resolve(
                        names().stream().filter(n -> n.endsWith(suffix)).reduce((a, b) -> b).get());
    }

    @Test
    void groupIdsOfAnyLengthAndNullOrCommaMetadataCommitAndReload() throws Exception {
        List<String> ids = List.of("g", "x".repeat(119), "z".repeat(2000), "ü€");
        try (OffsetStore store = OffsetStore.open(meta)) {
            long offset = 10;
            for (String id : ids) {
                store.commit(
                        id, Map.of(TP, new OffsetStore.Committed(offset++, 0, "m,with,commas")));
            }
            store.commit("nullmeta", Map.of(TP, new OffsetStore.Committed(1, -1, null)));
        }
        OffsetStore reopened = OffsetStore.open(meta);
        long offset = 10;
        for (String id : ids) {
            assertThat(reopened.committed(id, TP))
                    .as("group of %d chars", id.length())
                    .contains(new OffsetStore.Committed(offset++, 0, "m,with,commas"));
        }
        assertThat(reopened.committed("nullmeta", TP))
                .contains(new OffsetStore.Committed(1, -1, null));
    }

    @Test
    void acknowledgedCommitsSurviveAnUncleanStopWithoutClose() throws Exception {
        OffsetStore store = OffsetStore.open(meta); // never closed: as a kill -9
        for (int i = 0; i < 100; i++) {
            store.commit(
                    "g",
                    Map.of(new TopicPartition("t", i % 7), new OffsetStore.Committed(i, 0, "")));
        }
        OffsetStore reopened = OffsetStore.open(meta);
        for (int p = 0; p < 7; p++) {
            int last = p + 7 * ((99 - p) / 7);
            assertThat(reopened.committed("g", new TopicPartition("t", p)))
                    .contains(new OffsetStore.Committed(last, 0, ""));
        }
    }

    @Test
    void aTornJournalTailIsDiscardedAndTheRecordsBeforeItKept() throws Exception {
        OffsetStore store = OffsetStore.open(meta);
        store.commit("g", Map.of(TP, new OffsetStore.Committed(1, 0, "")));
        store.commit("g", Map.of(TP, new OffsetStore.Committed(2, 0, "")));
        Path journal = newest(".journal");
        byte[] b = Files.readAllBytes(journal);
        Files.write(journal, java.util.Arrays.copyOf(b, b.length - 3)); // the last write was cut

        OffsetStore reopened = OffsetStore.open(meta);

        assertThat(reopened.committed("g", TP)).contains(new OffsetStore.Committed(1, 0, ""));
        reopened.commit("g", Map.of(TP, new OffsetStore.Committed(5, 0, "")));
        assertThat(OffsetStore.open(meta).committed("g", TP))
                .as("commits after the recovery are kept too")
                .contains(new OffsetStore.Committed(5, 0, ""));
    }

    @Test
    void aDamagedSnapshotIsMovedAsideAndTheOlderGenerationRecovers() throws Exception {
        OffsetStore.open(meta).commit("a", Map.of(TP, new OffsetStore.Committed(1, 0, "")));
        OffsetStore.open(meta).commit("b", Map.of(TP, new OffsetStore.Committed(2, 0, "")));
        Path snapshot = newest(".snapshot");
        byte[] b = Files.readAllBytes(snapshot);
        b[b.length / 2] ^= 0x5a;
        Files.write(snapshot, b);

        OffsetStore reopened = OffsetStore.open(meta);

        assertThat(reopened.committed("a", TP)).contains(new OffsetStore.Committed(1, 0, ""));
        assertThat(reopened.committed("b", TP)).contains(new OffsetStore.Committed(2, 0, ""));
        assertThat(names()).anyMatch(n -> n.startsWith(snapshot.getFileName() + ".corrupt-"));
    }

    @Test
    void everySnapshotDamagedStillStarts() throws Exception {
        OffsetStore.open(meta).commit("a", Map.of(TP, new OffsetStore.Committed(1, 0, "")));
        for (String n : names()) {
            if (n.endsWith(".snapshot")) {
                Files.writeString(groupsDir().resolve(n), "garbage");
            }
        }
        OffsetStore reopened = OffsetStore.open(meta);
        assertThat(reopened.committed("a", TP))
                .as("the journal after the lost snapshot still replays")
                .contains(new OffsetStore.Committed(1, 0, ""));
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
        reopened.delete("a", List.of(other));
        assertThat(reopened.groupIds()).as("the last offset deleted removes the group").isEmpty();
        reopened.commit("a", Map.of(TP, new OffsetStore.Committed(9, 0, "")));
        assertThat(OffsetStore.open(meta).all("a"))
                .as("a group deleted can commit again")
                .containsOnlyKeys(TP);
    }

    @Test
    void aSmallSnapshotThresholdRollsGenerationsAndKeepsOnlyTwo() throws Exception {
        OffsetStore store =
                OffsetStore.open(meta, OffsetStore.Durability.FSYNC, 300, OffsetFiles.REAL);
        for (int i = 0; i < 200; i++) {
            store.commit("g" + (i % 5), Map.of(TP, new OffsetStore.Committed(i, 0, "")));
        }
        assertThat(names().stream().filter(n -> n.endsWith(".snapshot")).count())
                .as("generations older than the previous one are deleted")
                .isLessThanOrEqualTo(2);
        OffsetStore reopened = OffsetStore.open(meta);
        for (int g = 0; g < 5; g++) {
            assertThat(reopened.committed("g" + g, TP))
                    .contains(new OffsetStore.Committed(195 + g, 0, ""));
        }
    }

    private void writeLegacy(String group, Map<TopicPartition, OffsetStore.Committed> m)
            throws IOException {
        Files.createDirectories(groupsDir());
        Properties p = new Properties();
        p.setProperty("group.id", group);
        m.forEach(
                (tp, c) ->
                        p.setProperty(
                                tp.partition() + "." + tp.topic(),
                                c.offset() + "," + c.leaderEpoch() + "," + c.metadata()));
        MetaFiles.writeAtomically(groupsDir().resolve(OffsetStore.fileName(group)), p, "old");
    }

    @Test
    void perGroupFilesOfAnOlderVersionAreMigratedThenDeleted() throws Exception {
        writeLegacy("good", Map.of(TP, new OffsetStore.Committed(7, 1, "m,x")));
        writeLegacy("y".repeat(300), Map.of(TP, new OffsetStore.Committed(8, 2, "")));
        Files.writeString(groupsDir().resolve(OffsetStore.fileName("bad")), "3.t=not-a-number\n");

        OffsetStore store = OffsetStore.open(meta);

        assertThat(store.committed("good", TP)).contains(new OffsetStore.Committed(7, 1, "m,x"));
        assertThat(store.committed("y".repeat(300), TP))
                .contains(new OffsetStore.Committed(8, 2, ""));
        assertThat(store.groupIds()).doesNotContain("bad");
        assertThat(names()).noneMatch(n -> n.endsWith(".properties"));
        assertThat(names()).anyMatch(n -> n.startsWith(OffsetStore.fileName("bad") + ".corrupt-"));
        assertThat(OffsetStore.open(meta).committed("good", TP))
                .as("from the snapshot now")
                .contains(new OffsetStore.Committed(7, 1, "m,x"));
    }

    @Test
    void aKillAtAnyStepOfTheMigrationKeepsTheOldOffsets() throws Exception {
        Path root = meta;
        for (int failAt = 1; ; failAt++) {
            Path dir = Files.createTempDirectory(root, "m" + failAt);
            meta = dir;
            writeLegacy("a", Map.of(TP, new OffsetStore.Committed(1, 0, "")));
            writeLegacy("b", Map.of(TP, new OffsetStore.Committed(2, 0, "")));
            FaultyOffsetFiles faulty = new FaultyOffsetFiles(failAt);
            try {
                OffsetStore.open(dir, OffsetStore.Durability.FSYNC, 1 << 20, faulty);
            } catch (IOException expected) {
                // killed at that step
            }
            OffsetStore after = OffsetStore.open(dir);
            assertThat(after.committed("a", TP))
                    .as("killed at step %d", failAt)
                    .contains(new OffsetStore.Committed(1, 0, ""));
            assertThat(after.committed("b", TP))
                    .as("killed at step %d", failAt)
                    .contains(new OffsetStore.Committed(2, 0, ""));
            if (!faulty.dead()) {
                assertThat(failAt).as("some steps were failed").isGreaterThan(3);
                return;
            }
        }
    }

    @Test
    void concurrentCommitsShareOneWrite() throws Exception {
        FaultyOffsetFiles files = new FaultyOffsetFiles(0);
        OffsetStore store = OffsetStore.open(meta, OffsetStore.Durability.FSYNC, 1 << 20, files);
        CountDownLatch release = new CountDownLatch(1);
        files.blockFirstRecordWrite = release;
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            List<Future<?>> done = new ArrayList<>();
            done.add(
                    pool.submit(
                            () -> {
                                store.commit("g0", Map.of(TP, new OffsetStore.Committed(0, 0, "")));
                                return null;
                            }));
            files.firstRecordWriteStarted.await();
            for (int i = 1; i < 5; i++) {
                String g = "g" + i;
                long o = i;
                done.add(
                        pool.submit(
                                () -> {
                                    store.commit(
                                            g, Map.of(TP, new OffsetStore.Committed(o, 0, "")));
                                    return null;
                                }));
            }
            Await.until(
                    "four commits queued behind the blocked write",
                    () -> store.journal().queued() == 4,
                    java.time.Duration.ofSeconds(30));
            release.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(files.recordWrites())
                .as("four commits queued behind a write go out in one more write")
                .isEqualTo(2);
        OffsetStore reopened = OffsetStore.open(meta);
        for (int i = 0; i < 5; i++) {
            assertThat(reopened.committed("g" + i, TP))
                    .contains(new OffsetStore.Committed(i, 0, ""));
        }
    }
}

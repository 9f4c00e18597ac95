package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inputs that used to brick a server: topic names of every legal length (the deletion markers' file
 * names must fit 255 bytes with every suffix), creations that fail half-way (nothing is left, and
 * the error says why), and deletion markers an open cannot read (skipped, never fatal).
 */
class TopicRegistryBrickingInputsTest {
    @TempDir Path dir;

    private TieredLog open() throws Exception {
        return TieredLog.open(TopicRegistryTest.hotOnly(dir, Map.of()));
    }

    private List<String> files(String sub) throws Exception {
        Path p = dir.resolve("data").resolve(sub);
        if (!Files.isDirectory(p)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(p)) {
            return s.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {214, 240, 241, 245, 249})
    void everyLegalNameLengthIsCreatedReopenedDeletedAndStaysGone(int length) throws Exception {
        String name = "n".repeat(length - 1) + "z";
        TopicInfo t;
        try (TieredLog log = open()) {
            t = log.topicRegistry().create(name, 2, Map.of("segment.bytes", "1048576"), false);
        }
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            assertThat(r.topic(name)).contains(t);
            // the marker written at the commit point of the deletion must fit a file name
            DeleteMarkers.Marker m =
                    new DeleteMarkers(dir.resolve("data/meta/topics.deleting"))
                            .write(name, UUID.randomUUID());
            assertThat(m.file().getFileName().toString().length() + ".tmp".length())
                    .isLessThanOrEqualTo(255);
            Files.delete(m.file());
            r.delete(name);
            assertThat(r.topic(name)).isEmpty();
        }
        try (TieredLog log = open()) {
            assertThat(log.topics()).isEmpty();
            assertThat(files("meta/topics.deleting")).isEmpty();
            assertThat(files("log")).noneMatch(f -> f.startsWith("n"));
        }
    }

    @Test
    void aCreationThatFailsHalfWayLeavesNothingAndSaysWhy() throws Exception {
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            // a file where partition 7's folder must go: creating that partition fails
            Files.writeString(dir.resolve("data/log/half-7"), "in the way");
            assertThatThrownBy(() -> r.create("half", 10, Map.of(), false))
                    .isInstanceOf(KafkaStorageException.class)
                    .hasMessageContaining("half")
                    .hasMessageContaining("nothing was created");
            assertThat(r.topic("half")).isEmpty();
            assertThat(log.catalog().topic("half")).isEmpty();
            assertThat(files("log")).noneMatch(f -> f.startsWith("half-") && !f.equals("half-7"));
            for (int p = 0; p < 10; p++) {
                assertThat(log.logManager().partition(new TopicPartition("half", p))).isEmpty();
            }
            // once the obstacle is gone, the same creation works
            Files.delete(dir.resolve("data/log/half-7"));
            assertThat(r.create("half", 10, Map.of(), false).partitions()).isEqualTo(10);
        }
    }

    @Test
    void aCrashAfterTheCatalogCommitLeavesATopicWhosePartitionsTheNextOpenCreates()
            throws Exception {
        try (TieredLog log = open()) {
            // the state a crash leaves right after the commit point: the row, no folders yet
            log.catalog().createTopic("crashed", 3, Map.of("segment.bytes", "1048576"));
        }
        try (TieredLog log = open()) {
            TopicInfo t = log.topicRegistry().topic("crashed").orElseThrow();
            assertThat(t.configs()).containsEntry("segment.bytes", "1048576");
            assertThat(log.latestOffset(new TopicPartition("crashed", 2))).isZero();
        }
    }

    @Test
    void unreadableAndForeignDeletionMarkersNeverStopAnOpen() throws Exception {
        try (TieredLog log = open()) {
            log.topicRegistry().create("good", 2, Map.of(), false);
        }
        Path markers = dir.resolve("data/meta/topics.deleting");
        Files.createDirectories(markers);
        Files.writeString(markers.resolve("broken.properties"), "topic.id=not-a-uuid\n");
        Files.writeString(markers.resolve("README"), "not ours");
        Files.writeString(markers.resolve("good.properties.tmp"), "torn");
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().topic("good")).isPresent();
            assertThat(log.latestOffset(new TopicPartition("good", 1))).isZero();
        }
        assertThat(files("meta/topics.deleting")).containsExactly("README", "broken.properties");
    }
}

package io.tierlog.server.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inputs that used to brick the server: topic names of every legal length (file names derived from
 * them must fit 255 bytes with every suffix), creations that fail half-way (all or nothing, also
 * across a crash), and metadata files a start cannot read (skipped, never fatal).
 */
class TopicRegistryBrickingInputsTest {
    @TempDir Path dir;
    private final List<LogManager> opened = new ArrayList<>();

    @AfterEach
    void stop() {
        opened.forEach(LogManager::close);
    }

    private TopicRegistry open(List<PartitionLog> seen) throws Exception {
        TopicRegistry r = TopicRegistry.load(dir.resolve("meta"), Config.empty());
        LogManager logs = LogManager.open(dir.resolve("log"), r::logConfig, Time.SYSTEM, null);
        opened.add(logs);
        r.attach(logs, seen::add);
        return r;
    }

    private void closeLogs() {
        opened.forEach(LogManager::close);
        opened.clear();
    }

    private List<String> files(String sub) throws Exception {
        try (Stream<Path> s = Files.list(dir.resolve(sub))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {214, 240, 241, 245, 249})
    void everyLegalNameLengthIsCreatedRestartedDeletedAndStaysGone(int length) throws Exception {
        String name = "n".repeat(length - 1) + "z";
        TopicRegistry r = open(new ArrayList<>());
        TopicMeta t = r.create(name, 2, Map.of("segment.bytes", "1048576"), false);
        for (String f : files("meta/topics")) {
            assertThat(f.length()).isLessThanOrEqualTo(255 - ".tmp".length());
        }
        closeLogs();
        TopicRegistry again = open(new ArrayList<>());
        assertThat(again.topic(name)).hasValueSatisfying(m -> assertThat(m.id()).isEqualTo(t.id()));
        assertThat(again.topic(name).get().configs()).containsEntry("segment.bytes", "1048576");
        again.delete(name);
        assertThat(again.topic(name)).isEmpty();
        closeLogs();
        TopicRegistry third = open(new ArrayList<>());
        assertThat(third.topics()).isEmpty();
        assertThat(files("meta/topics")).isEmpty();
        assertThat(files("log")).noneMatch(f -> f.startsWith("n"));
    }

    @Test
    void aCreationThatFailsHalfWayLeavesNothingAndSaysWhy() throws Exception {
        TopicRegistry r = open(new ArrayList<>());
        // a file where partition 7's folder must go: creating that partition fails
        Files.writeString(dir.resolve("log").resolve("half-7"), "in the way");
        assertThatThrownBy(() -> r.create("half", 10, Map.of(), false))
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining("half")
                .hasMessageContaining("nothing was created");
        assertThat(r.topic("half")).isEmpty();
        assertThat(files("meta/topics")).isEmpty();
        assertThat(files("log")).noneMatch(f -> f.startsWith("half-") && !f.equals("half-7"));
        for (int p = 0; p < 10; p++) {
            assertThat(opened.get(0).partition(new TopicPartition("half", p))).isEmpty();
        }
        // once the obstacle is gone, the same creation works
        Files.delete(dir.resolve("log").resolve("half-7"));
        assertThat(r.create("half", 10, Map.of(), false).partitions()).isEqualTo(10);
    }

    @Test
    void aCreationInterruptedByACrashIsRolledBackAtTheNextStart() throws Exception {
        TopicRegistry r = open(new ArrayList<>());
        r.create("kept", 1, Map.of(), false);
        closeLogs();
        // the state a crash leaves mid-creation: the marker and some partition folders
        Path topics = dir.resolve("meta/topics");
        Files.writeString(
                topics.resolve("crashed.creating"),
                "topic.name=crashed\ntopic.id="
                        + org.apache.kafka.common.Uuid.randomUuid()
                        + "\npartitions=100\n");
        try (LogManager logs =
                LogManager.open(dir.resolve("log"), t -> r.logConfig(t), Time.SYSTEM, null)) {
            for (int p = 0; p < 3; p++) {
                logs.getOrCreate(new TopicPartition("crashed", p));
            }
        }
        List<PartitionLog> seen = new ArrayList<>();
        TopicRegistry again = open(seen);
        assertThat(again.topic("crashed")).isEmpty();
        assertThat(again.topic("kept")).isPresent();
        assertThat(seen).extracting(l -> l.topicPartition().topic()).containsOnly("kept");
        assertThat(files("log")).noneMatch(f -> f.startsWith("crashed"));
        assertThat(files("meta/topics")).containsExactly("kept.properties");
    }

    @Test
    void unreadableAndForeignMetadataFilesNeverStopAStart() throws Exception {
        TopicRegistry r = open(new ArrayList<>());
        r.create("good", 2, Map.of(), false);
        r.create("broken", 3, Map.of(), false);
        closeLogs();
        Path topics = dir.resolve("meta/topics");
        Files.writeString(topics.resolve("broken.properties"), "topic.id=not-a-uuid\n");
        Files.writeString(topics.resolve("README"), "not ours");
        Files.writeString(topics.resolve("bad name!.deleting"), "x");
        Files.writeString(topics.resolve("good.properties.tmp"), "torn");
        TopicRegistry again = open(new ArrayList<>());
        assertThat(again.topic("good")).isPresent();
        // the broken topic's data is kept: its folders are adopted as a topic of 3 partitions
        assertThat(again.topic("broken"))
                .hasValueSatisfying(t -> assertThat(t.partitions()).isEqualTo(3));
        assertThat(files("meta/topics")).doesNotContain("good.properties.tmp");
    }
}

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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic metadata survives restarts with its id and overrides, deletion is crash-safe (a tombstone
 * is finished on the next start), and partition folders without metadata are adopted, never
 * deleted.
 */
class TopicRegistryTest {
    @TempDir Path dir;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<LogManager> opened = new ArrayList<>();

    @AfterEach
    void stop() {
        opened.forEach(LogManager::close);
        scheduler.shutdownNow();
    }

    private TopicRegistry open(Config defaults, List<PartitionLog> seen) throws Exception {
        Path meta = dir.resolve("meta");
        TopicRegistry r = TopicRegistry.load(meta, defaults);
        LogManager logs = LogManager.open(dir.resolve("log"), r::logConfig, Time.SYSTEM, scheduler);
        opened.add(logs);
        r.attach(logs, seen::add);
        return r;
    }

    private void closeLogs() {
        opened.forEach(LogManager::close);
        opened.clear();
    }

    @Test
    void partitionsOfANewTopicOpenWithItsOverridesNotTheServerDefaults() throws Exception {
        List<PartitionLog> seen = new ArrayList<>();
        TopicRegistry r = open(Config.of(Map.of("segment.bytes", "2MiB")), seen);
        r.create(
                "orders", 2, Map.of("segment.bytes", "1048576", "message.max.bytes", "100"), false);
        assertThat(seen).hasSize(2);
        for (PartitionLog pl : seen) {
            assertThat(pl.config().segmentBytes()).isEqualTo(1 << 20);
            assertThat(pl.config().messageMaxBytes()).isEqualTo(100);
        }
        assertThat(r.logConfig("later").segmentBytes()).isEqualTo(2 << 20);
    }

    @Test
    void topicsSurviveRestartWithIdPartitionsAndOverrides() throws Exception {
        List<PartitionLog> seen = new ArrayList<>();
        TopicRegistry r = open(Config.of(Map.of("segment.bytes", "2MiB")), seen);
        TopicMeta t = r.create("orders", 3, Map.of("segment.bytes", "1048576"), false);
        assertThat(seen).hasSize(3);
        assertThat(t.logConfig().segmentBytes()).isEqualTo(1 << 20);
        assertThat(r.logConfig("other").segmentBytes()).isEqualTo(2 << 20);
        closeLogs();

        seen.clear();
        TopicRegistry again = open(Config.of(Map.of("segment.bytes", "2MiB")), seen);
        TopicMeta back = again.topic("orders").orElseThrow();
        assertThat(back.id()).isEqualTo(t.id());
        assertThat(back.partitions()).isEqualTo(3);
        assertThat(back.configs()).containsEntry("segment.bytes", "1048576");
        assertThat(again.topic(t.id())).contains(back);
        assertThat(seen).hasSize(3);
    }

    @Test
    void badRequestsAreRefusedWithKafkaExceptions() throws Exception {
        TopicRegistry r = open(Config.empty(), new ArrayList<>());
        r.create("a", 1, Map.of(), false);
        assertThatThrownBy(() -> r.create("a", 1, Map.of(), false))
                .isInstanceOf(TopicExistsException.class);
        assertThatThrownBy(() -> r.create("bad/name", 1, Map.of(), false))
                .isInstanceOf(InvalidTopicException.class);
        assertThatThrownBy(() -> r.create("b", 0, Map.of(), false))
                .isInstanceOf(InvalidPartitionsException.class);
        assertThatThrownBy(() -> r.create("b", TopicRegistry.MAX_PARTITIONS + 1, Map.of(), false))
                .isInstanceOf(InvalidPartitionsException.class);
        assertThatThrownBy(() -> r.create("b", 1, Map.of("no.such.key", "1"), false))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("no.such.key");
        assertThatThrownBy(() -> r.create("b", 1, Map.of("segment.bytes", "lots"), false))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("segment.bytes");
        r.create("b", 1, Map.of(), true);
        assertThat(r.topic("b")).isEmpty();
    }

    @Test
    void interruptedDeletionIsFinishedOnRestartAndOrphanFoldersAreAdopted() throws Exception {
        TopicRegistry r = open(Config.empty(), new ArrayList<>());
        r.create("gone", 2, Map.of(), false);
        r.create("kept", 1, Map.of(), false);
        closeLogs();
        // A crash right after the commit point of a deletion: the tombstone is there, data too.
        Path topics = dir.resolve("meta/topics");
        Files.move(topics.resolve("gone.properties"), topics.resolve("gone.deleting"));
        // And partition folders of a topic whose metadata was lost.
        Files.createDirectories(dir.resolve("log/lost-0"));
        Files.createDirectories(dir.resolve("log/lost-1"));

        TopicRegistry again = open(Config.empty(), new ArrayList<>());
        assertThat(again.topic("gone")).isEmpty();
        assertThat(dir.resolve("log/gone-0")).doesNotExist();
        assertThat(topics.resolve("gone.deleting")).doesNotExist();
        assertThat(again.topic("kept")).isPresent();
        assertThat(again.topic("lost").orElseThrow().partitions()).isEqualTo(2);

        again.delete("kept");
        assertThat(again.topic("kept")).isEmpty();
        assertThat(opened.get(0).partition(new TopicPartition("kept", 0))).isEmpty();
        assertThat(topics.resolve("kept.properties")).doesNotExist();
    }
}

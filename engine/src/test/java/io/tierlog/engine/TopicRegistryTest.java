package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.Config;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's one topic registry, in the catalog (real SQLite, hot tier only, so no object store):
 * topics survive reopening with their id, partitions and overrides; bad requests are Kafka errors;
 * an interrupted deletion is finished at the next open; partition folders the catalog does not know
 * are adopted, never deleted; a topic the catalog got from elsewhere (an offload, with no configs)
 * exists for {@code serve}.
 */
class TopicRegistryTest {
    @TempDir Path dir;

    static Config hotOnly(Path dir, Map<String, String> extra) {
        Map<String, String> m = new HashMap<>();
        m.put("data.dir", dir.resolve("data").toString());
        m.put("tiered.enabled", "false");
        m.put("engine.background.enabled", "false");
        m.putAll(extra);
        return Config.of(m);
    }

    private TieredLog open() throws Exception {
        return TieredLog.open(hotOnly(dir, Map.of("segment.bytes", "2MiB")));
    }

    static ByteBuffer batch(String value) {
        return MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(
                                System.currentTimeMillis(),
                                null,
                                value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    @Test
    void topicsSurviveReopeningWithIdPartitionsAndOverrides() throws Exception {
        TopicInfo t;
        try (TieredLog log = open()) {
            t = log.topicRegistry().create("orders", 3, Map.of("segment.bytes", "1048576"), false);
            assertThat(log.latestOffset(new TopicPartition("orders", 2))).isZero();
            assertThat(log.topicRegistry().topicDefaults().raw("segment.bytes")).isEqualTo("2MiB");
        }
        try (TieredLog log = open()) {
            TopicInfo back = log.topicRegistry().topic("orders").orElseThrow();
            assertThat(back).isEqualTo(t);
            assertThat(back.configs()).containsEntry("segment.bytes", "1048576");
            assertThat(log.topicRegistry().topic(t.id())).contains(back);
            assertThat(log.catalog().topic("orders").orElseThrow().id()).isEqualTo(t.uuid());
            assertThat(log.latestOffset(new TopicPartition("orders", 2))).isZero();
        }
    }

    @Test
    void partitionsOfANewTopicOpenWithItsOverridesNotTheServerDefaults() throws Exception {
        try (TieredLog log = open()) {
            // Kafka's own minimum of segment.bytes is 1 MiB; its tests go below it with the
            // internal key
            log.topicRegistry().create("small", 2, Map.of("internal.segment.bytes", "1024"), false);
            for (int p = 0; p < 2; p++) {
                TopicPartition tp = new TopicPartition("small", p);
                assertThat(log.logManager().partition(tp).orElseThrow().config().segmentBytes())
                        .as("internal.segment.bytes of %s as opened by the creation", tp)
                        .isEqualTo(1024);
            }
            // and it acts on it: 20 batches of ~300 bytes roll far below the 2MiB default
            TopicPartition tp = new TopicPartition("small", 0);
            for (int i = 0; i < 20; i++) {
                log.append(tp, batch("v".repeat(250) + i));
            }
            assertThat(log.logManager().partition(tp).orElseThrow().segments().size())
                    .as("segments after 6KB into a topic with internal.segment.bytes=1024")
                    .isGreaterThan(3);
        }
    }

    @Test
    void badRequestsAreRefusedWithKafkaExceptions() throws Exception {
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            r.create("a", 1, Map.of(), false);
            assertThatThrownBy(() -> r.create("a", 1, Map.of(), false))
                    .isInstanceOf(TopicExistsException.class);
            assertThatThrownBy(() -> r.create("bad/name", 1, Map.of(), false))
                    .isInstanceOf(InvalidTopicException.class);
            assertThatThrownBy(() -> r.create("b", 0, Map.of(), false))
                    .isInstanceOf(InvalidPartitionsException.class);
            assertThatThrownBy(
                            () -> r.create("b", TopicRegistry.MAX_PARTITIONS + 1, Map.of(), false))
                    .isInstanceOf(InvalidPartitionsException.class);
            assertThatThrownBy(() -> r.create("b", 1, Map.of("no.such.key", "1"), false))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("no.such.key");
            assertThatThrownBy(() -> r.create("b", 1, Map.of("segment.bytes", "lots"), false))
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("segment.bytes");
            assertThatThrownBy(() -> r.delete("b"))
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
            r.create("b", 1, Map.of(), true);
            assertThat(r.topic("b")).isEmpty();
            assertThat(log.catalog().topic("b")).isEmpty();
        }
    }

    @Test
    void aTopicTheCatalogGotFromAnOffloadExistsAndIsNotCreatedAgain() throws Exception {
        try (TieredLog log = open()) {
            // what `tierlog offload` registers for a partition it found: no configs
            log.catalog().ensureTopic("seen", 2);
            assertThatThrownBy(() -> log.topicRegistry().create("seen", 2, Map.of(), false))
                    .isInstanceOf(TopicExistsException.class);
            // now known here, with its partitions open: Metadata lists it, Produce works
            assertThat(log.topics()).contains("seen");
            assertThat(log.append(new TopicPartition("seen", 1), batch("v")).firstOffset())
                    .isZero();
            // the embedding API's create is idempotent for the same settings
            log.createTopic("seen", 2, Map.of());
        }
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().topic("seen").orElseThrow().partitions()).isEqualTo(2);
        }
    }

    @Test
    void interruptedDeletionIsFinishedAtTheNextOpenAndOrphanFoldersAreAdopted() throws Exception {
        UUID goneId;
        try (TieredLog log = open()) {
            goneId = log.topicRegistry().create("gone", 2, Map.of(), false).uuid();
            log.topicRegistry().create("kept", 1, Map.of(), false);
            log.append(new TopicPartition("gone", 0), batch("x"));
        }
        Path data = dir.resolve("data");
        // a crash right after the commit point of a deletion: the marker is there, data too
        new DeleteMarkers(data.resolve("meta/topics.deleting")).write("gone", goneId);
        // and partition folders of a topic the catalog never knew
        Files.createDirectories(data.resolve("log/lost-0"));
        Files.createDirectories(data.resolve("log/lost-1"));
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            assertThat(r.topic("gone")).isEmpty();
            assertThat(log.catalog().topic("gone")).isEmpty();
            assertThat(data.resolve("log/gone-0")).doesNotExist();
            assertThat(data.resolve("meta/topics.deleting")).isEmptyDirectory();
            assertThat(r.topic("kept")).isPresent();
            assertThat(r.topic("lost").orElseThrow().partitions()).isEqualTo(2);
            assertThat(data.resolve("log/lost-1")).isDirectory();

            r.delete("kept");
            assertThat(r.topic("kept")).isEmpty();
            assertThat(log.catalog().topic("kept")).isEmpty();
            assertThat(log.logManager().partition(new TopicPartition("kept", 0))).isEmpty();
            assertThat(data.resolve("meta/topics.deleting")).isEmptyDirectory();
        }
    }

    @Test
    void aStaleDeletionMarkerNeverDeletesATopicCreatedAgainUnderTheName() throws Exception {
        try (TieredLog log = open()) {
            log.topicRegistry().create("again", 1, Map.of(), false);
            log.append(new TopicPartition("again", 0), batch("keep me"));
        }
        // a marker of an earlier topic of that name (another id) that was never removed
        Path data = dir.resolve("data");
        new DeleteMarkers(data.resolve("meta/topics.deleting")).write("again", UUID.randomUUID());
        try (TieredLog log = open()) {
            assertThat(log.topicRegistry().topic("again")).isPresent();
            assertThat(log.latestOffset(new TopicPartition("again", 0))).isEqualTo(1);
            assertThat(data.resolve("meta/topics.deleting")).isEmptyDirectory();
        }
    }

    @Test
    void partitionsAndConfigsChangeInTheCatalog() throws Exception {
        try (TieredLog log = open()) {
            TopicRegistry r = log.topicRegistry();
            r.create("grow", 1, Map.of(), false);
            assertThat(r.addPartitions("grow", 3).partitions()).isEqualTo(3);
            assertThat(log.latestOffset(new TopicPartition("grow", 2))).isZero();
            assertThatThrownBy(() -> r.addPartitions("grow", 2))
                    .isInstanceOf(InvalidPartitionsException.class);
            r.alterConfigs("grow", Map.of("retention.ms", "60000"));
            assertThatThrownBy(() -> r.alterConfigs("grow", Map.of("retention.ms", "soon")))
                    .isInstanceOf(InvalidConfigurationException.class);
        }
        try (TieredLog log = open()) {
            TopicInfo t = log.topicRegistry().topic("grow").orElseThrow();
            assertThat(t.partitions()).isEqualTo(3);
            assertThat(t.configs()).isEqualTo(Map.of("retention.ms", "60000"));
        }
    }

    @Test
    void appendListenersHearEveryPartitionPresentAndFuture() throws Exception {
        try (TieredLog log = open()) {
            log.topicRegistry().create("early", 1, Map.of(), false);
            List<String> heard = new CopyOnWriteArrayList<>();
            log.addAppendListener((tp, hw) -> heard.add(tp + "@" + hw));
            log.topicRegistry().create("late", 1, Map.of(), false);
            log.append(new TopicPartition("early", 0), batch("a"));
            log.append(new TopicPartition("late", 0), batch("b"));
            assertThat(heard).containsExactly("early-0@1", "late-0@1");
        }
    }
}

package io.tierlog.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierlog.common.MockTime;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Kafka's topic-name rules; no name reaches outside the log dir. */
class TopicNamesTest {
    @TempDir Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"orders", "a.b_c-D9", "__consumer_offsets", "x"})
    void validNamesAreAccepted(String name) {
        TopicNames.validate(name);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                ".",
                "..",
                "../etc",
                "a/b",
                "a\\b",
                "with space",
                "ü",
                "a\u0000b",
                "/abs"
            })
    void invalidNamesAreRejected(String name) {
        assertThatThrownBy(() -> TopicNames.validate(name))
                .isInstanceOf(InvalidTopicException.class);
    }

    @Test
    void nameLengthIsLimitedTo249() {
        TopicNames.validate("a".repeat(249));
        assertThatThrownBy(() -> TopicNames.validate("a".repeat(250)))
                .isInstanceOf(InvalidTopicException.class);
    }

    @Test
    void partitionFolderNamesRoundTrip() {
        TopicPartition tp = new TopicPartition("my-topic-7", 12);
        assertThat(TopicNames.parseDirName(TopicNames.dirName(tp))).isEqualTo(tp);
        assertThatThrownBy(() -> TopicNames.parseDirName("nopartition"))
                .isInstanceOf(InvalidTopicException.class);
        assertThatThrownBy(() -> TopicNames.dirName(new TopicPartition("t", -1)))
                .isInstanceOf(InvalidTopicException.class);
    }

    @Test
    void logManagerRefusesPathTraversalAndCreatesNothingOutside() throws Exception {
        Path logDir = tmp.resolve("log");
        try (LogManager m =
                LogManager.open(logDir, t -> LogConfig.defaults(), new MockTime(), null)) {
            for (String bad : new String[] {"..", "../../escape", "a/../../b", "."}) {
                assertThatThrownBy(() -> m.getOrCreate(new TopicPartition(bad, 0)))
                        .isInstanceOf(InvalidTopicException.class);
            }
            assertThat(m.partitions()).isEmpty();
        }
        try (var s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("log");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {213, 214, 241, 249})
    void deletionDirNameOfEveryLegalLengthFitsTheFileNameLimit(int length) {
        String topic = "t".repeat(length);
        TopicNames.validate(topic);
        java.util.UUID id = java.util.UUID.randomUUID();
        for (int partition : new int[] {0, 9_999, Integer.MAX_VALUE}) {
            String name = TopicNames.deleteDirName(new TopicPartition(topic, partition), id);
            assertThat(name.length()).isLessThanOrEqualTo(TopicNames.MAX_FILE_NAME_BYTES);
            assertThat(name)
                    .endsWith("-" + partition + "." + id.toString().replace("-", "") + "-delete");
            assertThat(topic).startsWith(name.substring(0, name.indexOf("-" + partition + ".")));
        }
    }

    @Test
    void fileStemKeepsShortNamesAndHashesLongOnesStably() {
        assertThat(TopicNames.fileStem("orders", 15)).isEqualTo("orders");
        String a = "a".repeat(248) + "x";
        String b = "a".repeat(248) + "y";
        assertThat(TopicNames.fileStem(a, 15)).hasSize(240).isEqualTo(TopicNames.fileStem(a, 15));
        assertThat(TopicNames.fileStem(a, 15)).isNotEqualTo(TopicNames.fileStem(b, 15));
        assertThat(TopicNames.fileStem("b".repeat(240), 15)).isEqualTo("b".repeat(240));
    }

    @Test
    void partitionOfA249CharacterTopicIsCreatedDeletedAndGoneAfterRestart() throws Exception {
        String topic = "x".repeat(249);
        TopicPartition tp = new TopicPartition(topic, 9_999);
        Path logDir = tmp.resolve("log");
        try (LogManager m = openDefaults(logDir)) {
            m.getOrCreate(tp).append(new io.tierlog.hot.testing.RandomBatches(1).batch());
            m.delete(tp);
            assertThat(m.partition(tp)).isEmpty();
        }
        try (java.util.stream.Stream<Path> s = Files.list(logDir)) {
            assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("xxx"));
        }
        // a deletion interrupted after its rename (a leftover -delete dir) never stops a start
        Path leftover = logDir.resolve(TopicNames.deleteDirName(tp, java.util.UUID.randomUUID()));
        Files.createDirectories(leftover);
        Files.writeString(leftover.resolve("00000000000000000000.log"), "torn");
        try (LogManager m = openDefaults(logDir)) {
            assertThat(m.partitions()).isEmpty();
        }
        assertThat(leftover).doesNotExist();
    }

    private static LogManager openDefaults(Path logDir) throws java.io.IOException {
        return LogManager.open(
                logDir,
                t -> LogConfig.from(java.util.Map.of()),
                new MockTime(1_700_000_000_000L),
                null);
    }
}

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
}

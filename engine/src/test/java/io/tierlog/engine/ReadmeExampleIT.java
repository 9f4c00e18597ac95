package io.tierlog.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compiles and runs the usage example of the README (the text between the markers, verbatim). */
class ReadmeExampleIT {
    @TempDir Path dataDir;

    @Test
    void readmeExampleRunsOnTheEmbeddedDefaults() throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        // README-BEGIN
        Config config = Config.of(Map.of("data.dir", dataDir.toString())); // embedded S3 + SQLite
        try (TieredLog log = TieredLog.open(config)) {
            TopicPartition tp = new TopicPartition("events", 0);
            log.createTopic("events", 1, Map.of("local.retention.ms", "3600000"));
            for (int i = 0; i < 3; i++) {
                byte[] value = ("hello " + i).getBytes(StandardCharsets.UTF_8);
                log.append(
                        tp,
                        MemoryRecords.withRecords(
                                Compression.zstd().build(),
                                new SimpleRecord(System.currentTimeMillis(), null, value)));
            }
            long offset = log.earliestOffset(tp);
            while (offset < log.latestOffset(tp)) {
                TierRead read = log.read(tp, offset, 1 << 20).get(); // hot slice or cold Parquet
                for (RecordBatch batch : read.toMemoryRecords().batches()) {
                    for (Record r : batch) {
                        String v = StandardCharsets.UTF_8.decode(r.value()).toString();
                        out.printf("%d %s (%s)%n", r.offset(), v, read.tier());
                    }
                }
                offset = read.nextOffset();
            }
            Optional<TimestampOffset> first = log.offsetForTimestamp(tp, 0L).get();
            out.println("first offset at or after t=0: " + first.map(TimestampOffset::offset));
        }
        // README-END
        assertThat(buf.toString(StandardCharsets.UTF_8))
                .isEqualTo(
                        "0 hello 0 (HOT)\n1 hello 1 (HOT)\n2 hello 2 (HOT)\n"
                                + "first offset at or after t=0: Optional[0]\n");
        assertThat(dataDir.resolve("catalog.db")).exists();
        assertThat(dataDir.resolve("s3")).isDirectory();
        assertThat(dataDir.resolve("log/events-0")).isDirectory();
    }

    @Test
    void readmeShowsExactlyTheExampleThisTestRuns() throws Exception {
        String source =
                Files.readString(Path.of("src/test/java/io/tierlog/engine/ReadmeExampleIT.java"));
        String example =
                source.substring(
                        source.indexOf("// README-BEGIN\n") + "// README-BEGIN\n".length(),
                        source.indexOf("        // README-END"));
        String dedented =
                example.lines()
                        .map(l -> l.startsWith("        ") ? l.substring(8) : l)
                        .collect(Collectors.joining("\n", "", "\n"));
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme)
                .as("README.md's embedding example must be the code of this test, verbatim")
                .contains("```java\n" + dedented + "```\n");
    }
}

package io.tierlog.itests.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.tierlog.common.Config;
import io.tierlog.common.Time;
import io.tierlog.hot.CleanerConfig;
import io.tierlog.hot.LogCleaner;
import io.tierlog.hot.LogConfig;
import io.tierlog.hot.LogManager;
import io.tierlog.hot.PartitionLog;
import io.tierlog.hot.TombstoneGate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments rewritten by tierlog's log cleaner are still Kafka's format: Apache Kafka 4.4.0's {@code
 * DumpLogSegments} decodes every batch and record of them in deep iteration (CRCs valid, the batch
 * delete horizon of retained tombstones understood), and its index checks pass. Offset gaps are
 * what compaction leaves, so Kafka's "Non-consecutive offsets" report is expected here (it prints
 * it for its own cleaned segments too) and not counted as an error.
 */
class CleanedSegmentsPassKafkaToolsIT {
    @TempDir Path tmp;

    @Test
    void kafkaDumpLogSegmentsReadsCleanedSegmentsAndIndexes() throws Exception {
        LogConfig config =
                LogConfig.from(
                        Map.of(
                                "cleanup.policy", "compact",
                                "segment.bytes", "8192",
                                "index.interval.bytes", "512",
                                "min.cleanable.dirty.ratio", "0.01",
                                "file.delete.delay.ms", "0"));
        TopicPartition tp = new TopicPartition("table", 0);
        Path logDir = tmp.resolve("log");
        long written = 0;
        try (LogManager manager = LogManager.open(logDir, t -> config, Time.SYSTEM, null)) {
            PartitionLog log = manager.getOrCreate(tp);
            List<Compression> codecs =
                    List.of(
                            Compression.NONE,
                            Compression.lz4().build(),
                            Compression.zstd().build());
            for (int i = 0; i < 1500; i++) {
                SimpleRecord[] recs = new SimpleRecord[1 + i % 3];
                for (int r = 0; r < recs.length; r++) {
                    byte[] key = ("k" + ((i * 7 + r) % 50)).getBytes(StandardCharsets.UTF_8);
                    byte[] value =
                            i % 13 == 0
                                    ? null
                                    : ("v" + i + "-" + r).getBytes(StandardCharsets.UTF_8);
                    recs[r] = new SimpleRecord(System.currentTimeMillis(), key, value);
                }
                log.append(MemoryRecords.withRecords(codecs.get(i % 3), recs).buffer());
                written += recs.length;
            }
            LogCleaner cleaner =
                    manager.startCleaner(
                            CleanerConfig.from(Config.of(Map.of("log.cleaner.threads", "0"))),
                            TombstoneGate.ALWAYS);
            assertThat(cleaner.cleanAllOnce()).isEqualTo(1);
            assertThat(cleaner.totals().recordsRetained()).isLessThan(written);
        }
        Path dir = logDir.resolve("table-0");
        List<Path> logs = new ArrayList<>();
        List<Path> indexes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".log")) {
                    logs.add(f);
                } else if (name.endsWith(".index") || name.endsWith(".timeindex")) {
                    indexes.add(f);
                }
            }
        }
        assertThat(logs).hasSizeGreaterThan(1);
        String deep = KafkaTools.dumpLogSegments(logs, tmp, "--deep-iteration");
        assertThat(withoutGapReports(KafkaTools.errorLines(deep)))
                .as("DumpLogSegments --deep-iteration of cleaned segments")
                .isEmpty();
        assertThat(deep).contains("compresscodec: zstd").contains("compresscodec: lz4");
        long recordLines = deep.lines().filter(l -> l.startsWith("| offset:")).count();
        assertThat(recordLines).isPositive().isLessThan(written);

        String sanity = KafkaTools.dumpLogSegments(indexes, tmp, "--index-sanity-check");
        assertThat(KafkaTools.errorLines(sanity)).as("--index-sanity-check").isEmpty();
        String verify = KafkaTools.dumpLogSegments(indexes, tmp, "--verify-index-only");
        assertThat(withoutGapReports(KafkaTools.errorLines(verify)))
                .as("--verify-index-only")
                .isEmpty();
    }

    /** Drops "Non-consecutive offsets" blocks: the offset gaps compaction leaves by design. */
    private static List<String> withoutGapReports(List<String> errors) {
        List<String> out = new ArrayList<>();
        boolean inGap = false;
        for (String line : errors) {
            if (line.startsWith("Non-consecutive offsets in ")) {
                inGap = true;
            } else if (!line.startsWith("  ")) {
                inGap = false;
            }
            if (!inGap) {
                out.add(line);
            }
        }
        return out;
    }
}
